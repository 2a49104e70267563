// The XLA documentation's CPU custom calls, written once in the classic signature and registered with
// CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET: cubridge serves them through XLA's typed FFI unchanged.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>

#include "cubridge/xla/custom_call.h"
#include "cubridge/xla/opaque.hpp"

namespace {
void fail(XlaCustomCallStatus* status, const char* message) {
  XlaCustomCallStatusSetFailure(status, message, std::strlen(message));
}
}  // namespace

// The seed, verbatim in spirit: A[i] = B[i % 128] + C[i] for 2048 floats, sizes fixed (api version 1).
extern "C" void cubridge_example_add_mod_fixed(void* out, const void** in) {
  auto* a = static_cast<float*>(out);
  auto* b = static_cast<const float*>(in[0]);
  auto* c = static_cast<const float*>(in[1]);
  for (int i = 0; i < 2048; ++i) a[i] = b[i % 128] + c[i];
}
CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(cubridge_example_add_mod_fixed, "Host");

// The same with the sizes passed through opaque (cubridge's encoding: int64 "n" and "m"), api version 3.
extern "C" void cubridge_example_add_mod(void* out, const void** in, const char* opaque,
                                         std::size_t opaque_len, XlaCustomCallStatus* status) {
  std::int64_t n = 0, m = 0;
  try {
    cubridge::xla::OpaqueReader attrs({opaque, opaque_len});
    n = attrs.get_int("n");
    m = attrs.get_int("m");
  } catch (const std::exception& e) {
    fail(status, e.what());
    return;
  }
  if (n < 0 || m <= 0) {
    char message[128];
    std::snprintf(message, sizeof message, "add_mod: n=%lld must be >= 0 and m=%lld > 0", (long long)n,
                  (long long)m);
    fail(status, message);
    return;
  }
  auto* a = static_cast<float*>(out);
  auto* b = static_cast<const float*>(in[0]);
  auto* c = static_cast<const float*>(in[1]);
  for (std::int64_t i = 0; i < n; ++i) a[i] = b[i % m] + c[i];
}
CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(cubridge_example_add_mod, "Host");

// Fails (api version 3) when an element of its float operand is negative; the message names it.
// opaque: int64 "n" (the element count). Output: a copy of the operand.
extern "C" void cubridge_example_check_nonnegative(void* out, const void** in, const char* opaque,
                                                   std::size_t opaque_len, XlaCustomCallStatus* status) {
  std::int64_t n = 0;
  try {
    n = cubridge::xla::OpaqueReader({opaque, opaque_len}).get_int("n");
  } catch (const std::exception& e) {
    fail(status, e.what());
    return;
  }
  auto* x = static_cast<const float*>(in[0]);
  for (std::int64_t i = 0; i < n; ++i) {
    if (x[i] < 0.0f) {
      char message[128];
      std::snprintf(message, sizeof message, "check_nonnegative: x[%lld] = %g is negative",
                    (long long)i, double(x[i]));
      fail(status, message);
      return;
    }
  }
  std::memcpy(out, x, static_cast<std::size_t>(n) * sizeof(float));
}
CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(cubridge_example_check_nonnegative, "Host");

// The documentation's tuple example on the CPU: operand p0 = (f32[32], (f32[64], f32[128]), f32[256]),
// result (f32[512], f32[1024]) whose second element is scratch space. in[0] is an array of 3 pointers
// whose second entry is an array of 2; out is an array of 2 pointers.
//   scratch[i] = b[i % 64] * c[i % 128]                (i < 1024)
//   out0[i]    = a[i % 32] + d[i % 256] + scratch[i] + scratch[i + 512]   (i < 512)
extern "C" void cubridge_example_tuple(void* out, const void** in, XlaCustomCallStatus* status) {
  (void)status;
  auto* p0 = static_cast<const void* const*>(in[0]);
  auto* p0_1 = static_cast<const void* const*>(p0[1]);
  auto* a = static_cast<const float*>(p0[0]);
  auto* b = static_cast<const float*>(p0_1[0]);
  auto* c = static_cast<const float*>(p0_1[1]);
  auto* d = static_cast<const float*>(p0[2]);
  auto* results = static_cast<void**>(out);
  auto* out0 = static_cast<float*>(results[0]);
  auto* scratch = static_cast<float*>(results[1]);
  for (int i = 0; i < 1024; ++i) scratch[i] = b[i % 64] * c[i % 128];
  for (int i = 0; i < 512; ++i) out0[i] = a[i % 32] + d[i % 256] + scratch[i] + scratch[i + 512];
}
CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(cubridge_example_tuple, "Host");

// Two results without a tuple operand: out is an array of 2 pointers (sum and difference of 2 operands).
// opaque: int64 "n".
extern "C" void cubridge_example_sum_diff(void* out, const void** in, const char* opaque,
                                          std::size_t opaque_len, XlaCustomCallStatus* status) {
  std::int64_t n = 0;
  try {
    n = cubridge::xla::OpaqueReader({opaque, opaque_len}).get_int("n");
  } catch (const std::exception& e) {
    fail(status, e.what());
    return;
  }
  auto* x = static_cast<const float*>(in[0]);
  auto* y = static_cast<const float*>(in[1]);
  auto* results = static_cast<void**>(out);
  auto* s = static_cast<float*>(results[0]);
  auto* d = static_cast<float*>(results[1]);
  for (std::int64_t i = 0; i < n; ++i) {
    s[i] = x[i] + y[i];
    d[i] = x[i] - y[i];
  }
}
CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(cubridge_example_sum_diff, "Host");

// The cheapest possible call, for measuring per-call overhead: copies one float (api version 1; the
// classic path and the adapter can both serve it).
extern "C" void cubridge_example_copy1(void* out, const void** in) {
  *static_cast<float*>(out) = *static_cast<const float*>(in[0]);
}
CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(cubridge_example_copy1, "Host");
