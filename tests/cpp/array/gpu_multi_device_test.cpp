// GPU tests of the array layer on two devices: peer copies ordered after a producer stream of the other
// device (the event recorded in the producer's context, the wait enqueued in the copy's), and after the
// source device's default stream for an array without one. They skip with the reason on fewer than two GPUs.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "array/device_allocation.hpp"
#include "cubridge/array.hpp"
#include "cubridge/driver.hpp"
#include "driver/driver_api.hpp"
#include "gpu.hpp"

using namespace cubridge;

namespace {
constexpr std::size_t kFloats = std::size_t{1} << 22;  // 16 MiB: the fill is still running when the copy is queued

ArrayView view_on(std::shared_ptr<void> mem, std::vector<std::int64_t>& shape, int device) {
  ArrayView::Layout l{mem.get(), parse_typestr("<f4", "t"), shape, std::nullopt, false};
  return ArrayView(l, mem).with_device(device);
}

void fill(const std::shared_ptr<void>& mem, float value, const Context& context, StreamRef stream) {
  ScopedContext scope(context);
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  CUBRIDGE_CU(cuMemsetD32Async, reinterpret_cast<CUdeviceptr>(mem.get()), bits, kFloats, stream.handle());
}
}  // namespace

TEST(GpuMultiDevice, PeerCopyWaitsForTheSourcesStreamOnTheOtherDevice) {
  CUBRIDGE_REQUIRE_TWO_GPUS();
  auto ctx0 = Context::primary(Device(0));
  auto ctx1 = Context::primary(Device(1));
  std::vector<std::int64_t> shape{static_cast<std::int64_t>(kFloats)};
  auto mem0 = array_detail::allocate_device(kFloats * 4, ctx0);
  auto mem1 = array_detail::allocate_device(kFloats * 4, ctx1);
  Stream producer(ctx0), copier(ctx1);
  fill(mem0, 3.0f, *ctx0, producer.ref());
  ArrayView src = view_on(mem0, shape, 0).with_stream(producer.ref());
  ArrayView dst = view_on(mem1, shape, 1);
  EXPECT_NO_THROW(copy_between_views(dst, src, copier.ref()));  // no context current: each side finds its own
  std::vector<float> out(kFloats, -1.0f);
  copy_extent_to_host(dst, out.data(), out.size() * 4, copier.ref());
  EXPECT_EQ(out.front(), 3.0f);
  EXPECT_EQ(out.back(), 3.0f);
}

TEST(GpuMultiDevice, PeerCopyOnDefaultStreamsWaitsForTheSourceDevicesDefaultStream) {
  CUBRIDGE_REQUIRE_TWO_GPUS();
  auto ctx0 = Context::primary(Device(0));
  auto ctx1 = Context::primary(Device(1));
  std::vector<std::int64_t> shape{static_cast<std::int64_t>(kFloats)};
  auto mem0 = array_detail::allocate_device(kFloats * 4, ctx0);
  auto mem1 = array_detail::allocate_device(kFloats * 4, ctx1);
  fill(mem0, 5.0f, *ctx0, StreamRef::legacy());  // device 0's default stream; the array names no stream
  {
    ScopedContext current(*ctx0);  // the caller's device is the source's: the copy still runs on device 1
    copy_between_views(view_on(mem1, shape, 1), view_on(mem0, shape, 0), StreamRef::legacy());
  }
  std::vector<float> out(kFloats, -1.0f);
  copy_extent_to_host(view_on(mem1, shape, 1), out.data(), out.size() * 4, StreamRef::legacy());
  EXPECT_EQ(out.front(), 5.0f);
  EXPECT_EQ(out.back(), 5.0f);
}
