// Internal (tests): hand-written NVVM IR and CUDA C++ shared by the toolkit, NVVM, linker and NVRTC tests.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
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

/// The transform kernel of the link example: out[i] = f(a[i], b[i]), f defined elsewhere. Read from
/// python/cubridge/demo/transform.cu (CTest sets CUBRIDGE_SOURCE_DIR), the file the demo and the link example
/// compile too.
inline std::string transform_kernel_source() {
  const char* root = std::getenv("CUBRIDGE_SOURCE_DIR");
  std::string path = std::string(root ? root : ".") + "/python/cubridge/demo/transform.cu";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path + "; set CUBRIDGE_SOURCE_DIR to the repository");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Blocks of 256 threads for transform over n floats: one float4 per thread (transform.cu).
inline unsigned transform_blocks(unsigned long long n) {
  unsigned long long blocks = ((n + 3) / 4 + 255) / 256;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > (1ull << 30) ? (1ull << 30) : blocks);
}

}  // namespace cubridge::testing
