// Internal: the bfloat16 bindings (see bf16_functions.hpp). Each sequence is cuda_bf16.hpp's (CUDA 13)
// for the target:
// - a bfloat16 widens to float32 exactly (its bits in the high half: mov.b32 f, {0, h});
// - float32 narrows with cvt.{rn,rz,rm,rp}.bf16.f32;
// - integers and float64 narrow by round-to-odd through float32 (the header's sm_80 path: rounded toward
//   zero to float32, the last bit set when that was inexact, then rounded once to bfloat16; sm_90's
//   one-instruction cvt gives the same bits);
// - conversions to integers go through float32 with cvt.{rni,rzi,rmi,rpi}, which saturates and maps NaN
//   to 0 (as sm_90's cvt from .bf16 does);
// - compares are float32 setp (exact: widening keeps every value);
// - the math functions follow the header's float32 approximations, with sinf/cosf from libdevice.
#include "compiler/kernel_library/bf16_functions.hpp"

#include <array>
#include <utility>

namespace cubridge::compiler {
namespace {

constexpr std::string_view kWiden = "mov.b32 f, {0, $1}; ";

// The PTX type of a signature letter.
std::string_view ptx_type(char letter) {
  switch (letter) {
    case 'c': return "s8";
    case 'C': return "u8";
    case 's': return "s16";
    case 'S': return "u16";
    case 'i': return "s32";
    case 'I': return "u32";
    case 'l': return "s64";
    case 'L': return "u64";
    case 'f': return "f32";
    case 'd': return "f64";
    default: return "";
  }
}

// cuda_bf16's C spelling of a type in conversion names ("short" in __short2bfloat16_rn) -> letter.
constexpr std::array<std::pair<std::string_view, char>, 10> kCNames{{
    {"char", 'c'}, {"uchar", 'C'}, {"short", 's'}, {"ushort", 'S'}, {"int", 'i'},
    {"uint", 'I'}, {"ll", 'l'}, {"ull", 'L'}, {"float", 'f'}, {"double", 'd'},
}};

char letter_of(std::string_view c_name) {
  for (const auto& [n, l] : kCNames)
    if (n == c_name) return l;
  return 0;
}

// _rn/_rz/_rd/_ru -> the float rounding ("rn", "rz", "rm", "rp"); empty for anything else.
std::string_view float_rounding(std::string_view mode) {
  if (mode == "rn") return "rn";
  if (mode == "rz") return "rz";
  if (mode == "rd") return "rm";
  if (mode == "ru") return "rp";
  return "";
}

// One float32 operation between widening and rounding to nearest (hsqrt, hexp2, htrunc, ...).
std::string through_float(std::string_view op) {
  return "{ .reg .f32 f; " + std::string(kWiden) + std::string(op) + " cvt.rn.bf16.f32 $0, f; }";
}

// A compare as float32: 1 or 0 in a 16-bit register.
std::string compare(std::string_view cmp) {
  return "{ .reg .f32 f, g; .reg .pred p; mov.b32 f, {0, $1}; mov.b32 g, {0, $2}; setp." + std::string(cmp) +
         ".f32 p, f, g; selp.u16 $0, 1, 0, p; }";
}

// Rounding `src` (a PTX integer or f64 type) to bfloat16 with `rounding` by round-to-odd through float32.
std::string narrow_to_bf16(std::string_view src, std::string_view rounding) {
  std::string r(rounding);
  std::string s(src);
  if (src == "s16" || src == "u16")  // exact in float32: one rounding
    return "{ .reg .f32 f; cvt.rn.f32." + s + " f, $1; cvt." + r + ".bf16.f32 $0, f; }";
  std::string inexact = src == "f64"
                            ? "{ .reg .f64 back; cvt.f64.f32 back, z; setp.ne.f64 x, back, $1; } "
                            : "{ .reg .f32 up, dn; cvt.rp.f32." + s + " up, $1; cvt.rm.f32." + s +
                                  " dn, $1; setp.neu.f32 x, up, dn; } ";
  // A float64 NaN gives the header's quiet NaN 0x7FC0 (numba-cuda's bits on the GPU), not cvt's 0x7FFF.
  std::string nan = src == "f64" ? "{ .reg .pred n; testp.notanumber.f64 n, $1; @n mov.b16 $0, 0x7FC0; } " : "";
  return "{ .reg .f32 z; .reg .b32 u; .reg .pred x; cvt.rz.f32." + s + " z, $1; " + inexact +
         "mov.b32 u, z; @x or.b32 u, u, 1; mov.b32 z, u; cvt." + r + ".bf16.f32 $0, z; " + nan + "}";
}

std::optional<Bf16Function> conversion(std::string_view name) {
  // __bfloat162<c>_<mode>, __<c>2bfloat16_<mode>, __bfloat162float, __float2bfloat16, __double2bfloat16
  if (name == "__bfloat162float") return Bf16Function{std::string(name), "fb", "mov.b32 $0, {0, $1};", ""};
  if (name == "__float2bfloat16") return Bf16Function{std::string(name), "bf", "cvt.rn.bf16.f32 $0, $1;", ""};
  if (name == "__double2bfloat16") return Bf16Function{std::string(name), "bd", narrow_to_bf16("f64", "rn"), ""};
  constexpr std::string_view from_bf16 = "__bfloat162";
  if (name.starts_with(from_bf16)) {
    std::string_view rest = name.substr(from_bf16.size());
    auto us = rest.rfind('_');
    if (us == std::string_view::npos) return std::nullopt;
    char to = letter_of(rest.substr(0, us));
    std::string_view mode = float_rounding(rest.substr(us + 1));
    if (!to || to == 'f' || to == 'd' || mode.empty()) return std::nullopt;
    if ((to == 'c' || to == 'C') && mode != "rz") return std::nullopt;  // cuda_bf16 has only _rz for chars
    std::string ptx = "{ .reg .f32 f; " + std::string(kWiden) + "cvt." + std::string(mode) + "i." +
                      std::string(ptx_type(to)) + ".f32 $0, f; }";
    return Bf16Function{std::string(name), std::string{to, 'b'}, ptx, ""};
  }
  if (name.starts_with("__") && name.find("2bfloat16_") != std::string_view::npos) {
    std::string_view rest = name.substr(2);
    auto two = rest.find("2bfloat16_");
    char from = letter_of(rest.substr(0, two));
    std::string_view mode = float_rounding(rest.substr(two + 10));
    if (!from || from == 'c' || from == 'C' || from == 'd' || mode.empty()) return std::nullopt;
    std::string ptx = from == 'f' ? "cvt." + std::string(mode) + ".bf16.f32 $0, $1;"
                                  : narrow_to_bf16(ptx_type(from), mode);
    return Bf16Function{std::string(name), std::string{'b', from}, ptx, ""};
  }
  return std::nullopt;
}

// The 16-bit constants of cuda_bf16.hpp's saturating forms: one, zero, minus one, minus zero.
constexpr std::string_view kSat = " max.bf16 r, r, zero; min.bf16 $0, r, one; }";

std::optional<Bf16Function> fixed(std::string_view name, int cc) {
  const bool sm90 = cc >= 90;
  auto f = [&](std::string sig, std::string ptx) { return Bf16Function{std::string(name), std::move(sig), std::move(ptx), ""}; };
  // Arithmetic: the sm_90 instruction, or the header's fma with 1, -1 or -0 before sm_90.
  if (name == "__hadd" || name == "__hadd_rn")
    return f("bbb", sm90 ? (name == "__hadd" ? "add.bf16 $0, $1, $2;" : "add.rn.bf16 $0, $1, $2;")
                         : "{ .reg .b16 c; mov.b16 c, 0x3F80; fma.rn.bf16 $0, $1, c, $2; }");
  if (name == "__hsub" || name == "__hsub_rn")
    return f("bbb", sm90 ? (name == "__hsub" ? "sub.bf16 $0, $1, $2;" : "sub.rn.bf16 $0, $1, $2;")
                         : "{ .reg .b16 c; mov.b16 c, 0xBF80; fma.rn.bf16 $0, $2, c, $1; }");
  if (name == "__hmul" || name == "__hmul_rn")
    return f("bbb", sm90 ? (name == "__hmul" ? "mul.bf16 $0, $1, $2;" : "mul.rn.bf16 $0, $1, $2;")
                         : "{ .reg .b16 c; mov.b16 c, 0x8000; fma.rn.bf16 $0, $1, $2, c; }");
  if (name == "__hdiv")  // float32 div.approx, the divisor scaled by 1/4 from 2^126 up (no flush to zero)
    return f("bbb",
             "{ .reg .f32 f, g, ag, q; .reg .pred big; mov.b32 f, {0, $1}; mov.b32 g, {0, $2}; abs.f32 ag, g; "
             "setp.ge.f32 big, ag, 0f7E800000; @big mul.rn.f32 g, g, 0f3E800000; div.approx.f32 q, f, g; "
             "@big fma.rn.f32 q, q, 0f3E800000, 0f80000000; cvt.rn.bf16.f32 $0, q; }");
  const std::string sat = "{ .reg .b16 r, one, zero, c; mov.b16 one, 0x3F80; mov.b16 zero, 0x0000; ";
  if (name == "__hadd_sat") return f("bbb", sat + "fma.rn.bf16 r, $1, one, $2;" + std::string(kSat));
  if (name == "__hsub_sat") return f("bbb", sat + "mov.b16 c, 0xBF80; fma.rn.bf16 r, $2, c, $1;" + std::string(kSat));
  if (name == "__hmul_sat") return f("bbb", sat + "mov.b16 c, 0x8000; fma.rn.bf16 r, $1, $2, c;" + std::string(kSat));
  if (name == "__hfma_sat") return f("bbbb", sat + "fma.rn.bf16 r, $1, $2, $3;" + std::string(kSat));
  if (name == "__hfma") return f("bbbb", "fma.rn.bf16 $0, $1, $2, $3;");
  if (name == "__hfma_relu") return f("bbbb", "fma.rn.relu.bf16 $0, $1, $2, $3;");
  if (name == "__hneg") return f("bb", "neg.bf16 $0, $1;");
  if (name == "__habs") return f("bb", "abs.bf16 $0, $1;");
  if (name == "__hmax") return f("bbb", "max.bf16 $0, $1, $2;");
  if (name == "__hmin") return f("bbb", "min.bf16 $0, $1, $2;");
  if (name == "__hmax_nan") return f("bbb", "max.NaN.bf16 $0, $1, $2;");
  if (name == "__hmin_nan") return f("bbb", "min.NaN.bf16 $0, $1, $2;");
  // Compares: ordered (__heq) and unordered (__hequ: true where either is NaN).
  for (std::string_view c : {"eq", "ne", "ge", "gt", "le", "lt"}) {
    if (name == "__h" + std::string(c)) return f("?bb", compare(c));
    if (name == "__h" + std::string(c) + "u") return f("?bb", compare(std::string(c) + "u"));
  }
  if (name == "__hisnan")
    return f("?b", "{ .reg .b16 m; .reg .pred p; and.b16 m, $1, 0x7FFF; setp.gt.u16 p, m, 0x7F80; selp.u16 $0, 1, 0, p; }");
  if (name == "__hisinf")  // -1 for -inf, 1 for +inf, else 0
    return f("ib", "{ .reg .pred p, q; setp.eq.b16 p, $1, 0x7F80; setp.eq.b16 q, $1, 0xFF80; selp.s32 $0, 1, 0, p; "
                   "@q mov.s32 $0, -1; }");
  // Bit reinterpretations.
  if (name == "__bfloat16_as_short") return f("sb", "mov.b16 $0, $1;");
  if (name == "__bfloat16_as_ushort") return f("Sb", "mov.b16 $0, $1;");
  if (name == "__short_as_bfloat16") return f("bs", "mov.b16 $0, $1;");
  if (name == "__ushort_as_bfloat16") return f("bS", "mov.b16 $0, $1;");
  // Math: roundings are exact through float32; the rest are the header's float32 approximations.
  if (name == "htrunc") return f("bb", through_float("cvt.rzi.f32.f32 f, f;"));
  if (name == "hceil") return f("bb", through_float("cvt.rpi.f32.f32 f, f;"));
  if (name == "hfloor") return f("bb", through_float("cvt.rmi.f32.f32 f, f;"));
  if (name == "hrint") return f("bb", through_float("cvt.rni.f32.f32 f, f;"));
  if (name == "hsqrt") return f("bb", through_float("sqrt.approx.f32 f, f;"));
  if (name == "hrsqrt") return f("bb", through_float("rsqrt.approx.f32 f, f;"));
  if (name == "hrcp") return f("bb", through_float("rcp.approx.f32 f, f;"));
  if (name == "hexp2") return f("bb", through_float("ex2.approx.f32 f, f;"));
  if (name == "hlog2") return f("bb", through_float("lg2.approx.f32 f, f;"));
  if (name == "hexp") return f("bb", through_float("mul.rn.f32 f, f, 0f3FB8AA3C; ex2.approx.f32 f, f;"));
  if (name == "hlog") return f("bb", through_float("lg2.approx.f32 f, f; mul.rn.f32 f, f, 0f3F317218;"));
  if (name == "hlog10") return f("bb", through_float("lg2.approx.f32 f, f; mul.rn.f32 f, f, 0f3E9A209B;"));
  if (name == "hexp10")  // with the header's one fix-up: bf16 0xBC95 gives 0x3F75
    return f("bb", "{ .reg .f32 f; .reg .b16 r; .reg .pred p; mov.b32 f, {0, $1}; mul.rn.f32 f, f, 0f40549A78; "
                   "ex2.approx.f32 f, f; cvt.rn.bf16.f32 r, f; setp.eq.b16 p, $1, 0xBC95; selp.b16 $0, 0x3F75, r, p; }");
  if (name == "htanh" || (name == "htanh_approx" && !sm90)) return f("bb", through_float("tanh.approx.f32 f, f;"));
  if (name == "htanh_approx") return f("bb", "tanh.approx.bf16 $0, $1;");
  if (name == "hsin") return Bf16Function{std::string(name), "bb", "", "sin"};
  if (name == "hcos") return Bf16Function{std::string(name), "bb", "", "cos"};
  return std::nullopt;
}

}  // namespace

std::optional<Bf16Function> bf16_function(std::string_view name, int cc) {
  if (auto f = fixed(name, cc)) return f;
  return conversion(name);
}

std::string_view bf16_operator_function(std::string_view op) {
  constexpr std::pair<std::string_view, std::string_view> kOps[] = {
      {"+", "__hadd"}, {"-", "__hsub"}, {"*", "__hmul"}, {"/", "__hdiv"}, {"neg", "__hneg"}, {"==", "__heq"},
      {"!=", "__hneu"}, {"<", "__hlt"}, {"<=", "__hle"}, {">", "__hgt"}, {">=", "__hge"}};
  for (const auto& [o, f] : kOps)
    if (o == op) return f;
  return "";
}

std::string_view bf16_math_function(std::string_view math_name) {
  // numba-cuda's bf16.py overloads exactly these math functions for a bfloat16 argument.
  constexpr std::pair<std::string_view, std::string_view> kMath[] = {
      {"trunc", "htrunc"}, {"ceil", "hceil"}, {"floor", "hfloor"}, {"sqrt", "hsqrt"}, {"log", "hlog"},
      {"log10", "hlog10"}, {"cos", "hcos"}, {"sin", "hsin"}, {"tanh", "htanh"}, {"exp", "hexp"}, {"exp2", "hexp2"}};
  for (const auto& [m, f] : kMath)
    if (m == math_name) return f;
  return "";
}

std::string bf16_cast_function(char other, bool to_bf16) {
  if (to_bf16) {
    switch (other) {
      case 'f': return "__float2bfloat16";
      case 'd': return "__double2bfloat16";
      case 's': return "__short2bfloat16_rn";
      case 'S': return "__ushort2bfloat16_rn";
      case 'i': return "__int2bfloat16_rn";
      case 'I': return "__uint2bfloat16_rn";
      case 'l': return "__ll2bfloat16_rn";
      case 'L': return "__ull2bfloat16_rn";
      default: return "";
    }
  }
  // cuda_bf16.hpp's conversion operators: float exactly, integers rounded toward zero.
  switch (other) {
    case 'f': return "__bfloat162float";
    case 'c': return "__bfloat162char_rz";
    case 'C': return "__bfloat162uchar_rz";
    case 's': return "__bfloat162short_rz";
    case 'S': return "__bfloat162ushort_rz";
    case 'i': return "__bfloat162int_rz";
    case 'I': return "__bfloat162uint_rz";
    case 'l': return "__bfloat162ll_rz";
    case 'L': return "__bfloat162ull_rz";
    default: return "";
  }
}

Type bf16_letter_type(char letter) {
  switch (letter) {
    case 'b': return Type::bfloat16();
    case 'f': return Type::floating(32);
    case 'd': return Type::floating(64);
    case 'c': return Type::integer(8, true);
    case 'C': return Type::integer(8, false);
    case 's': return Type::integer(16, true);
    case 'S': return Type::integer(16, false);
    case 'i': return Type::integer(32, true);
    case 'I': return Type::integer(32, false);
    case 'l': return Type::integer(64, true);
    case 'L': return Type::integer(64, false);
    default: return Type::boolean();
  }
}

char bf16_letter(const Type& t) {
  if (t.is_bfloat16()) return 'b';
  if (t.is_bool()) return '?';
  if (t.is_float()) return t.bits() == 32 ? 'f' : t.bits() == 64 ? 'd' : 0;
  if (!t.is_int()) return 0;
  switch (t.bits()) {
    case 8: return t.is_signed() ? 'c' : 'C';
    case 16: return t.is_signed() ? 's' : 'S';
    case 32: return t.is_signed() ? 'i' : 'I';
    default: return t.is_signed() ? 'l' : 'L';
  }
}

std::string_view bf16_function_families() {
  return "arithmetic (__hadd, __hsub, __hmul, __hdiv and their _rn/_sat forms, __hfma, __hfma_sat, __hfma_relu, "
         "__hneg, __habs), compares (__heq, __hne, __hlt, ... and the unordered __hequ, ...), __hmax, __hmin, "
         "__hmax_nan, __hmin_nan, __hisnan, __hisinf, conversions (__float2bfloat16[_rn|_rz|_rd|_ru], "
         "__double2bfloat16, __bfloat162float, __<short|ushort|int|uint|ll|ull>2bfloat16_<rn|rz|rd|ru>, "
         "__bfloat162<short|ushort|int|uint|ll|ull>_<rn|rz|rd|ru>, __bfloat162char_rz, __bfloat162uchar_rz, "
         "__bfloat16_as_short, __bfloat16_as_ushort, __short_as_bfloat16, __ushort_as_bfloat16) and math "
         "(htrunc, hceil, hfloor, hrint, hsqrt, hrsqrt, hrcp, hexp, hexp2, hexp10, hlog, hlog2, hlog10, hsin, "
         "hcos, htanh, htanh_approx)";
}

}  // namespace cubridge::compiler
