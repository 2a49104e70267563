// Internal: numba-cuda's bfloat16 in registers (see emitter.hpp): a bfloat16 is its 16 bits in an i16, and
// every operation on it is the PTX of its cuda_bf16 binding (bf16_functions.hpp) as inline assembly;
// casts to and from numbers go through the binding numba-cuda lowers the cast with.
#include "compiler/kernel_library/bf16_functions.hpp"
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

std::pair<const char*, const char*> asm_register_of(char l) {
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

Value FunctionEmitter::bf16_call(const Expr& e, const std::vector<Value>& args) { return bf16_apply(e.target, args); }

Value FunctionEmitter::bf16_apply(std::string_view name, const std::vector<Value>& args) {
  const int cc = m_.options.cc ? m_.options.cc->major * 10 + m_.options.cc->minor : 80;
  Bf16Function f = *bf16_function(name, cc);
  std::vector<Value> in;
  for (std::size_t i = 0; i < args.size(); ++i) in.push_back(convert(args[i], bf16_letter_type(f.signature[i + 1])));
  const char result = f.signature[0];
  if (!f.libdevice.empty()) {  // bf16(<f>f(float(a))): libdevice's float32 function between the conversions
    Value x = bf16_apply("__bfloat162float", in);
    Type f32 = Type::floating(32);
    Value y{ins("call float " + libdevice(f.libdevice, f32, 1) + "(float " + x.v + ")"), f32};
    return bf16_apply("__float2bfloat16_rn", {y});
  }
  auto [rc, rty] = asm_register_of(result);
  std::string constraints = std::string("=") + rc;
  std::string operands;
  for (std::size_t i = 0; i < in.size(); ++i) {
    auto [c, ty] = asm_register_of(f.signature[i + 1]);
    constraints += std::string(",") + c;
    operands += (i ? ", " : "") + std::string(ty) + " " + in[i].v;
  }
  std::string r = ins("call " + std::string(rty) + " asm \"" + f.ptx + "\", \"" + constraints + "\"(" + operands + ")");
  if (result == '?') return {ins("icmp ne i16 " + r + ", 0"), Type::boolean()};
  if (result == 'c' || result == 'C') return {ins("trunc i16 " + r + " to i8"), bf16_letter_type(result)};
  return {r, bf16_letter_type(result)};
}

Value FunctionEmitter::bf16_convert(const Value& v, const Type& to) {
  if (to.is_bfloat16()) {
    const Type& from = v.t;
    if (from.is_float() && from.bits() == 16) return bf16_apply("__float2bfloat16", {convert(v, Type::floating(32))});
    if (from.is_int() && from.bits() == 8)  // numba picks the constructor from int16 (uint16): exact widening
      return bf16_convert(convert(v, Type::integer(16, from.is_signed())), to);
    return bf16_apply(bf16_cast_function(bf16_letter(from), true), {v});
  }
  if (to.is_bool()) return {truth(v), to};
  if (to.is_float() && to.bits() == 64) return convert(bf16_apply("__bfloat162float", {v}), to);
  return bf16_apply(bf16_cast_function(bf16_letter(to), false), {v});
}

std::string FunctionEmitter::bf16_truth(const Value& v) {
  // cuda_bf16's operator bool: any bit but the sign set (NaN is true, -0.0 false)
  std::string magnitude = ins("and i16 " + v.v + ", 32767");
  return ins("icmp ne i16 " + magnitude + ", 0");
}

}  // namespace cubridge::compiler
