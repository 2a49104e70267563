// Internal: the fp16 table (see fp16_functions.hpp). The instruction sequences are cuda_fp16.hpp's for
// sm_80+ (CUDA 12/13): one f16 instruction for arithmetic, comparisons (setp, then 1 or 0), max/min and the
// roundings; the approximate float32 instruction between conversions for sqrt, rsqrt and rcp (with
// exp2's one-ulp correction); ex2 and lg2 scaled by a constant for exp, exp10, log and log10, each with
// cuda_fp16.hpp's fix-ups of the inputs (or, for log2, results) it rounds wrongly; tanh.approx.f16; and
// __hdiv's reciprocal, refined by one Newton step for tiny quotients.
#include "compiler/kernel_library/fp16_functions.hpp"

namespace cubridge::compiler {
namespace {

// hsin and hcos (cuda_fp16.hpp's __float_simpl_sinf/cosf): the float32 argument f reduced by pi/2 in two
// Cody-Waite steps (quadrant q from the rounded f * 2/pi), then the sine (q even) or cosine (q odd)
// polynomial in the reduced t, negated in quadrants 2 and 3; cos starts from quadrant q + 1. The result is
// rounded to float16 (r). The two share these instructions; each sets q before the polynomial.
#define CB_FP16_TRIG_REDUCTION                                                                               \
  "{ .reg .f32 f, ar, j, t, x2, z, c8, c6, c4, c2, a1, a0; .reg .b32 q, qb; .reg .pred odd, neg; "          \
  ".reg .b16 r, i, s, p, spc, ulp; cvt.f32.f16 f, $1; fma.rn.f32 ar, f, 0f3F22F983, 0f4B400000; "          \
  "mov.b32 q, ar; sub.rn.f32 j, ar, 0f4B400000; fma.rn.f32 t, j, 0fBFC90FDA, f; "                           \
  "fma.rn.f32 t, j, 0fB3A22168, t; "
#define CB_FP16_TRIG_POLYNOMIAL                                                                              \
  "mul.rn.f32 x2, t, t; and.b32 qb, q, 1; setp.ne.u32 odd, qb, 0; and.b32 qb, q, 2; setp.ne.u32 neg, qb, 0; " \
  "selp.f32 c8, 0f37CCF5CE, 0fB94CA1F9, odd; selp.f32 c6, 0fBAB6061A, 0f3C08839E, odd; "                   \
  "selp.f32 c4, 0f3D2AAAA5, 0fBE2AAAA3, odd; selp.f32 c2, 0fBF000000, 0f00000000, odd; "                   \
  "selp.f32 a1, x2, t, odd; selp.f32 a0, 0f3F800000, t, odd; fma.rn.f32 z, c8, x2, c6; "                    \
  "fma.rn.f32 z, z, x2, c4; fma.rn.f32 z, z, x2, c2; fma.rn.f32 z, z, a1, a0; @neg neg.f32 z, z; "          \
  "cvt.rn.f16.f32 r, z; "

constexpr Fp16Function kFp16[] = {
    // tanh: no instructions here: the float32 tanhf (libdevice's __nv_tanhf), rounded to float16 (emit_fp16.cpp)
    {"htanh", 1, false, ""},
    // sin: two inputs it rounds wrongly get a one-ulp fix (on |a|, the sign put back)
    {"hsin", 1, false,
     CB_FP16_TRIG_REDUCTION CB_FP16_TRIG_POLYNOMIAL
     "and.b16 s, r, 0x8000; abs.f16 r, r; abs.f16 i, $1; "
     "mov.b16 spc, 0x32B3; mov.b16 ulp, 0x0800; set.eq.f16.f16 p, i, spc; fma.rn.f16 r, p, ulp, r; "
     "mov.b16 spc, 0x5CB0; mov.b16 ulp, 0x9000; set.eq.f16.f16 p, i, spc; fma.rn.f16 r, p, ulp, r; "
     "or.b16 r, r, s; mov.b16 $0, r; }"},
    {"hcos", 1, false,
     CB_FP16_TRIG_REDUCTION "and.b32 q, q, 3; add.u32 q, q, 1; " CB_FP16_TRIG_POLYNOMIAL
     "abs.f16 i, $1; mov.b16 spc, 0x2B7C; mov.b16 ulp, 0x1000; set.eq.f16.f16 p, i, spc; "
     "fma.rn.f16 r, p, ulp, r; mov.b16 $0, r; }"},
    {"hadd", 2, false, "add.f16 $0, $1, $2;"},
    {"hsub", 2, false, "sub.f16 $0, $1, $2;"},
    {"hmul", 2, false, "mul.f16 $0, $1, $2;"},
    {"hfma", 3, false, "fma.rn.f16 $0, $1, $2, $3;"},
    {"hneg", 1, false, "neg.f16 $0, $1;"},
    {"habs", 1, false, "abs.f16 $0, $1;"},
    {"hmax", 2, false, "max.f16 $0, $1, $2;"},
    {"hmin", 2, false, "min.f16 $0, $1, $2;"},
    {"hceil", 1, false, "cvt.rpi.f16.f16 $0, $1;"},
    {"hfloor", 1, false, "cvt.rmi.f16.f16 $0, $1;"},
    {"hrint", 1, false, "cvt.rni.f16.f16 $0, $1;"},
    {"htrunc", 1, false, "cvt.rzi.f16.f16 $0, $1;"},
    {"heq", 2, true, "{ .reg .pred p; setp.eq.f16 p, $1, $2; selp.u16 $0, 1, 0, p; }"},
    {"hne", 2, true, "{ .reg .pred p; setp.ne.f16 p, $1, $2; selp.u16 $0, 1, 0, p; }"},
    {"hgt", 2, true, "{ .reg .pred p; setp.gt.f16 p, $1, $2; selp.u16 $0, 1, 0, p; }"},
    {"hge", 2, true, "{ .reg .pred p; setp.ge.f16 p, $1, $2; selp.u16 $0, 1, 0, p; }"},
    {"hlt", 2, true, "{ .reg .pred p; setp.lt.f16 p, $1, $2; selp.u16 $0, 1, 0, p; }"},
    {"hle", 2, true, "{ .reg .pred p; setp.le.f16 p, $1, $2; selp.u16 $0, 1, 0, p; }"},
    // unordered !=: cuda_fp16.hpp's operator!= on __half, numba-cuda's float16 `!=` (a NaN operand gives True)
    {"__hneu", 2, true, "{ .reg .pred p; setp.neu.f16 p, $1, $2; selp.u16 $0, 1, 0, p; }"},
    {"hsqrt", 1, false, "{ .reg .f32 f; cvt.f32.f16 f, $1; sqrt.approx.ftz.f32 f, f; cvt.rn.f16.f32 $0, f; }"},
    {"hrsqrt", 1, false, "{ .reg .f32 f; cvt.f32.f16 f, $1; rsqrt.approx.ftz.f32 f, f; cvt.rn.f16.f32 $0, f; }"},
    {"hrcp", 1, false, "{ .reg .f32 f; cvt.f32.f16 f, $1; rcp.approx.ftz.f32 f, f; cvt.rn.f16.f32 $0, f; }"},
    {"hexp2", 1, false,
     "{ .reg .f32 f, ulp; cvt.f32.f16 f, $1; ex2.approx.ftz.f32 f, f; mov.b32 ulp, 0x33800000; "
     "fma.rn.f32 f, f, ulp, f; cvt.rn.f16.f32 $0, f; }"},
    {"hlog2", 1, false,
     "{ .reg .f32 f; .reg .b16 r, spc, ulp, p; cvt.f32.f16 f, $1; lg2.approx.ftz.f32 f, f; cvt.rn.f16.f32 r, f; "
     "mov.b16 spc, 0xA2E2; mov.b16 ulp, 0x8080; set.eq.f16.f16 p, r, spc; fma.rn.f16 r, p, ulp, r; "
     "mov.b16 spc, 0xBF46; mov.b16 ulp, 0x9400; set.eq.f16.f16 p, r, spc; fma.rn.f16 r, p, ulp, r; "
     "mov.b16 $0, r; }"},
    {"hexp", 1, false,
     "{ .reg .f32 f, C, nZ; .reg .b16 h, r, spc, ulp, p; mov.b16 h, $1; cvt.f32.f16 f, h; "
     "mov.b32 C, 0x3FB8AA3B; mov.b32 nZ, 0x80000000; fma.rn.f32 f, f, C, nZ; ex2.approx.ftz.f32 f, f; "
     "cvt.rn.f16.f32 r, f; mov.b16 spc, 0x1F79; mov.b16 ulp, 0x9400; set.eq.f16.f16 p, h, spc; "
     "fma.rn.f16 r, p, ulp, r; mov.b16 spc, 0x25CF; mov.b16 ulp, 0x9400; set.eq.f16.f16 p, h, spc; "
     "fma.rn.f16 r, p, ulp, r; mov.b16 spc, 0xC13B; mov.b16 ulp, 0x0400; set.eq.f16.f16 p, h, spc; "
     "fma.rn.f16 r, p, ulp, r; mov.b16 spc, 0xC1EF; mov.b16 ulp, 0x0200; set.eq.f16.f16 p, h, spc; "
     "fma.rn.f16 r, p, ulp, r; mov.b16 $0, r; }"},
    {"hexp10", 1, false,
     "{ .reg .f32 f, C, nZ; .reg .b16 h, r, spc, ulp, p; mov.b16 h, $1; cvt.f32.f16 f, h; "
     "mov.b32 C, 0x40549A78; mov.b32 nZ, 0x80000000; fma.rn.f32 f, f, C, nZ; ex2.approx.ftz.f32 f, f; "
     "cvt.rn.f16.f32 r, f; mov.b16 spc, 0x34DE; mov.b16 ulp, 0x9800; set.eq.f16.f16 p, h, spc; "
     "fma.rn.f16 r, p, ulp, r; mov.b16 spc, 0x9766; mov.b16 ulp, 0x9000; set.eq.f16.f16 p, h, spc; "
     "fma.rn.f16 r, p, ulp, r; mov.b16 spc, 0x9972; mov.b16 ulp, 0x1000; set.eq.f16.f16 p, h, spc; "
     "fma.rn.f16 r, p, ulp, r; mov.b16 spc, 0xA5C4; mov.b16 ulp, 0x1000; set.eq.f16.f16 p, h, spc; "
     "fma.rn.f16 r, p, ulp, r; mov.b16 spc, 0xBF0A; mov.b16 ulp, 0x8100; set.eq.f16.f16 p, h, spc; "
     "fma.rn.f16 r, p, ulp, r; mov.b16 $0, r; }"},
    {"hlog", 1, false,
     "{ .reg .f32 f, C, nZ; .reg .b16 h, r, spc, ulp, p; mov.b16 h, $1; cvt.f32.f16 f, h; "
     "lg2.approx.ftz.f32 f, f; mov.b32 C, 0x3F317218; mul.f32 f, f, C; cvt.rn.f16.f32 r, f; "
     "mov.b16 spc, 0x160D; mov.b16 ulp, 0x9C00; set.eq.f16.f16 p, h, spc; fma.rn.f16 r, p, ulp, r; "
     "mov.b16 spc, 0x3BFE; mov.b16 ulp, 0x8010; set.eq.f16.f16 p, h, spc; fma.rn.f16 r, p, ulp, r; "
     "mov.b16 spc, 0x3C0B; mov.b16 ulp, 0x8080; set.eq.f16.f16 p, h, spc; fma.rn.f16 r, p, ulp, r; "
     "mov.b16 spc, 0x6051; mov.b16 ulp, 0x1C00; set.eq.f16.f16 p, h, spc; fma.rn.f16 r, p, ulp, r; "
     "mov.b16 $0, r; }"},
    {"hlog10", 1, false,
     "{ .reg .f32 f, C, nZ; .reg .b16 h, r, spc, ulp, p; mov.b16 h, $1; cvt.f32.f16 f, h; "
     "lg2.approx.ftz.f32 f, f; mov.b32 C, 0x3E9A209B; mul.f32 f, f, C; cvt.rn.f16.f32 r, f; "
     "mov.b16 spc, 0x338F; mov.b16 ulp, 0x1000; set.eq.f16.f16 p, h, spc; fma.rn.f16 r, p, ulp, r; "
     "mov.b16 spc, 0x33F8; mov.b16 ulp, 0x9000; set.eq.f16.f16 p, h, spc; fma.rn.f16 r, p, ulp, r; "
     "mov.b16 spc, 0x57E1; mov.b16 ulp, 0x9800; set.eq.f16.f16 p, h, spc; fma.rn.f16 r, p, ulp, r; "
     "mov.b16 spc, 0x719D; mov.b16 ulp, 0x9C00; set.eq.f16.f16 p, h, spc; fma.rn.f16 r, p, ulp, r; "
     "mov.b16 $0, r; }"},
    {"htanh_approx", 1, false, "tanh.approx.f16 $0, $1;"},
    {"hdiv", 2, false,
     "{ .reg .f32 fa, fb, nfb, rcp, fv, err; .reg .b16 v, av, den, zero; .reg .pred small, nonzero; "
     "cvt.f32.f16 fa, $1; cvt.f32.f16 fb, $2; rcp.approx.ftz.f32 rcp, fb; mul.f32 fv, rcp, fa; "
     "cvt.rn.f16.f32 v, fv; abs.f16 av, v; mov.b16 den, 0x008F; mov.b16 zero, 0x0000; "
     "setp.lt.f16 small, av, den; setp.lt.f16 nonzero, zero, av; and.pred small, small, nonzero; "
     "neg.f32 nfb, fb; @small fma.rn.f32 err, nfb, fv, fa; @small fma.rn.f32 fv, rcp, err, fv; "
     "@small cvt.rn.f16.f32 v, fv; mov.b16 $0, v; }"},
};

constexpr std::string_view kNames =
    "hadd, hsub, hmul, hdiv, hfma, hneg, habs, hmax, hmin, hceil, hfloor, hrint, htrunc, hsqrt, hrsqrt, hrcp, "
    "hexp, hexp2, hexp10, hlog, hlog2, hlog10, hsin, hcos, htanh, htanh_approx, heq, hne, hgt, hge, hlt, hle, __hneu";

}  // namespace

std::optional<Fp16Function> fp16_function(std::string_view name) {
  for (const Fp16Function& f : kFp16)
    if (f.name == name) return f;
  return std::nullopt;
}

std::string_view fp16_function_names() { return kNames; }

}  // namespace cubridge::compiler
