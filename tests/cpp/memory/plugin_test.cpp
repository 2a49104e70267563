// C plugins (version checks, the function table, loading errors) and the registry's choices, no GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "cubridge/memory/out_of_memory.hpp"
#include "cubridge/memory/registry.hpp"

using namespace cubridge::memory;

namespace {
struct FakePlugin {
  std::map<std::uintptr_t, std::size_t> live;
  std::uintptr_t next = 0x1000;
  int initialized = 0, resets = 0, destroyed = 0, defer_depth = 0;
  std::size_t limit = 1 << 20;
};
FakePlugin g_plugin;

extern "C" std::uint32_t version_one() { return 1; }
extern "C" std::uint32_t version_two() { return 2; }
extern "C" int create_plugin(int, cubridge_memory_plugin_v1* out) {
  out->state = &g_plugin;
  out->initialize = [](void* s) { ++static_cast<FakePlugin*>(s)->initialized; return 0; };
  out->memalloc = [](void* s, std::size_t n, std::uintptr_t, std::uintptr_t* p) {
    auto* f = static_cast<FakePlugin*>(s);
    if (n > f->limit) return CUBRIDGE_PLUGIN_OUT_OF_MEMORY;
    if (n == 13) return 7;
    *p = f->next;
    f->next += n;
    f->live[*p] = n;
    return 0;
  };
  out->memfree = [](void* s, std::uintptr_t p, std::size_t, std::uintptr_t) {
    return static_cast<FakePlugin*>(s)->live.erase(p) == 1 ? 0 : 5;
  };
  out->reset = [](void* s) { ++static_cast<FakePlugin*>(s)->resets; };
  out->defer_begin = [](void* s) { ++static_cast<FakePlugin*>(s)->defer_depth; };
  out->defer_end = [](void* s) { --static_cast<FakePlugin*>(s)->defer_depth; };
  out->last_error = [](void*) -> const char* { return "thirteen is unlucky"; };
  out->destroy = [](void* s) { ++static_cast<FakePlugin*>(s)->destroyed; };
  return 0;
}
extern "C" int create_incomplete(int, cubridge_memory_plugin_v1* out) {
  out->initialize = [](void*) { return 0; };
  return 0;
}
}  // namespace

TEST(CPlugin, VersionMismatchIsRefusedByName) {
  try {
    c_plugin_factory(&version_two, &create_plugin, "'libfake.so'");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "memory plugin 'libfake.so' implements interface version 2; cubridge accepts version 1");
  }
}

TEST(CPlugin, AllocatesAndFreesThroughTheTable) {
  g_plugin = FakePlugin{};
  auto factory = c_plugin_factory(&version_one, &create_plugin, "'libfake.so'");
  {
    auto m = factory(nullptr);  // no context: the table alone is under test
    EXPECT_EQ(m->interface_version(), 1);
    m->initialize();
    m->initialize();
    EXPECT_EQ(g_plugin.initialized, 2);
    auto p = m->memalloc(100);
    EXPECT_EQ(g_plugin.live.size(), 1u);
    EXPECT_EQ(m->stats().snapshot().bytes_in_use, 100u);
    {
      auto g1 = m->defer_cleanup();
      auto g2 = m->defer_cleanup();
      EXPECT_EQ(g_plugin.defer_depth, 2);
    }
    EXPECT_EQ(g_plugin.defer_depth, 0);
    p.reset();
    EXPECT_TRUE(g_plugin.live.empty());
    EXPECT_EQ(m->stats().snapshot().bytes_in_use, 0u);
    EXPECT_EQ(m->stats().snapshot().peak_bytes, 100u);
    m->reset();
    EXPECT_EQ(g_plugin.resets, 1);
    try {
      m->memalloc(13);
      FAIL();
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "memory plugin 'libfake.so': memalloc failed with code 7: thirteen is unlucky");
    }
    try {
      m->memalloc(2 << 20);
      FAIL();
    } catch (const cubridge::OutOfMemory& e) {
      EXPECT_NE(std::string(e.what()).find("cannot allocate 2097152 bytes"), std::string::npos);
    }
    EXPECT_THROW(m->get_memory_info(), std::runtime_error);  // a plugin may not be able to tell
  }
  EXPECT_EQ(g_plugin.destroyed, 1);
}

TEST(CPlugin, MissingRequiredMemberIsNamed) {
  auto factory = c_plugin_factory(&version_one, &create_incomplete, "'libhalf.so'");
  try {
    factory(nullptr);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "memory plugin 'libhalf.so': the function table leaves the required member 'memalloc' NULL "
                           "(required: initialize, memalloc, memfree, destroy)");
  }
}

TEST(CPlugin, LoadingErrorsNameThePath) {
  try {
    load_plugin_library("/nonexistent/libplugin.so");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("memory plugin library '/nonexistent/libplugin.so' could not be loaded: "),
              std::string::npos);
  }
  try {
    load_plugin_library("libm.so.6");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "memory plugin library 'libm.so.6' does not export cubridge_memory_plugin_interface_version "
                           "(see include/cubridge/c/memory_plugin.h)");
  }
}

TEST(Registry, BuiltinNamesAndEnvironmentPrecedence) {
  try {
    builtin_manager("fast");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "memory manager 'fast' is not built in (accepted: 'default', 'caching', 'async')");
  }
  reset_registry_for_testing();
  EXPECT_EQ(memory_manager_description(), "default");
  EXPECT_TRUE(set_memory_manager(builtin_manager("caching"), "caching"));
  EXPECT_EQ(memory_manager_description(), "caching");
  setenv(kManagerEnvironmentVariable, "async", 1);
  EXPECT_TRUE(memory_manager_set_by_environment());
  EXPECT_FALSE(set_memory_manager(builtin_manager("default"), "default"));  // the variable wins
  EXPECT_EQ(memory_manager_description(), "caching");
  unsetenv(kManagerEnvironmentVariable);
  reset_registry_for_testing();
  EXPECT_THROW(set_memory_manager(nullptr, "none"), std::invalid_argument);
}
