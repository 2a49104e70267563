// Internal: numba-cuda's fp8 bindings (numba.cuda._internal.cuda_fp8, generated from CUDA's cuda_fp8.h) as the
// PTX that cuda_fp8.hpp gives each conversion on compute capability 8.9 and later, where numba-cuda supports
// fp8 (cuda.is_fp8_supported()). numba-cuda compiles cuda_fp8.hpp's C++ and links it in; the same
// instructions here give the same bits with no link:
// - the sm_89 instructions where the header uses them (cvt.rn.satfinite.{e4m3x2,e5m2}.{f32,f16x2} for
//   saturating narrowing, cvt.rn.f16x2.{e4m3x2,e5m2x2} for widening), and
// - the header's integer algorithms where it has no instruction (float64 and non-saturating narrowing,
//   every e8m0 conversion: its PTX forms need sm_100a).
// Every value travels in a 16-bit register: an fp8 in its low byte, a float16/bfloat16 as its bits.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cubridge/types/type.hpp"

namespace cubridge::compiler {

/// cuda_fp8.h's enums, with their values: __nv_saturation_t, __nv_fp8_interpretation_t, and cudaRoundMode.
enum class Fp8Saturation { NoSat = 0, SatFinite = 1 };
enum class Fp8Interpretation { E4M3 = 0, E5M2 = 1 };
enum class CudaRoundMode { Nearest = 0, Zero = 1, PosInf = 2, MinInf = 3 };

/// One conversion: the letters of its signature (result first; f float32, d float64, h float16 bits,
/// b bfloat16 bits, c/C int8/uint8, s/S int16/uint16, i/I int32/uint32, l/L int64/uint64, 8 an fp8 byte,
/// ? bool) and its PTX ($0 the result, $1 the argument).
struct Fp8Code {
  std::string signature;
  std::string ptx;
};

/// The letter of a number type (fp8 types are '8'; 0 for a type with none) and the type of a letter.
char fp8_letter(const Type& t);
Type fp8_letter_type(char letter);

/// The constructor fp8_<format>(x) from a value of letter `from` (cuda_fp8.hpp's __nv_fp8_<format>(x));
/// `fp8` is the fp8 type made. nullopt where numba-cuda has no such constructor.
std::optional<Fp8Code> fp8_construct(const Type& fp8, char from, int cc);
/// The conversion operator of fp8 type `fp8` to letter `to` (operator float(), operator int(), ...).
std::optional<Fp8Code> fp8_convert_to(const Type& fp8, char to, int cc);

/// The storage intrinsics (their result is the fp8 byte, letter 'C', or a bfloat16_raw, letter 'S'):
/// __nv_cvt_{float,double,bfloat16raw}_to_fp8 (from 'f', 'd', 'S') and __nv_cvt_{...}_to_e8m0, and
/// __nv_cvt_e8m0_to_bf16raw. Rounding modes that cuda_fp8.hpp asserts against give nullopt.
Fp8Code fp8_cvt_to_fp8(char from, Fp8Saturation sat, Fp8Interpretation interp, int cc);
std::optional<Fp8Code> fp8_cvt_to_e8m0(char from, Fp8Saturation sat, CudaRoundMode rounding, int cc);
Fp8Code fp8_cvt_e8m0_to_bf16raw();

}  // namespace cubridge::compiler
