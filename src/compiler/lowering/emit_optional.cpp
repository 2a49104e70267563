// Internal: numba's Optional(T) in the emitter: a {T, i1 valid} pair. Values and None convert into it,
// `x is None` reads the flag, and where a T is needed (an Unwrap node, set by the typer) the value is
// taken out; numba raises TypeError there when it is None, which a compiled function reports as its
// status (the caller returns it, as for a failed assert) under the Numba ABI or with debug.
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

Value FunctionEmitter::to_optional(const Value& v, const Type& to) {
  const Type& value_type = to.optional_value();
  std::string ty = llvm_value_type(to);
  if (v.t.is_none()) return {ins("insertvalue " + ty + " undef, i1 false, 1"), to};
  Value inner = v.t.is_optional() ? Value{ins("extractvalue " + llvm_value_type(v.t) + " " + v.v + ", 0"), v.t.optional_value()} : v;
  std::string valid = v.t.is_optional() ? optional_valid(v) : "true";
  Value converted = convert(inner, value_type);
  std::string agg = ins("insertvalue " + ty + " undef, " + llvm_value_type(value_type) + " " + converted.v + ", 0");
  return {ins("insertvalue " + ty + " " + agg + ", i1 " + valid + ", 1"), to};
}

std::string FunctionEmitter::optional_valid(const Value& v) {
  return ins("extractvalue " + llvm_value_type(v.t) + " " + v.v + ", 1");
}

Value FunctionEmitter::unwrap(const Expr& e) {
  Value v = expr(*e.kids[0]);
  if (!v.t.is_optional()) return convert(v, e.type);
  if (m_.options.abi == Abi::numba || m_.options.debug) {
    // numba's optional_to_any: TypeError("expected <type>, got None")
    raise_if(ins("xor i1 " + optional_valid(v) + ", true"), "builtins.TypeError",
             "expected " + v.t.optional_value().name() + ", got None", e.loc);
  }
  return convert(Value{ins("extractvalue " + llvm_value_type(v.t) + " " + v.v + ", 0"), v.t.optional_value()}, e.type);
}

}  // namespace cubridge::compiler
