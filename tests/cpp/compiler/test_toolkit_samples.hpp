// Internal (tests): hand-written NVVM IR and CUDA C++ shared by the toolkit, NVVM, linker and NVRTC tests.
#pragma once

#include <string>

#include "cubridge/compiler/nvvm.hpp"

namespace cubridge::testing {

inline std::string nvvm_module(const std::string& body) {
  return "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
         "target triple = \"nvptx64-nvidia-cuda\"\n" +
         body + cubridge::nvvm::ir_version_metadata();
}

/// f(x, y) = x * y + 1, with the C ABI: the function the link example's kernel calls.
inline std::string f_module() {
  return nvvm_module(
      "define float @f(float %x, float %y) {\n"
      "  %m = fmul float %x, %y\n"
      "  %r = fadd float %m, 1.0\n"
      "  ret float %r\n"
      "}\n");
}

/// g(x) = sqrt(x) through libdevice.
inline std::string sqrt_module() {
  return nvvm_module(
      "declare float @__nv_sqrtf(float)\n"
      "define float @g(float %x) {\n"
      "  %r = call float @__nv_sqrtf(float %x)\n"
      "  ret float %r\n"
      "}\n");
}

/// The transform kernel of the link example: out[i] = f(a[i], b[i]), f defined elsewhere.
inline const char* transform_kernel_source() {
  return R"(extern "C" __device__ float f(float, float);
extern "C" __global__ void transform(const float* __restrict__ a, const float* __restrict__ b,
                                     float* __restrict__ out, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    out[i] = f(a[i], b[i]);
}
)";
}

}  // namespace cubridge::testing
