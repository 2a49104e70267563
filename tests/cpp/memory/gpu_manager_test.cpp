// GPU tests of the managers: no driver allocation while a plugin serves, deferred frees, OOM,
// caching pool reuse, the async pool, close() and IPC export. They skip without a GPU.
#include <gtest/gtest.h>

#include <atomic>
#include <map>

#include "cubridge/driver/stream.hpp"
#include "cubridge/memory.hpp"
#include "gpu.hpp"
#include "interposed.hpp"

using namespace cubridge;
using namespace cubridge::memory;

namespace {
std::atomic<int> g_allocs{0}, g_frees{0};
decltype(driver::DriverApi::cuMemAlloc) g_real_alloc = nullptr;
decltype(driver::DriverApi::cuMemFree) g_real_free = nullptr;
CUresult counting_alloc(CUdeviceptr* p, size_t n) { ++g_allocs; return g_real_alloc(p, n); }
CUresult counting_free(CUdeviceptr p) { ++g_frees; return g_real_free(p); }

struct CountDriverAllocations {
  CountDriverAllocations() {
    g_allocs = 0;
    g_frees = 0;
  }
  cubridge::testing::Interposed<decltype(driver::DriverApi::cuMemAlloc)> alloc_{
      driver::mutable_api_for_testing().cuMemAlloc, &counting_alloc, &g_real_alloc};
  cubridge::testing::Interposed<decltype(driver::DriverApi::cuMemFree)> free_{
      driver::mutable_api_for_testing().cuMemFree, &counting_free, &g_real_free};
};

std::map<std::uintptr_t, std::size_t> g_fake_live;
extern "C" std::uint32_t fake_version() { return 1; }
extern "C" int fake_create(int, cubridge_memory_plugin_v1* out) {
  out->initialize = [](void*) { return 0; };
  out->memalloc = [](void*, std::size_t n, std::uintptr_t, std::uintptr_t* p) {
    static std::uintptr_t next = 0x7000000000;
    *p = next;
    next += n;
    g_fake_live[*p] = n;
    return 0;
  };
  out->memfree = [](void*, std::uintptr_t p, std::size_t, std::uintptr_t) { g_fake_live.erase(p); return 0; };
  out->destroy = [](void*) {};
  return 0;
}

void use_manager(const std::string& name) {
  Context::close_all();
  reset_registry_for_testing();
  ASSERT_TRUE(set_memory_manager(builtin_manager(name), name));
}
}  // namespace

TEST(GpuMemory, PluginInUseNeverCallsCuMemAlloc) {
  CUBRIDGE_REQUIRE_GPU();
  Context::close_all();
  reset_registry_for_testing();
  ASSERT_TRUE(set_memory_manager(c_plugin_factory(&fake_version, &fake_create, "fake"), "fake"));
  {
    CountDriverAllocations count;
    auto ctx = Context::primary(Device(0));
    for (int i = 0; i < 100; ++i) {
      auto p = allocate(ctx, 1 << 20);
      EXPECT_EQ(g_fake_live.count(p->device_pointer()), 1u);
    }
    manager_for(ctx)->reset();
    EXPECT_EQ(g_allocs.load(), 0);
    EXPECT_EQ(g_frees.load(), 0);
    EXPECT_TRUE(g_fake_live.empty());
  }
  Context::close_all();
  reset_registry_for_testing();
}

TEST(GpuMemory, DefaultManagerDefersFreesPastTheCount) {
  CUBRIDGE_REQUIRE_GPU();
  use_manager("default");
  auto ctx = Context::primary(Device(0));
  CountDriverAllocations count;
  for (int i = 0; i < 10; ++i) allocate(ctx, 4096);
  EXPECT_EQ(g_allocs.load(), 10);
  EXPECT_EQ(g_frees.load(), 0);
  EXPECT_EQ(manager_for(ctx)->pending().count, 10u);
  {
    DeferCleanupScope hold(*manager_for(ctx));
    allocate(ctx, 4096);  // 11 pending, but deferred
    EXPECT_EQ(g_frees.load(), 0);
  }
  allocate(ctx, 4096);  // flushes all 12
  EXPECT_EQ(g_frees.load(), 12);
  EXPECT_EQ(manager_for(ctx)->stats().snapshot().live_allocations, 0u);
  EXPECT_EQ(manager_for(ctx)->stats().snapshot().total_allocations, 12u);
}

TEST(GpuMemory, OutOfMemoryStatesSizeAndFreeTotal) {
  CUBRIDGE_REQUIRE_GPU();
  for (std::string name : {"default", "caching", "async"}) {
    use_manager(name);
    auto ctx = Context::primary(Device(0));
    std::size_t huge = ctx->device().total_memory() * 2;
    try {
      allocate(ctx, huge);
      ADD_FAILURE() << name << " allocated twice the device's memory";
    } catch (const OutOfMemory& e) {
      std::string what = e.what();
      EXPECT_NE(what.find("cannot allocate " + std::to_string(huge) + " bytes"), std::string::npos) << what;
      EXPECT_NE(what.find("free of"), std::string::npos) << what;
      EXPECT_GT(e.total_bytes(), 0u);
    }
    auto p = allocate(ctx, 1 << 20);  // recovered
    EXPECT_NE(p->device_pointer(), 0u);
  }
}

TEST(GpuMemory, CachingPoolReusesAndStaysFlat) {
  CUBRIDGE_REQUIRE_GPU();
  use_manager("caching");
  auto ctx = Context::primary(Device(0));
  CountDriverAllocations count;
  std::uintptr_t first = allocate(ctx, 1 << 20)->device_pointer();
  for (int i = 0; i < 1000000; ++i) ASSERT_EQ(allocate(ctx, 1 << 20)->device_pointer(), first);
  EXPECT_EQ(g_allocs.load(), 1);
  auto s = manager_for(ctx)->stats().snapshot();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.peak_bytes, std::size_t{1} << 20);
  manager_for(ctx)->reset();
  EXPECT_EQ(g_frees.load(), 1);
}

TEST(GpuMemory, AsyncPoolOnAStream) {
  CUBRIDGE_REQUIRE_GPU();
  use_manager("async");
  auto ctx = Context::primary(Device(0));
  Stream s(ctx);
  {
    CountDriverAllocations count;
    auto p = allocate(ctx, 1 << 20, s.ref());
    ScopedContext scope(*ctx);
    CUBRIDGE_CU(cuMemsetD8Async, static_cast<CUdeviceptr>(p->device_pointer()), 1, 1 << 20, s.handle());
    EXPECT_EQ(g_allocs.load(), 0);
  }
  s.ref().synchronize();
  EXPECT_THROW(manager_for(ctx)->get_ipc_handle(allocate(ctx, 64)), std::runtime_error);
}

TEST(GpuMemory, CloseGivesTheNextContextTheNewManager) {
  CUBRIDGE_REQUIRE_GPU();
  use_manager("default");
  auto ctx = Context::primary(Device(0));
  auto kept = allocate(ctx, 4096);
  EXPECT_EQ(manager_for(ctx)->name(), "default");
  ASSERT_TRUE(set_memory_manager(builtin_manager("caching"), "caching"));
  EXPECT_EQ(manager_for(ctx)->name(), "default");  // this context keeps its manager
  Context::close_all();
  EXPECT_THROW(manager_for(ctx), CudaError);
  auto fresh = Context::primary(Device(0));
  EXPECT_EQ(manager_for(fresh)->name(), "caching");
  kept.reset();  // freeing into the closed context is skipped, not an error
}

TEST(GpuMemory, IpcHandleRecordsTheOffsetFromTheBase) {
  CUBRIDGE_REQUIRE_GPU();
  use_manager("default");
  auto ctx = Context::primary(Device(0));
  auto p = allocate(ctx, 1 << 20);
  auto v = MemoryPointer::view(p, 4096, 8192);
  IpcHandle h = manager_for(ctx)->get_ipc_handle(v);
  EXPECT_EQ(h.offset(), 4096u);
  EXPECT_EQ(h.size(), 4096u);
  ASSERT_TRUE(h.source_info());
  EXPECT_EQ(*h.source_info(), ctx->device().uuid());
  EXPECT_EQ(IpcHandle::deserialize(h.serialize()).handle(), h.handle());
}

TEST(GpuMemory, HostAllocAndPin) {
  CUBRIDGE_REQUIRE_GPU();
  use_manager("default");
  auto ctx = Context::primary(Device(0));
  auto m = manager_for(ctx);
  ScopedContext scope(*ctx);
  auto mapped = m->memhostalloc(4096, true, false, false);
  EXPECT_EQ(mapped->kind(), MemoryKind::mapped);
  EXPECT_NE(mapped->device_pointer(), 0u);
  auto pinned = m->memhostalloc(4096, false, false, false);
  EXPECT_EQ(pinned->kind(), MemoryKind::pinned);
  auto buffer = std::make_shared<std::vector<char>>(1 << 16);
  auto pin = m->mempin(buffer, reinterpret_cast<std::uintptr_t>(buffer->data()), buffer->size(), false);
  EXPECT_EQ(pin->host_pointer(), reinterpret_cast<std::uintptr_t>(buffer->data()));
  pin.reset();
  m->reset();
}
