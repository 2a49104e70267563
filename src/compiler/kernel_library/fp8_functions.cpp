// Internal: the fp8 conversions (see fp8_functions.hpp). Each block is cuda_fp8.hpp's (CUDA 13) for sm_89
// and later, written with named registers and composed: a block takes the register it writes and the one
// it reads, declares its own registers in a { } scope, and the public functions bind them to $0 and $1.
// A block's own registers shadow its caller's, so a block that reads a register its caller declared names
// its own registers apart (nsu, e8mag, ...): never one of the names callers pass in (g, w, b, h).
// - float32 -> e4m3/e5m2 saturating: cvt.rn.satfinite.<fmt>x2.f32 (the value in the low byte);
// - float64 -> e4m3/e5m2, and float32 without saturation (NaN made canonical first, then widened):
//   __nv_cvt_double_to_fp8's integer algorithm (round to nearest even, NaN, overflow and underflow rules);
// - float16 -> e4m3/e5m2: cvt.rn.satfinite.<fmt>x2.f16x2; bfloat16 widens to float32 first; integers
//   convert to float32 (round to nearest) first, as the header's integer constructors do;
// - e4m3/e5m2 -> float16: cvt.rn.f16x2.<fmt>x2; float32, float64, bfloat16 (rounded toward zero) and the
//   16/32/64-bit integers (cvt.rzi from float16) from there; 8-bit integers by the header's saturation rules;
// - e8m0: the header's software path (its cvt.*.ue8m0x2 instructions need sm_100a): the exponent of a
//   bfloat16 rounded toward zero or up, float64 through float32 with a sticky bit.
#include "compiler/kernel_library/fp8_functions.hpp"

#include <cstdint>
#include <cstdio>

#include "compiler/kernel_library/bf16_functions.hpp"

namespace cubridge::compiler {
namespace {

using S = std::string;

S hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llX", static_cast<unsigned long long>(v));
  return buf;
}

S num(long long v) { return std::to_string(v); }

// The PTX type of an integer letter, 8-bit ones held (and converted) as 16-bit.
std::string_view int_ptx(char l) {
  switch (l) {
    case 'c':
    case 's': return "s16";
    case 'C':
    case 'S': return "u16";
    case 'i': return "s32";
    case 'I': return "u32";
    case 'l': return "s64";
    case 'L': return "u64";
    default: return "";
  }
}

bool is_int_letter(char l) { return !int_ptx(l).empty(); }

std::string_view fmt_name(Fp8Interpretation f) { return f == Fp8Interpretation::E4M3 ? "e4m3x2" : "e5m2x2"; }

// Substitutes $0 and $1 of another library's PTX (bf16_functions) with register names.
S bind(S ptx, const S& out, const S& in) {
  for (auto [from, to] : {std::pair<S, S>{"$0", out}, {"$1", in}})
    for (std::size_t at = ptx.find(from); at != S::npos; at = ptx.find(from, at + to.size())) ptx.replace(at, 2, to);
  return ptx;
}

// __nv_cvt_double_to_fp8: float64 register `in` -> the fp8 byte in 16-bit register `out`.
S double_to_fp8(const S& out, const S& in, Fp8Saturation sat, Fp8Interpretation fmt) {
  const bool e4 = fmt == Fp8Interpretation::E4M3;
  const int bias = e4 ? 7 : 15, sig_bits = e4 ? 4 : 3, mask = e4 ? 7 : 3;
  const std::uint64_t min_denorm_o2 = e4 ? 0x3F50000000000000ULL : 0x3EE0000000000000ULL;
  const std::uint64_t overflow = e4 ? 0x407D000000000000ULL : 0x40EE000000000000ULL - 1;
  const std::uint64_t min_norm = e4 ? 0x3F90000000000000ULL : 0x3F10000000000000ULL;
  const int max_norm = e4 ? 0x7E : 0x7B;
  const std::uint64_t half_ulp = 1ULL << (53 - sig_bits - 1);
  const int overflow_result = sat == Fp8Saturation::SatFinite ? max_norm : e4 ? 0x7F : 0x7C;
  S nan = e4 ? "@pr mov.b32 r, 127; " : "@pr or.b32 r, m, 126; ";  // E5M2 keeps the top mantissa bits, quiet
  return "{ .reg .b64 xb, ax, t, rnd, hs, hm; .reg .b32 sg, e, m, nrm, dn, sh, q, r; .reg .pred pr, pt; "
         "mov.b64 xb, " + in + "; and.b64 ax, xb, 0x7FFFFFFFFFFFFFFF; "
         "shr.u64 t, xb, 63; cvt.u32.u64 sg, t; shl.b32 sg, sg, 7; "
         "shr.u64 t, xb, 52; cvt.u32.u64 e, t; and.b32 e, e, 2047; add.s32 e, e, " + num(bias - 1023) + "; "
         "shr.u64 t, xb, " + num(53 - sig_bits) + "; cvt.u32.u64 m, t; and.b32 m, m, " + num(mask) + "; "
         // normal range: exponent and mantissa, rounded to nearest even
         "shl.b32 nrm, e, " + num(sig_bits - 1) + "; or.b32 nrm, nrm, m; and.b64 rnd, xb, " + hex(2 * half_ulp - 1) + "; "
         "and.b32 q, m, 1; setp.eq.u64 pt, rnd, " + hex(half_ulp) + "; setp.ne.and.b32 pt, q, 0, pt; "
         "setp.gt.or.u64 pr, rnd, " + hex(half_ulp) + ", pt; @pr add.u32 nrm, nrm, 1; "
         // denormal range: the implicit bit shifted in, rounded to nearest even
         "neg.s32 sh, e; add.s32 sh, sh, 1; or.b32 dn, m, " + num(1 << (sig_bits - 1)) + "; shr.b32 dn, dn, sh; "
         "or.b64 t, xb, 0x0010000000000000; mov.b64 hs, " + hex(half_ulp) + "; shl.b64 hs, hs, sh; "
         "shl.b64 hm, hs, 1; sub.u64 hm, hm, 1; and.b64 t, t, hm; "
         "and.b32 q, dn, 1; setp.eq.u64 pt, t, hs; setp.ne.and.b32 pt, q, 0, pt; setp.gt.or.u64 pr, t, hs, pt; "
         "@pr add.u32 dn, dn, 1; "
         // the cases, lowest priority first
         "mov.b32 r, dn; setp.ge.u64 pr, ax, " + hex(min_norm) + "; @pr mov.b32 r, nrm; "
         "setp.gt.u64 pr, ax, " + hex(overflow) + "; @pr mov.b32 r, " + num(overflow_result) + "; "
         "setp.gt.u64 pr, ax, 0x7FF0000000000000; " + nan +
         "setp.le.u64 pr, ax, " + hex(min_denorm_o2) + "; @pr mov.b32 r, 0; "
         "or.b32 r, r, sg; and.b32 r, r, 255; cvt.u16.u32 " + out + ", r; }";
}

// __nv_cvt_float_to_fp8 on sm_89+: the instruction when saturating, else the float64 algorithm on the value
// with its NaN made canonical.
S float_to_fp8(const S& out, const S& in, Fp8Saturation sat, Fp8Interpretation fmt) {
  if (sat == Fp8Saturation::SatFinite)
    return "{ .reg .f32 z; .reg .b16 s; mov.f32 z, 0f00000000; cvt.rn.satfinite." + S(fmt_name(fmt)) + ".f32 s, z, " +
           in + "; and.b16 " + out + ", s, 255; }";
  return "{ .reg .b32 nsu, nsa; .reg .pred nsp; .reg .f32 nsf; .reg .f64 nsd; mov.b32 nsu, " + in +
         "; and.b32 nsa, nsu, 0x7FFFFFFF; setp.gt.u32 nsp, nsa, 0x7F800000; @nsp mov.b32 nsu, 0x7FFFFFFF; "
         "mov.b32 nsf, nsu; cvt.f64.f32 nsd, nsf; " + double_to_fp8(out, "nsd", sat, fmt) + " }";
}

// A bfloat16's bits (16-bit register) widened to float32.
S widen_bf16(const S& out, const S& in) { return "{ .reg .b16 z; mov.b16 z, 0; mov.b32 " + out + ", {z, " + in + "}; }"; }

// __nv_cvt_fp8_to_halfraw on sm_89+.
S fp8_to_half(const S& out, const S& in, Fp8Interpretation fmt) {
  return "{ .reg .b32 w; .reg .b16 lo, hi, b; and.b16 b, " + in + ", 255; cvt.rn.f16x2." + S(fmt_name(fmt)) +
         " w, b; mov.b32 {lo, hi}, w; mov.b16 " + out + ", lo; }";
}

// __nv_cvt_bfloat16raw_to_e8m0's software path: the exponent, rounded up when asked, saturated when asked.
S bf16raw_to_e8m0(const S& out, const S& in, Fp8Saturation sat, CudaRoundMode rounding) {
  S s = "{ .reg .b32 x, a, r, lo; .reg .pred p; cvt.u32.u16 x, " + in +
        "; and.b32 a, x, 0x7FFF; shr.b32 r, x, 7; and.b32 r, r, 255; ";
  if (rounding == CudaRoundMode::PosInf)  // a mantissa bit set, above 2^-127 and finite: one up
    s += "and.b32 lo, x, 127; setp.ne.b32 p, lo, 0; setp.gt.and.u32 p, a, 64, p; setp.lt.and.u32 p, a, 0x7F80, p; "
         "@p add.u32 r, r, 1; ";
  if (sat == Fp8Saturation::SatFinite)  // not NaN, overflowed to 0xFF: the largest finite
    s += "setp.le.u32 p, a, 0x7F80; setp.eq.and.u32 p, r, 255, p; @p sub.u32 r, r, 1; ";
  return s + "cvt.u16.u32 " + out + ", r; }";
}

// __internal_float_to_bf16raw_ru: cvt.rp.bf16.f32 from sm_90, the header's integer rounding on sm_89.
S float_to_bf16raw_ru(const S& out, const S& in, int cc) {
  if (cc >= 90) return "cvt.rp.bf16.f32 " + out + ", " + in + ";";
  return "{ .reg .b32 u, a, lo, r; .reg .pred p; mov.b32 u, " + in +
         "; shr.b32 r, u, 16; and.b32 a, u, 0x7FFFFFFF; and.b32 lo, u, 0xFFFF; setp.lt.u32 p, u, 0x7F800000; "
         "setp.ne.and.u32 p, lo, 0, p; @p add.u32 r, r, 1; setp.gt.u32 p, a, 0x7F800000; @p mov.b32 r, 0x7FFF; "
         "cvt.u16.u32 " + out + ", r; }";
}

// __nv_cvt_float_to_e8m0 (rounding toward zero or up; the header asserts the others away).
S float_to_e8m0(const S& out, const S& in, Fp8Saturation sat, CudaRoundMode rounding, int cc) {
  if (rounding == CudaRoundMode::Zero)
    return "{ .reg .b16 e8rz; cvt.rz.bf16.f32 e8rz, " + in + "; " + bf16raw_to_e8m0(out, "e8rz", sat, rounding) + " }";
  return "{ .reg .b32 e8abs; .reg .f32 e8mag; .reg .b16 e8ru; mov.b32 e8abs, " + in +
         "; and.b32 e8abs, e8abs, 0x7FFFFFFF; mov.b32 e8mag, e8abs; " + float_to_bf16raw_ru("e8ru", "e8mag", cc) + " " +
         bf16raw_to_e8m0(out, "e8ru", sat, rounding) + " }";
}

// __internal_double_to_float_with_sticky: float64 -> float32 rounded to nearest, then toward zero with the
// last bit set when inexact (one rounding of the float32 then gives the float64's).
S double_to_float_sticky(const S& out, const S& in) {
  return "{ .reg .f32 f; .reg .f64 d; .reg .b32 u, s; .reg .pred p, nn; cvt.rn.f32.f64 f, " + in +
         "; cvt.f64.f32 d, f; mov.b32 u, f; shl.b32 s, u, 1; setp.le.u32 nn, s, 0xFF000000; "
         "setp.gt.f64 p, " + in + ", 0d0000000000000000; setp.gt.and.f64 p, d, " + in + ", p; @p sub.u32 u, u, 1; "
         "setp.lt.f64 p, " + in + ", 0d0000000000000000; setp.lt.and.f64 p, d, " + in + ", p; @p sub.u32 u, u, 1; "
         "setp.neu.and.f64 p, d, " + in + ", nn; @p or.b32 u, u, 1; mov.b32 " + out + ", u; }";
}

S double_to_e8m0(const S& out, const S& in, Fp8Saturation sat, CudaRoundMode rounding, int cc) {
  return "{ .reg .f32 g; " + double_to_float_sticky("g", in) + " " + float_to_e8m0(out, "g", sat, rounding, cc) + " }";
}

// __internal_e8m0_to_bf16: the exponent in place; 0xFF is NaN, 0 is 2^-127.
S e8m0_to_bf16raw(const S& out, const S& in) {
  return "{ .reg .b16 x, r; .reg .pred p; and.b16 x, " + in + ", 255; shl.b16 r, x, 7; setp.eq.u16 p, x, 255; "
         "@p mov.b16 r, 0x7FFF; setp.eq.u16 p, x, 0; @p mov.b16 r, 0x0040; mov.b16 " + out + ", r; }";
}

S e8m0_to_float(const S& out, const S& in) {
  return "{ .reg .b16 b; " + e8m0_to_bf16raw("b", in) + " " + widen_bf16(out, "b") + " }";
}

// operator (unsigned|signed) char: the float32 value saturated, NaN to 0 (min is absent for e8m0).
S to_char(const S& out, const S& in, const S& to_float, const S& nan_test, bool is_signed, bool has_min) {
  S s = "{ .reg .f32 g; .reg .b32 r, b; .reg .pred p; " + to_float + " cvt.rzi.s32.f32 r, g; setp.gt.f32 p, g, " +
        (is_signed ? "0f42FE0000; @p mov.b32 r, 127; " : "0f437F0000; @p mov.b32 r, 255; ");
  if (has_min) s += is_signed ? "setp.lt.f32 p, g, 0fC3000000; @p mov.b32 r, -128; " : "setp.lt.f32 p, g, 0f00000000; @p mov.b32 r, 0; ";
  return s + "cvt.u32.u16 b, " + in + "; " + nan_test + " @p mov.b32 r, 0; cvt.u16.u32 " + out + ", r; }";
}

std::optional<Fp8Interpretation> interpretation(const Type& t) {
  if (t.kind() == TypeKind::Fp8E4M3) return Fp8Interpretation::E4M3;
  if (t.kind() == TypeKind::Fp8E5M2) return Fp8Interpretation::E5M2;
  return std::nullopt;
}

}  // namespace

char fp8_letter(const Type& t) {
  if (t.is_fp8()) return '8';
  if (t.is_float() && t.bits() == 16) return 'h';
  return bf16_letter(t);
}

Type fp8_letter_type(char letter) {
  if (letter == 'h') return Type::floating(16);
  return bf16_letter_type(letter);
}

std::optional<Fp8Code> fp8_construct(const Type& fp8, char from, int cc) {
  const S sig{'8', from};
  const auto sat = Fp8Saturation::SatFinite;
  if (auto fmt = interpretation(fp8)) {
    switch (from) {
      case 'f': return Fp8Code{sig, float_to_fp8("$0", "$1", sat, *fmt)};
      case 'd': return Fp8Code{sig, double_to_fp8("$0", "$1", sat, *fmt)};
      case 'b': return Fp8Code{sig, "{ .reg .f32 g; " + widen_bf16("g", "$1") + " " + float_to_fp8("$0", "g", sat, *fmt) + " }"};
      case 'h':
        return Fp8Code{sig, "{ .reg .b32 w; .reg .b16 z, s; mov.b16 z, 0; mov.b32 w, {$1, z}; cvt.rn.satfinite." +
                                S(fmt_name(*fmt)) + ".f16x2 s, w; and.b16 $0, s, 255; }"};
      default:
        if (!is_int_letter(from)) return std::nullopt;
        return Fp8Code{sig, "{ .reg .f32 g; cvt.rn.f32." + S(int_ptx(from)) + " g, $1; " +
                                float_to_fp8("$0", "g", sat, *fmt) + " }"};
    }
  }
  if (fp8.kind() != TypeKind::Fp8E8M0) return std::nullopt;
  const auto up = CudaRoundMode::PosInf;
  switch (from) {
    case 'f': return Fp8Code{sig, float_to_e8m0("$0", "$1", sat, up, cc)};
    case 'd': return Fp8Code{sig, double_to_e8m0("$0", "$1", sat, up, cc)};
    case 'b': return Fp8Code{sig, bf16raw_to_e8m0("$0", "$1", sat, up)};
    case 'h': return Fp8Code{sig, "{ .reg .f32 g; cvt.f32.f16 g, $1; " + float_to_e8m0("$0", "g", sat, up, cc) + " }"};
    case 'c':
    case 'C':
    case 's':
    case 'S':  // through float32 (exact)
      return Fp8Code{sig, "{ .reg .f32 g; cvt.rn.f32." + S(int_ptx(from)) + " g, $1; " +
                              float_to_e8m0("$0", "g", sat, up, cc) + " }"};
    case 'i':
    case 'I':  // through float64 (exact)
      return Fp8Code{sig, "{ .reg .f64 w; cvt.rn.f64." + S(int_ptx(from)) + " w, $1; " +
                              double_to_e8m0("$0", "w", sat, up, cc) + " }"};
    case 'l':
    case 'L': {  // bfloat16 rounded to nearest, one up where that fell below the magnitude, then rounded up
      const bool sgn = from == 'l';
      S rn = bf16_function(sgn ? "__ll2bfloat16_rn" : "__ull2bfloat16_rn", cc)->ptx;
      S back = bf16_function(sgn ? "__bfloat162ll_rz" : "__bfloat162ull_rz", cc)->ptx;
      S below = sgn ? "setp.gt.s64 p, $1, 0; setp.lt.and.s64 p, e8back, $1, p; setp.lt.s64 q, $1, 0; "
                      "setp.gt.and.s64 q, e8back, $1, q; or.pred p, p, q; "
                    : "setp.lt.u64 p, e8back, $1; ";
      return Fp8Code{sig, "{ .reg .b16 e8rn; .reg .b64 e8back; .reg .pred p, q; " + bind(rn, "e8rn", "$1") + " " +
                              bind(back, "e8back", "e8rn") + " " + below + "@p add.u16 e8rn, e8rn, 1; " +
                              bf16raw_to_e8m0("$0", "e8rn", sat, up) + " }"};
    }
    default: return std::nullopt;
  }
}

std::optional<Fp8Code> fp8_convert_to(const Type& fp8, char to, int cc) {
  (void)cc;
  const S sig{to, '8'};
  if (auto fmt = interpretation(fp8)) {
    const S half = fp8_to_half("h", "$1", *fmt);
    const S to_float = "{ .reg .b16 h; " + half + " cvt.f32.f16 g, h; }";
    switch (to) {
      case 'h': return Fp8Code{sig, fp8_to_half("$0", "$1", *fmt)};
      case 'f': return Fp8Code{sig, "{ .reg .f32 g; " + to_float + " mov.f32 $0, g; }"};
      case 'd': return Fp8Code{sig, "{ .reg .f32 g; " + to_float + " cvt.f64.f32 $0, g; }"};
      case 'b': return Fp8Code{sig, "{ .reg .f32 g; " + to_float + " cvt.rz.bf16.f32 $0, g; }"};
      case 'c':
      case 'C': {
        S nan = *fmt == Fp8Interpretation::E4M3 ? "and.b32 b, b, 127; setp.eq.u32 p, b, 127;"
                                                : "and.b32 b, b, 127; setp.gt.u32 p, b, 124;";
        return Fp8Code{sig, to_char("$0", "$1", to_float, nan, to == 'c', true)};
      }
      default:
        if (!is_int_letter(to)) return std::nullopt;
        return Fp8Code{sig, "{ .reg .b16 h; " + half + " cvt.rzi." + S(int_ptx(to)) + ".f16 $0, h; }"};
    }
  }
  if (fp8.kind() != TypeKind::Fp8E8M0) return std::nullopt;
  const S to_float = e8m0_to_float("g", "$1");
  switch (to) {
    case 'b': return Fp8Code{sig, e8m0_to_bf16raw("$0", "$1")};
    case 'f': return Fp8Code{sig, e8m0_to_float("$0", "$1")};
    case 'd': return Fp8Code{sig, "{ .reg .f32 g; " + to_float + " cvt.f64.f32 $0, g; }"};
    case 'h': return Fp8Code{sig, "{ .reg .f32 g; " + to_float + " cvt.rn.f16.f32 $0, g; }"};
    case 'c':
    case 'C': return Fp8Code{sig, to_char("$0", "$1", to_float, "and.b32 b, b, 255; setp.eq.u32 p, b, 255;", to == 'c', false)};
    default:
      if (!is_int_letter(to)) return std::nullopt;  // __bfloat162<int>_rz: exact through float32
      return Fp8Code{sig, "{ .reg .f32 g; " + to_float + " cvt.rzi." + S(int_ptx(to)) + ".f32 $0, g; }"};
  }
}

Fp8Code fp8_cvt_to_fp8(char from, Fp8Saturation sat, Fp8Interpretation interp, int cc) {
  (void)cc;
  const S sig{'C', from};
  if (from == 'd') return {sig, double_to_fp8("$0", "$1", sat, interp)};
  if (from == 'S') return {sig, "{ .reg .f32 g; " + widen_bf16("g", "$1") + " " + float_to_fp8("$0", "g", sat, interp) + " }"};
  return {sig, float_to_fp8("$0", "$1", sat, interp)};
}

std::optional<Fp8Code> fp8_cvt_to_e8m0(char from, Fp8Saturation sat, CudaRoundMode rounding, int cc) {
  const S sig{'C', from};
  if (from == 'S') return Fp8Code{sig, bf16raw_to_e8m0("$0", "$1", sat, rounding)};
  if (rounding != CudaRoundMode::Zero && rounding != CudaRoundMode::PosInf) return std::nullopt;
  if (from == 'd') return Fp8Code{sig, double_to_e8m0("$0", "$1", sat, rounding, cc)};
  return Fp8Code{sig, float_to_e8m0("$0", "$1", sat, rounding, cc)};
}

Fp8Code fp8_cvt_e8m0_to_bf16raw() { return {"SC", e8m0_to_bf16raw("$0", "$1")}; }

}  // namespace cubridge::compiler
