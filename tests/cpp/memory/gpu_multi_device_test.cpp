// GPU tests of the memory registry on two devices: one manager per device's context, each with its own
// counts, and an allocation on a device that is not current leaving the current context alone. They skip
// with the reason on a machine with fewer than two GPUs.
#include <gtest/gtest.h>

#include <map>
#include <string>

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

TEST(GpuMultiDevice, AllocatingOnAnotherDeviceLeavesTheCurrentContextAlone) {
  CUBRIDGE_REQUIRE_TWO_GPUS();
  use_manager("caching");
  {
    auto ctx0 = Context::primary(Device(0));
    ScopedContext current(*ctx0);
    ASSERT_EQ(current_handle(), ctx0->handle());
    auto p = allocate(Context::primary(Device(1)), 4096);
    EXPECT_EQ(current_handle(), ctx0->handle());
    EXPECT_EQ(Context::current()->device().ordinal(), 0);
    EXPECT_EQ(p->context()->device().ordinal(), 1);
    std::size_t size = 0;
    CUdeviceptr base = 0;
    CUBRIDGE_CU(cuMemGetAddressRange, &base, &size, static_cast<CUdeviceptr>(p->device_pointer()));
    EXPECT_GE(size, 4096u);
  }
  use_manager("default");
}
