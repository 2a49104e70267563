// Driver-layer rules that hold on any machine: error text, CAI stream values, and the clear error that
// the first GPU operation raises when no driver or device is usable.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "cubridge/driver.hpp"
#include "driver/driver_api.hpp"
#include "gpu.hpp"

namespace cubridge {
namespace {

TEST(CudaErrorText, NamesCallErrorAndDescription) {
  CudaError e(2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory", "cuMemAlloc");
  EXPECT_STREQ(e.what(), "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  EXPECT_EQ(e.code(), 2);
  EXPECT_EQ(e.name(), "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(e.call(), "cuMemAlloc");
}

TEST(CudaErrorText, DriverUnavailableSaysSoPlainly) {
  DriverUnavailable e(100, "CUDA_ERROR_NO_DEVICE", "no CUDA device", "cuInit");
  EXPECT_EQ(std::string(e.what()),
            "no usable CUDA driver or device: no CUDA device [cuInit: CUDA_ERROR_NO_DEVICE]");
  const CudaError& base = e;  // catchable as the general error
  EXPECT_EQ(base.code(), 100);
}

TEST(StreamRefCai, ZeroIsRejectedWithTheRule) {
  try {
    StreamRef::from_cai(0);
    FAIL() << "stream 0 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("stream 0 is disallowed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1 for the legacy default"), std::string::npos);
  }
}

TEST(StreamRefCai, DefaultStreamsRoundTrip) {
  EXPECT_TRUE(StreamRef::from_cai(1).is_legacy_default());
  EXPECT_TRUE(StreamRef::from_cai(2).is_per_thread_default());
  EXPECT_EQ(StreamRef::legacy().cai_value(), 1u);
  EXPECT_EQ(StreamRef::per_thread().cai_value(), 2u);
  auto ext = StreamRef::from_cai(0xdead0);
  EXPECT_EQ(ext.cai_value(), 0xdead0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ext.handle()), 0xdead0u);
  EXPECT_FALSE(ext.is_legacy_default());
}

TEST(StreamRefCai, DoesNotConvertFromLiteralZero) {
  static_assert(!std::is_constructible_v<StreamRef, int>);
  static_assert(!std::is_constructible_v<StreamRef, std::nullptr_t>);
  static_assert(!std::is_constructible_v<EventRef, int>);
}

TEST(DriverLoading, NoDriverHereGivesTheClearError) {
  std::string why = testing::gpu_unavailable_reason();
  if (why.empty()) GTEST_SKIP() << "a GPU is usable here; the forced case below covers this rule";
  try {
    Device::count();
    FAIL() << "Device::count() succeeded without a driver";
  } catch (const DriverUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("no usable CUDA driver or device"), std::string::npos);
  }
  EXPECT_FALSE(driver::available());
}

// The loader runs once per process, so the forced case runs in a fresh child process.
TEST(DriverLoadingDeathTest, MissingLibraryIsNamedInTheError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("CUBRIDGE_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
        try {
          Device::count();
        } catch (const DriverUnavailable& e) {
          std::string w = e.what();
          bool ok = w.find("/nonexistent/libcuda.so.1") != std::string::npos &&
                    w.find("no CUDA driver on this machine") != std::string::npos;
          std::exit(ok ? 0 : 3);
        }
        std::exit(4);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace cubridge
