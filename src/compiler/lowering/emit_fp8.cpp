// Internal: numba-cuda's fp8 in registers (see emitter.hpp): an fp8 is its byte in an i8; every conversion is
// the PTX of its cuda_fp8.hpp operation (fp8_functions.hpp) as inline assembly, with 8- and 16-bit values
// (fp8 bytes, float16 and bfloat16 bits, 8/16-bit integers) in "h" registers.
#include <sstream>

#include "compiler/kernel_library/fp8_functions.hpp"
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {
namespace {

// The inline-assembly constraint and LLVM type of a letter's register.
std::pair<const char*, const char*> fp8_register(char l) {
  switch (l) {
    case 'f': return {"f", "float"};
    case 'd': return {"d", "double"};
    case 'i':
    case 'I': return {"r", "i32"};
    case 'l':
    case 'L': return {"l", "i64"};
    default: return {"h", "i16"};
  }
}

// Runs `code` on `in` (already of the argument's LLVM type, 8-bit values widened), giving the result register.
struct Fp8Asm {
  const Fp8Code& code;
  std::string call(const std::string& in) const {
    auto [rc, rty] = fp8_register(code.signature[0]);
    auto [ac, aty] = fp8_register(code.signature[1]);
    return "call " + std::string(rty) + " asm \"" + code.ptx + "\", \"=" + rc + "," + ac + "\"(" + aty + " " + in + ")";
  }
};

}  // namespace

Value FunctionEmitter::fp8_convert(const Value& v, const Type& to) {
  const int cc = m_.options.cc ? m_.options.cc->major * 10 + m_.options.cc->minor : 89;
  if (to.is_bool()) return {truth(v), to};
  const bool into = to.is_fp8();
  const Type& other = into ? v.t : to;
  char letter = fp8_letter(other);
  std::optional<Fp8Code> code = into ? fp8_construct(to, letter, cc) : fp8_convert_to(v.t, letter, cc);
  if (!code)  // the typer refuses every other pair; never emit a conversion numba-cuda does not have
    fail("", SourceLoc{}, "cannot convert " + v.t.name() + " to " + to.name() + " (cuda_fp8 has no such conversion)");
  // register in: 8-bit values widen (integers by their sign), float16 as its bits
  std::string in = v.v;
  if (v.t.is_fp8() || (v.t.is_int() && v.t.bits() == 8))
    in = ins(std::string(v.t.is_int() && v.t.is_signed() ? "sext" : "zext") + " i8 " + v.v + " to i16");
  else if (v.t.is_float() && v.t.bits() == 16)
    in = ins("bitcast half " + v.v + " to i16");
  std::string r = ins(Fp8Asm{*code}.call(in));
  if (to.is_fp8() || (to.is_int() && to.bits() == 8)) return {ins("trunc i16 " + r + " to i8"), to};
  if (to.is_float() && to.bits() == 16) return {ins("bitcast i16 " + r + " to half"), to};
  return {r, to};
}

std::string FunctionEmitter::fp8_truth(const Value& v) {
  // cuda_fp8.hpp's operator bool: e4m3/e5m2 any bit but the sign set; e8m0 always true
  if (v.t.kind() == TypeKind::Fp8E8M0) return "true";
  std::string magnitude = ins("and i8 " + v.v + ", 127");
  return ins("icmp ne i8 " + magnitude + ", 0");
}

Value FunctionEmitter::fp8_call(const Expr& e, const std::vector<Value>& args) {
  const int cc = m_.options.cc ? m_.options.cc->major * 10 + m_.options.cc->minor : 89;
  std::istringstream target(e.target);
  std::string name;
  int sat = 0, third = 0;
  target >> name >> sat >> third;
  const Type raw = e.formals[0];
  Value x = convert(args[0], raw);
  std::string in;
  char from;
  if (name == "cvt_e8m0_to_bf16raw") {
    in = ins("zext i8 " + x.v + " to i16");
    Fp8Code code = fp8_cvt_e8m0_to_bf16raw();
    std::string r = ins(Fp8Asm{code}.call(in));
    return {ins("insertvalue {i16} undef, i16 " + r + ", 0"), raw};
  }
  if (raw.is_vector()) {  // a bfloat16_raw: its bits
    in = ins("extractvalue {i16} " + x.v + ", 0");
    from = 'S';
  } else {
    in = x.v;
    from = raw.bits() == 64 ? 'd' : 'f';
  }
  const auto s = static_cast<Fp8Saturation>(sat);
  Fp8Code code = name.ends_with("_to_fp8") ? fp8_cvt_to_fp8(from, s, static_cast<Fp8Interpretation>(third), cc)
                                           : *fp8_cvt_to_e8m0(from, s, static_cast<CudaRoundMode>(third), cc);
  std::string r = ins(Fp8Asm{code}.call(in));
  return {ins("trunc i16 " + r + " to i8"), Type::integer(8, false)};
}

}  // namespace cubridge::compiler
