// One EMM v1 conformance suite run against every built-in manager (GPU). The C plugin ABI layout is pinned
// in tests/cpp/c_abi/layout_test.cpp.
#include <gtest/gtest.h>

#include "cubridge/memory.hpp"
#include "gpu.hpp"

using namespace cubridge;
using namespace cubridge::memory;

class GpuConformance : public ::testing::TestWithParam<const char*> {};

TEST_P(GpuConformance, FollowsTheInterface) {
  CUBRIDGE_REQUIRE_GPU();
  Context::close_all();
  reset_registry_for_testing();
  ASSERT_TRUE(set_memory_manager(builtin_manager(GetParam()), GetParam()));
  auto ctx = Context::primary(Device(0));
  auto m = manager_for(ctx);
  EXPECT_EQ(m->interface_version(), 1);
  EXPECT_EQ(m->name(), GetParam());
  m->initialize();  // again: must not reset state
  {
    ScopedContext scope(*ctx);
    auto p = m->memalloc(1000);
    ASSERT_NE(p->device_pointer(), 0u);
    EXPECT_EQ(p->size(), 1000u);
    EXPECT_EQ(p->context(), ctx);
    EXPECT_EQ(m->stats().snapshot().bytes_in_use, 1000u);
    auto v = MemoryPointer::view(p, 500);
    p.reset();
    EXPECT_EQ(m->stats().snapshot().bytes_in_use, 1000u);  // the view keeps it
    v.reset();
    EXPECT_EQ(m->stats().snapshot().bytes_in_use, 0u);
    Stream s(ctx);
    auto q = m->memalloc(4096, s.ref());  // every manager accepts a stream, aware or not
    EXPECT_NE(q->device_pointer(), 0u);
    {
      auto g1 = m->defer_cleanup();
      auto g2 = m->defer_cleanup();
      q.reset();
    }
    s.ref().synchronize();
    MemoryInfo info = m->get_memory_info();
    EXPECT_GT(info.total, 0u);
    EXPECT_LE(info.free, info.total);
    auto host = m->memhostalloc(4096, false, false, false);
    EXPECT_NE(host->host_pointer(), 0u);
  }
  m->reset();
  EXPECT_EQ(m->pending().count, 0u);
  Context::close_all();
  reset_registry_for_testing();
}

INSTANTIATE_TEST_SUITE_P(Builtin, GpuConformance, ::testing::Values("default", "caching", "async"));
