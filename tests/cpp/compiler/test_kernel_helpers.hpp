// Internal (tests): the helpers the front-end tests of kernels share: the options of a Numba-ABI kernel
// for sm_90, and counting a fragment in generated IR or PTX.
#pragma once

#include <cstddef>
#include <string>

#include "cubridge/compiler/compile.hpp"

namespace cubridge::testing {

/// A kernel (not a device function) with the Numba ABI, module "m", for compute capability 9.0.
inline compiler::CompileOptions kernel_options() {
  compiler::CompileOptions o;
  o.device = false;
  o.abi = compiler::Abi::numba;
  o.module_name = "m";
  o.cc = ComputeCapability{9, 0};
  return o;
}

/// How often `what` occurs in `s` (overlapping occurrences counted).
inline std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace cubridge::testing
