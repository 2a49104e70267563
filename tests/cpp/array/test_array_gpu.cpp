// GPU tests of the array layer: the pointer check, copies, and stream ordering without any host-wide
// synchronisation (cuCtxSynchronize is interposed and counted).
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <vector>

#include "cubridge/array.hpp"
#include "cubridge/driver.hpp"
#include "array/device_allocation.hpp"
#include "driver/driver_api.hpp"
#include "gpu.hpp"

using namespace cubridge;

namespace {
int g_ctx_syncs = 0;
CUresult counting_ctx_sync() {
  ++g_ctx_syncs;
  return CUDA_SUCCESS;
}

ArrayView device_view(std::shared_ptr<void> mem, std::vector<std::int64_t>& shape, const char* typestr = "<f4") {
  ArrayView::Layout l{mem.get(), parse_typestr(typestr, "t"), shape, std::nullopt, false};
  return ArrayView(l, mem).with_device(0);
}
}  // namespace

TEST(ArrayGpu, GpuPointerCheckAcceptsDeviceAndRejectsHostMemory) {
  CUBRIDGE_REQUIRE_GPU();
  auto ctx = Context::primary(Device(0));
  auto mem = array_detail::allocate_device(256, ctx);
  std::vector<std::int64_t> shape{64};
  ArrayInterface d;
  d.shape = shape;
  d.typestr = "<f4";
  d.data = reinterpret_cast<std::uintptr_t>(mem.get());
  ArrayView v = view_from_interface(d, mem, ImportOptions{});
  EXPECT_EQ(v.device(), 0);
  PointerAttributes a = query_pointer_attributes(d.data);
  EXPECT_EQ(a.memory_type, static_cast<unsigned>(CU_MEMORYTYPE_DEVICE));
  EXPECT_EQ(a.range_start, d.data);
  EXPECT_GE(a.range_size, 256u);

  std::vector<float> host(64);
  d.data = reinterpret_cast<std::uintptr_t>(host.data());
  if (!query_pointer_attributes(d.data).pageable_access) {
    try {
      view_from_interface(d, nullptr, ImportOptions{});
      FAIL() << "host memory accepted as device memory";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("__cuda_array_interface__['data']: pointer 0x"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("is not GPU-accessible memory"), std::string::npos);
    }
  }
}

TEST(ArrayGpu, GpuCopiesRoundTrip) {
  CUBRIDGE_REQUIRE_GPU();
  auto ctx = Context::primary(Device(0));
  std::vector<std::int64_t> shape{1000};
  ArrayView a = device_view(array_detail::allocate_device(4000, ctx), shape);
  ArrayView b = device_view(array_detail::allocate_device(4000, ctx), shape);
  std::vector<float> in(1000), out(1000, -1.0f);
  std::iota(in.begin(), in.end(), 0.0f);
  Stream s(ctx);
  copy_extent_from_host(a, in.data(), 4000, s);
  copy_between_views(b, a, s);
  copy_extent_to_host(b.slice(0, std::nullopt, std::nullopt, -1), out.data(), 4000, s);
  EXPECT_EQ(out, in);  // the reversed view's extent is the same bytes in memory order
}

TEST(ArrayGpu, GpuConsumerOrderingUsesEventsNotHostSynchronisation) {
  CUBRIDGE_REQUIRE_GPU();
  auto ctx = Context::primary(Device(0));
  ScopedContext scope(*ctx);
  Stream producer(ctx), consumer(ctx);
  std::vector<std::int64_t> shape{1 << 20};
  auto mem = array_detail::allocate_device(4u << 20, ctx);
  ArrayView v = device_view(mem, shape).with_stream(producer.ref());
  // Queue real work on the producer's stream, then consume on another stream.
  CUBRIDGE_CU(cuMemsetD32Async, reinterpret_cast<CUdeviceptr>(mem.get()), 0x3f800000u, std::size_t{1} << 20,
              producer.handle());
  auto& api = driver::mutable_api_for_testing();
  auto saved = api.cuCtxSynchronize;
  api.cuCtxSynchronize = &counting_ctx_sync;
  g_ctx_syncs = 0;
  std::vector<float> out(1 << 20);
  copy_extent_to_host(v, out.data(), out.size() * 4, consumer);
  api.cuCtxSynchronize = saved;
  EXPECT_EQ(g_ctx_syncs, 0);
  EXPECT_EQ(out.front(), 1.0f);
  EXPECT_EQ(out.back(), 1.0f);
}

TEST(ArrayGpu, GpuJoinStreamsOrdersSeveralProducers) {
  CUBRIDGE_REQUIRE_GPU();
  auto ctx = Context::primary(Device(0));
  Stream a(ctx), b(ctx), target(ctx);
  StreamRef pending[] = {a.ref(), b.ref(), target.ref()};
  EXPECT_NO_THROW(join_streams(target, pending, 0));
  target.ref().synchronize();
}
