// GPU tests of the memory registry on two devices: one manager per device's context, each with its own
// counts, and an allocation on a device that is not current leaving the current context alone and landing
// on the device asked for, as the pointer's own attributes say. They skip with the reason on a machine with
// fewer than two GPUs. The same file also runs without a GPU against the host driver stand-in modelling
// two devices (test_host_two_devices, tests/cpp/CMakeLists.txt).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cubridge/array/pointer_attributes.hpp"
#include "cubridge/memory.hpp"
#include "gpu.hpp"

using namespace cubridge;
using namespace cubridge::memory;

namespace {
void use_manager(const std::string& name) {
  Context::close_all();
  reset_registry_for_testing();
  ASSERT_TRUE(set_memory_manager(builtin_manager(name), name));
}

std::map<int, ManagerStats> stats_by_device() {
  std::map<int, ManagerStats> out;
  for (auto& s : memory_stats()) out[s.device] = s;
  return out;
}

CUcontext current_handle() {
  CUcontext c = nullptr;
  CUBRIDGE_CU(cuCtxGetCurrent, &c);
  return c;
}
}  // namespace

TEST(GpuMultiDevice, OneManagerPerDeviceContextWithItsOwnCounts) {
  CUBRIDGE_REQUIRE_TWO_GPUS();
  for (const char* name : {"default", "caching", "async"}) {
    SCOPED_TRACE(name);
    use_manager(name);
    auto ctx0 = Context::primary(Device(0));
    auto ctx1 = Context::primary(Device(1));
    auto a = allocate(ctx0, 1 << 20);
    auto b = allocate(ctx1, 3 << 20);
    EXPECT_NE(manager_for(ctx0), manager_for(ctx1));
    EXPECT_EQ(manager_for(ctx1), manager_for(Context::primary(Device(1))));
    auto s = stats_by_device();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].manager, name);
    EXPECT_EQ(s[1].manager, name);
    EXPECT_GE(s[0].counts.bytes_in_use, std::size_t{1} << 20);
    EXPECT_GE(s[1].counts.bytes_in_use, std::size_t{3} << 20);
    EXPECT_EQ(s[0].counts.live_allocations, 1u);
    EXPECT_EQ(s[1].counts.live_allocations, 1u);
    CUdevice dev = -1;
    CUBRIDGE_CU(cuPointerGetAttribute, &dev, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                static_cast<CUdeviceptr>(b->device_pointer()));
    EXPECT_EQ(dev, 1);
    b.reset();
    s = stats_by_device();
    EXPECT_EQ(s[1].counts.bytes_in_use, 0u);
    EXPECT_GE(s[0].counts.bytes_in_use, std::size_t{1} << 20);
    a.reset();
  }
  use_manager("default");
}

// The pointer's own attributes say where it lives, whichever context is current. (The first run on two
// GPUs asked cuMemGetAddressRange with device 0 current, which finds only the current context's
// allocations: CUDA_ERROR_NOT_FOUND for device 1's.)
TEST(GpuMultiDevice, AllocatingOnAnotherDeviceLeavesTheCurrentContextAlone) {
  CUBRIDGE_REQUIRE_TWO_GPUS();
  for (const char* name : {"default", "caching", "async"}) {
    SCOPED_TRACE(name);
    use_manager(name);
    auto ctx0 = Context::primary(Device(0));
    auto ctx1 = Context::primary(Device(1));
    ScopedContext current(*ctx0);
    ASSERT_EQ(current_handle(), ctx0->handle());
    auto p = allocate(ctx1, 4096);
    EXPECT_EQ(current_handle(), ctx0->handle());
    EXPECT_EQ(Context::current()->device().ordinal(), 0);
    EXPECT_EQ(p->context()->device().ordinal(), 1);
    PointerAttributes a = query_pointer_attributes(p->device_pointer());
    EXPECT_EQ(a.device, 1);
    EXPECT_EQ(a.memory_type, unsigned{CU_MEMORYTYPE_DEVICE});
    EXPECT_GE(a.range_size, 4096u);
    EXPECT_LE(a.range_start, p->device_pointer());
    // A stream-ordered pool's memory belongs to no context; the others to device 1's.
    EXPECT_EQ(a.context, std::string(name) == "async" ? nullptr : ctx1->handle());
    if (std::string(name) != "async") {
      ScopedContext own(*ctx1);  // the range of an allocation is found in its own context
      std::size_t size = 0;
      CUdeviceptr base = 0;
      CUBRIDGE_CU(cuMemGetAddressRange, &base, &size, static_cast<CUdeviceptr>(p->device_pointer()));
      EXPECT_GE(size, 4096u);
    }
    EXPECT_EQ(current_handle(), ctx0->handle());
  }
  use_manager("default");
}

// A manager's own entry points allocate on its device even when called directly with another device's
// context current (a plugin or a user calling memalloc), and leave the current context as it was.
TEST(GpuMultiDevice, AManagerCalledDirectlyAllocatesOnItsOwnDevice) {
  CUBRIDGE_REQUIRE_TWO_GPUS();
  for (const char* name : {"default", "caching", "async"}) {
    SCOPED_TRACE(name);
    use_manager(name);
    auto ctx0 = Context::primary(Device(0));
    auto ctx1 = Context::primary(Device(1));
    auto manager = manager_for(ctx1);
    ScopedContext current(*ctx0);
    auto p = manager->memalloc(8192);
    EXPECT_EQ(current_handle(), ctx0->handle());
    EXPECT_EQ(query_pointer_attributes(p->device_pointer()).device, 1);
    auto s = stats_by_device();
    EXPECT_EQ(s[1].counts.live_allocations, 1u);
    EXPECT_EQ(s.count(0) ? s[0].counts.live_allocations : 0u, 0u);
    p.reset();
    auto h = manager->memhostalloc(4096, /*mapped=*/true, /*portable=*/false, /*wc=*/false);
    EXPECT_EQ(current_handle(), ctx0->handle());
    EXPECT_EQ(h->context()->device().ordinal(), 1);
  }
  use_manager("default");
}

// The import-time check (served from its per-thread range cache the second time) names the device of
// memory that no context owns: an async-pool allocation on device 1 is device 1's, not -1 (the first run
// on two GPUs reported -1, and an import then fell back to the current device).
TEST(GpuMultiDevice, PoolMemoryIsTheDeviceOfItsPoolWhicheverContextIsCurrent) {
  CUBRIDGE_REQUIRE_TWO_GPUS();
  use_manager("async");
  {
    auto ctx0 = Context::primary(Device(0));
    ScopedContext current(*ctx0);
    auto p = allocate(Context::primary(Device(1)), 1 << 16);
    for (int round = 0; round < 2; ++round) {
      SCOPED_TRACE(round);
      PointerAttributes a = check_device_pointer(p->device_pointer() + 128, "test");
      EXPECT_EQ(a.device, 1);
      EXPECT_TRUE(a.device_accessible());
    }
    auto q = allocate(ctx0, 1 << 16);
    EXPECT_EQ(check_device_pointer(q->device_pointer(), "test").device, 0);
  }
  use_manager("default");
}
