// Driver-layer rules that need a GPU: enumeration, stream ordering, events, contexts on any thread,
// external streams left alone, close() invalidating what it destroyed.
#include <gtest/gtest.h>

#include <cstdint>
#include <regex>
#include <thread>
#include <vector>

#include "cubridge/driver.hpp"
#include "driver/driver_api.hpp"
#include "gpu.hpp"

namespace cubridge {
namespace {

struct DeviceBuffer {
  explicit DeviceBuffer(std::size_t bytes) { CUBRIDGE_CU(cuMemAlloc, &ptr, bytes); }
  ~DeviceBuffer() { CUBRIDGE_CU_RESULT(cuMemFree, ptr); }
  CUdeviceptr ptr = 0;
};

TEST(GpuDevice, EnumerationIsConsistent) {
  CUBRIDGE_REQUIRE_GPU();
  int n = Device::count();
  ASSERT_GT(n, 0);
  for (int i = 0; i < n; ++i) {
    Device d(i);
    EXPECT_FALSE(d.name().empty());
    auto [major, minor] = d.compute_capability();
    EXPECT_GE(major, 7);
    EXPECT_GE(minor, 0);
    EXPECT_TRUE(std::regex_match(d.uuid_string(),
                                 std::regex("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")))
        << d.uuid_string();
    EXPECT_TRUE(std::regex_match(d.pci_bus_id(), std::regex("[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9]")))
        << d.pci_bus_id();
    EXPECT_GT(d.total_memory(), std::size_t{1} << 30);
    EXPECT_GT(d.multiprocessor_count(), 0);
  }
  EXPECT_THROW(Device{n}, std::out_of_range);
  try {
    (void)Device{-1};
    FAIL() << "ordinal -1 accepted";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("device ordinal -1 is out of range"), std::string::npos);
  }
}

TEST(GpuStream, WorkOnOneStreamIsOrdered) {
  CUBRIDGE_REQUIRE_GPU();
  auto ctx = Context::primary(Device(0));
  ScopedContext scope(*ctx);
  Stream s(ctx);
  constexpr std::size_t n = 1 << 24;  // 64 MiB: long enough that misordering would show
  DeviceBuffer buf(n * 4);
  for (unsigned v = 1; v <= 8; ++v) CUBRIDGE_CU(cuMemsetD32Async, buf.ptr, v, n, s.handle());
  std::vector<std::uint32_t> host(n);
  CUBRIDGE_CU(cuMemcpyDtoHAsync, host.data(), buf.ptr, n * 4, s.handle());
  s.ref().synchronize();
  EXPECT_TRUE(s.ref().query());
  EXPECT_EQ(host.front(), 8u);
  EXPECT_EQ(host.back(), 8u);
}

TEST(GpuEvent, RecordedAfterMemsetCompletesAndTimes) {
  CUBRIDGE_REQUIRE_GPU();
  auto ctx = Context::primary(Device(0));
  ScopedContext scope(*ctx);
  Stream s(ctx);
  DeviceBuffer buf(1 << 26);
  Event start(ctx, Event::Options{.timing = true});
  Event done(ctx, Event::Options{.timing = true});
  start.record(s);
  CUBRIDGE_CU(cuMemsetD8Async, buf.ptr, 0x5a, std::size_t{1} << 26, s.handle());
  done.record(s);
  done.synchronize();
  EXPECT_TRUE(done.query());
  EXPECT_GE(Event::elapsed_ms(start, done), 0.0f);
  unsigned char probe = 0;
  CUBRIDGE_CU(cuMemcpyDtoH, &probe, buf.ptr + 12345, 1);
  EXPECT_EQ(probe, 0x5a);
}

TEST(GpuEvent, OtherStreamWaitsOnTheGpu) {
  CUBRIDGE_REQUIRE_GPU();
  auto ctx = Context::primary(Device(0));
  ScopedContext scope(*ctx);
  Stream producer(ctx), consumer(ctx);
  constexpr std::size_t n = 1 << 24;
  DeviceBuffer buf(n * 4);
  for (unsigned v = 1; v <= 16; ++v) CUBRIDGE_CU(cuMemsetD32Async, buf.ptr, v, n, producer.handle());
  Event ready(ctx);
  ready.record(producer);
  consumer.ref().wait(ready);  // GPU-side ordering: the host does not block here
  std::vector<std::uint32_t> host(n);
  CUBRIDGE_CU(cuMemcpyDtoHAsync, host.data(), buf.ptr, n * 4, consumer.handle());
  consumer.ref().synchronize();
  EXPECT_EQ(host[n / 2], 16u);
}

TEST(GpuContext, UsableFromAThreadWithNoCurrentContext) {
  CUBRIDGE_REQUIRE_GPU();
  bool ok = false;
  std::thread t([&] {
    auto ctx = Context::primary(Device(0));
    Stream s(ctx);  // creates under a pushed context, restores none afterwards
    s.ref().synchronize();
    CUcontext cur = nullptr;
    CUBRIDGE_CU(cuCtxGetCurrent, &cur);
    ok = (cur == nullptr);
  });
  t.join();
  EXPECT_TRUE(ok);
}

TEST(GpuContext, CurrentFindsTheContextAnotherLibraryMadeCurrent) {
  CUBRIDGE_REQUIRE_GPU();
  auto ctx = Context::primary(Device(0));
  ScopedContext scope(*ctx);  // as CuPy or PyTorch would leave it: the primary context current
  auto cur = Context::current();
  EXPECT_EQ(cur.get(), ctx.get());
  EXPECT_EQ(cur->device().ordinal(), 0);
}

TEST(GpuStream, ExternalStreamIsNeverDestroyed) {
  CUBRIDGE_REQUIRE_GPU();
  auto ctx = Context::primary(Device(0));
  ScopedContext scope(*ctx);
  CUstream raw = nullptr;
  CUBRIDGE_CU(cuStreamCreate, &raw, 0u);
  {
    StreamRef ext = StreamRef::external(raw);
    ext.synchronize();
    EXPECT_EQ(ext.cai_value(), reinterpret_cast<std::uintptr_t>(raw));
  }
  EXPECT_EQ(CUBRIDGE_CU_RESULT(cuStreamQuery, raw), CUDA_SUCCESS);  // still alive
  CUBRIDGE_CU(cuStreamDestroy, raw);
}

TEST(GpuContext, CloseInvalidatesAndTheNextUseRecreates) {
  CUBRIDGE_REQUIRE_GPU();
  auto old_ctx = Context::primary(Device(0));
  auto stream = std::make_unique<Stream>(old_ctx);
  Context::close_all();
  EXPECT_FALSE(old_ctx->valid());
  try {
    (void)stream->handle();
    FAIL() << "a stream of a closed context was usable";
  } catch (const CudaError& e) {
    EXPECT_EQ(e.name(), "CUDA_ERROR_CONTEXT_IS_DESTROYED");
    EXPECT_NE(std::string(e.what()).find("cubridge.close()"), std::string::npos);
  }
  stream.reset();  // destroying it must not touch the dead context
  auto fresh = Context::primary(Device(0));
  EXPECT_TRUE(fresh->valid());
  Stream s(fresh);
  s.ref().synchronize();
}

}  // namespace
}  // namespace cubridge
