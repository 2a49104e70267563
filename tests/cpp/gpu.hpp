// Internal (tests): skip a test with the reason when no GPU is usable on this machine, or, for the
// tests of several GPUs, when it has fewer than two.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "cubridge/driver/device.hpp"
#include "cubridge/driver/error.hpp"
#include "driver/driver_api.hpp"

namespace cubridge::testing {
/// Empty when a GPU is usable, else why not (the driver's own words).
inline std::string gpu_unavailable_reason() {
  try {
    ::cubridge::driver::api();
    return {};
  } catch (const ::cubridge::CudaError& e) {
    return e.what();
  }
}
}  // namespace cubridge::testing

#define CUBRIDGE_REQUIRE_GPU()                                                   \
  do {                                                                           \
    std::string _why = ::cubridge::testing::gpu_unavailable_reason();            \
    if (!_why.empty()) GTEST_SKIP() << "needs a GPU: " << _why;                  \
  } while (0)

#define CUBRIDGE_REQUIRE_TWO_GPUS()                                                                  \
  do {                                                                                               \
    CUBRIDGE_REQUIRE_GPU();                                                                          \
    int _n = ::cubridge::Device::count();                                                            \
    if (_n < 2) GTEST_SKIP() << "needs two GPUs: this machine has " << _n;                           \
  } while (0)
