// Internal: numba.cuda.fp16 calls (see emitter.hpp): the function's PTX (fp16_functions.hpp) as inline
// assembly over 16-bit registers; also float16's operators that numba-cuda lowers with cuda_fp16.hpp's
// (unary minus, abs, comparisons: the same instructions, kept as written through optimisation and LTO),
// and its casts between float16 and the integers (one cvt instruction each, as numba-cuda writes them).
#include "compiler/lowering/emitter.hpp"
#include "compiler/kernel_library/fp16_functions.hpp"

namespace cubridge::compiler {

Value FunctionEmitter::fp16_call(const Expr& e, const std::vector<Value>& args) {
  return fp16_instruction(e.target, args);
}

Value FunctionEmitter::fp16_instruction(std::string_view name, const std::vector<Value>& args) {
  Fp16Function f = *fp16_function(name);
  if (f.ptx.empty()) {  // htanh: cuda_fp16.hpp's __float2half_rn(tanhf(__half2float(a)))
    Type single = Type::floating(32);
    Value x = convert(args[0], single);
    Value t{ins("call float " + libdevice("tanh", single, 1) + "(float " + x.v + ")"), single};
    return convert(t, Type::floating(16));
  }
  std::string constraints = "=h";
  std::string operands;
  for (std::size_t i = 0; i < args.size(); ++i) {
    Value h = convert(args[i], Type::floating(16));
    std::string bits = ins("bitcast " + llvm_value_type(h.t) + " " + h.v + " to i16");
    constraints += ",h";
    operands += (i ? ", i16 " : "i16 ") + bits;
  }
  std::string r = ins("call i16 asm \"" + std::string(f.ptx) + "\", \"" + constraints + "\"(" + operands + ")");
  if (f.predicate) return {ins("icmp ne i16 " + r + ", 0"), Type::boolean()};
  Type half = Type::floating(16);
  return {ins("bitcast i16 " + r + " to " + llvm_value_type(half)), half};
}

namespace {

// The inline-assembly constraint of an integer register of `bits` (PTX has no 8-bit registers; "c"
// asks for a 16-bit one holding an i8).
const char* int_constraint(int bits) {
  switch (bits) {
    case 8: return "c";
    case 16: return "h";
    case 32: return "r";
    default: return "l";
  }
}

}  // namespace

// numba-cuda lowers these casts as inline PTX: float16 -> integer rounds to the nearest integer, ties to
// even (cvt.rni, saturating at the integer's range: int(float16(2.5)) is 2, int(float16(2.7)) is 3, unlike
// a float32's truncation); integer -> float16 rounds to nearest (cvt.rn), which is what sitofp/uitofp give.
Value FunctionEmitter::fp16_int_convert(const Value& v, const Type& to) {
  bool to_int = to.is_int();
  const Type& integer = to_int ? to : v.t;
  std::string width = std::to_string(integer.bits());
  std::string kind = (integer.is_signed() ? "s" : "u") + width;
  std::string ity = llvm_value_type(integer);
  Type half = Type::floating(16);
  if (to_int) {
    std::string bits = ins("bitcast " + llvm_value_type(half) + " " + v.v + " to i16");
    return {ins("call " + ity + " asm \"cvt.rni." + kind + ".f16 $0, $1;\", \"=" + int_constraint(integer.bits()) +
                ",h\"(i16 " + bits + ")"),
            to};
  }
  std::string r = ins("call i16 asm \"cvt.rn.f16." + kind + " $0, $1;\", \"=h," + int_constraint(integer.bits()) +
                      "\"(" + ity + " " + v.v + ")");
  return {ins("bitcast i16 " + r + " to " + llvm_value_type(half)), half};
}

}  // namespace cubridge::compiler
