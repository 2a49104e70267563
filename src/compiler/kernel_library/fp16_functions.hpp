// Internal: numba.cuda.fp16's functions on float16 values, each as the PTX that CUDA's cuda_fp16.hpp gives it
// on sm_80 and later (numba-cuda 0.30 compiles cuda_fp16.hpp's functions and links them in; the same
// instructions here give the same bits without the link step).
#pragma once

#include <optional>
#include <string_view>

namespace cubridge::compiler {

struct Fp16Function {
  std::string_view name;   ///< "hadd"
  int arity;               ///< float16 arguments
  bool predicate;          ///< returns bool (heq, hlt, ...); else float16
  std::string_view ptx;    ///< the instructions: $0 the result (b16), $1.. the arguments (b16); empty: htanh
};

/// fp16.<name>, or nullopt when numba-cuda has no such function or cubridge does not compile it yet.
std::optional<Fp16Function> fp16_function(std::string_view name);
/// The names fp16_function() knows, for messages.
std::string_view fp16_function_names();

}  // namespace cubridge::compiler
