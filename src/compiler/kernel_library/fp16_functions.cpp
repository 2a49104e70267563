// Internal: the fp16 table (see fp16_functions.hpp). The instruction sequences are cuda_fp16.hpp's for
// sm_80+ (CUDA 12/13): one f16 instruction for arithmetic, comparisons (setp, then 1 or 0), max/min and the
// roundings; the approximate float32 instruction between conversions for sqrt, rsqrt and rcp (with
// exp2's one-ulp correction); ex2 and lg2 scaled by a constant for exp, exp10, log and log10, each with
// cuda_fp16.hpp's fix-ups of the inputs (or, for log2, results) it rounds wrongly; tanh.approx.f16; and
// __hdiv's reciprocal, refined by one Newton step for tiny quotients.
#include "compiler/kernel_library/fp16_functions.hpp"

namespace cubridge::compiler {
namespace {

constexpr Fp16Function kFp16[] = {
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
    "hexp, hexp2, hexp10, hlog, hlog2, hlog10, htanh_approx, heq, hne, hgt, hge, hlt, hle, __hneu";

}  // namespace

std::optional<Fp16Function> fp16_function(std::string_view name) {
  for (const Fp16Function& f : kFp16)
    if (f.name == name) return f;
  return std::nullopt;
}

std::string_view fp16_function_names() { return kNames; }

bool fp16_function_not_supported_yet(std::string_view name) {
  for (std::string_view n : {"hsin", "hcos", "htanh"})
    if (n == name) return true;
  return false;
}

}  // namespace cubridge::compiler
