// Hand-written typed-FFI handlers (XLA's C++ ffi.h) for the seed A[i] = B[i % m] + C[i]: the reference
// that bench/bench_xla.py compares cubridge's adapter with. Built only when jax's headers were found.
#ifdef CUBRIDGE_HAVE_XLA_FFI
#include <cstdint>

#include <cuda.h>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

void cubridge_example_launch_add_mod(CUstream stream, void* a, const void* b, const void* c,
                                     std::uint64_t n, std::uint64_t m);

namespace {

ffi::Error add_mod_cpu(ffi::Buffer<ffi::F32> b, ffi::Buffer<ffi::F32> c, ffi::ResultBuffer<ffi::F32> a) {
  const std::size_t m = b.element_count(), n = c.element_count();
  if (m == 0) return ffi::Error::InvalidArgument("add_mod: B is empty");
  const float* pb = b.typed_data();
  const float* pc = c.typed_data();
  float* pa = a->typed_data();
  for (std::size_t i = 0; i < n; ++i) pa[i] = pb[i % m] + pc[i];
  return ffi::Error::Success();
}

ffi::Error add_mod_gpu(CUstream stream, ffi::Buffer<ffi::F32> b, ffi::Buffer<ffi::F32> c,
                       ffi::ResultBuffer<ffi::F32> a) {
  const std::size_t m = b.element_count(), n = c.element_count();
  if (m == 0) return ffi::Error::InvalidArgument("add_mod: B is empty");
  try {
    cubridge_example_launch_add_mod(stream, a->untyped_data(), b.untyped_data(), c.untyped_data(), n, m);
  } catch (const std::exception& e) {
    return ffi::Error::Internal(e.what());
  }
  return ffi::Error::Success();
}

// The per-call overhead reference: copies one float, like cubridge_example_copy1.
ffi::Error copy1_cpu(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  *y->typed_data() = *x.typed_data();
  return ffi::Error::Success();
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(cubridge_example_typed_copy1_cpu, copy1_cpu,
                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(cubridge_example_typed_add_mod_cpu, add_mod_cpu,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(cubridge_example_typed_add_mod_gpu, add_mod_gpu,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<CUstream>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>(),
                              {ffi::Traits::kCmdBufferCompatible});
#endif  // CUBRIDGE_HAVE_XLA_FFI
