// GPU tests of the array layer: the pointer check, copies, and stream ordering without any host-wide
// synchronisation (cuCtxSynchronize is interposed and counted).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <numeric>
#include <thread>
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

std::atomic<bool> g_released{false};
void CUDA_CB block_until_released(void*) {
  while (!g_released.load()) std::this_thread::yield();
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

// stream_order.cpp uses its ordering events again (Context::take_spare_event): a wait enqueued before the event is
// recorded again, on a stream with nothing pending, still waits for the record it was given.
TEST(ArrayGpu, GpuAWaitHoldsWhenItsEventIsRecordedAgainElsewhere) {
  CUBRIDGE_REQUIRE_GPU();
  auto ctx = Context::primary(Device(0));
  ScopedContext scope(*ctx);
  while (CUevent e = ctx->take_spare_event()) CUBRIDGE_CU(cuEventDestroy, e);  // none kept: the one below is ours
  Stream producer(ctx), idle(ctx), consumer(ctx), other(ctx);
  std::vector<std::int64_t> shape{1024};
  auto src = array_detail::allocate_device(4096, ctx);
  auto dst = array_detail::allocate_device(4096, ctx);
  const auto src_ptr = reinterpret_cast<CUdeviceptr>(src.get()), dst_ptr = reinterpret_cast<CUdeviceptr>(dst.get());
  CUBRIDGE_CU(cuMemsetD32Async, dst_ptr, 0u, std::size_t{1024}, consumer.handle());
  g_released = false;
  struct Release {
    ~Release() { g_released = true; }  // the producer is never left blocked, whatever fails below
  } release;
  CUBRIDGE_CU(cuLaunchHostFunc, producer.handle(), &block_until_released, nullptr);
  CUBRIDGE_CU(cuMemsetD32Async, src_ptr, 0x3f800000u, std::size_t{1024}, producer.handle());
  order_before_use(device_view(src, shape).with_stream(producer.ref()), consumer.ref());
  CUevent first = ctx->take_spare_event();
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(ctx->keep_spare_event(first));
  order_before_use(device_view(src, shape).with_stream(idle.ref()), other.ref());  // the same event, recorded again
  CUevent again = ctx->take_spare_event();
  EXPECT_EQ(again, first);
  ASSERT_TRUE(ctx->keep_spare_event(again));
  CUBRIDGE_CU(cuMemcpyDtoDAsync, dst_ptr, src_ptr, std::size_t{4096}, consumer.handle());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(CUBRIDGE_CU_RESULT(cuStreamQuery, consumer.handle()), CUDA_ERROR_NOT_READY);  // still behind the producer
  EXPECT_EQ(CUBRIDGE_CU_RESULT(cuStreamQuery, other.handle()), CUDA_SUCCESS);  // the idle stream's record let it go
  g_released = true;
  consumer.ref().synchronize();
  std::vector<float> out(1024, 0.0f);
  CUBRIDGE_CU(cuMemcpyDtoH, out.data(), dst_ptr, std::size_t{4096});
  EXPECT_EQ(out.front(), 1.0f);
  EXPECT_EQ(out.back(), 1.0f);
}
