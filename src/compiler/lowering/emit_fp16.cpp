// Internal: numba.cuda.fp16 calls (see emitter.hpp): the function's PTX (fp16_functions.hpp) as inline
// assembly over 16-bit registers; also float16's operators that numba-cuda lowers with cuda_fp16.hpp's
// (unary minus, abs, comparisons: the same instructions, kept as written through optimisation and LTO).
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

}  // namespace cubridge::compiler
