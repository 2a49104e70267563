// Internal: numba-cuda's bfloat16 bindings (numba.cuda.bf16 / numba.cuda._internal.cuda_bf16, generated
// from CUDA's cuda_bf16.h) as the PTX that cuda_bf16.hpp gives each function on sm_80 and later. numba-cuda
// compiles cuda_bf16.hpp's C++ and links it in; the same instructions here give the same bits with no link.
// Where the header has an sm_90 instruction and an sm_80 sequence that compute the same value (round-to-odd
// through float32 for integer and float64 conversions, float32 compares and roundings), the sm_80
// sequence serves every target; add/sub/mul use the header's per-target instruction (add.bf16 on sm_90,
// fma.rn.bf16 before).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cubridge/types/type.hpp"

namespace cubridge::compiler {

/// The type letters of a bfloat16 function's signature: b bfloat16, f float32, d float64, c int8, C uint8,
/// s int16, S uint16, i int32, I uint32, l int64, L uint64, ? bool.
struct Bf16Function {
  std::string name;       ///< numba-cuda's binding name without module ("__hadd", "htrunc")
  std::string signature;  ///< the result's letter, then one letter per argument ("bbb" for __hadd)
  std::string ptx;        ///< $0 the result, $1.. the arguments; empty when `libdevice` computes it
  /// A float32 libdevice function between the conversions ("sin" for hsin: bf16(sinf(float(a)))), or empty.
  std::string libdevice;
};

/// The binding called `name` (cuda_bf16's spelling, "__hadd", "__float2bfloat16_rn", "hsin") for a
/// target of compute capability `cc` (major * 10 + minor), or nullopt when numba-cuda has no such
/// binding or cubridge does not compile it.
std::optional<Bf16Function> bf16_function(std::string_view name, int cc);
/// The binding behind a bfloat16 operator, as cuda_bf16.hpp's operators call them: "+" __hadd, "-" __hsub,
/// "*" __hmul, "/" __hdiv, "neg" __hneg, "==" __heq, "!=" __hneu, "<" __hlt, "<=" __hle, ">" __hgt, ">=" __hge.
std::string_view bf16_operator_function(std::string_view op);
/// The binding numba-cuda's bf16 module attaches to math.<name> on a bfloat16 (math.sqrt: hsqrt), or empty.
std::string_view bf16_math_function(std::string_view math_name);
/// The conversion numba-cuda lowers a cast between bfloat16 and `other` with (a letter as above),
/// `to_bf16` giving the direction ("__float2bfloat16", "__bfloat162int_rz"), or empty when numba has none.
std::string bf16_cast_function(char other, bool to_bf16);
/// The type of a signature letter, and the letter of a number type (0 for a type with none).
Type bf16_letter_type(char letter);
char bf16_letter(const Type& t);
/// Names for messages.
std::string_view bf16_function_families();

}  // namespace cubridge::compiler
