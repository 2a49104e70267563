// Internal: homogeneous tuples (numba's UniTuple) indexed by a run-time integer (see emitter.hpp). Their
// items share one LLVM type, so the tuple's struct in memory is laid out as an array of that type and an
// item is addressed by position; t[i] with a variable i, loops over tuples and tuple sources of slice
// stores all read items this way.
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

std::string FunctionEmitter::tuple_in_memory(const Value& tuple) {
  std::string ty = llvm_value_type(tuple.t);
  std::string slot = alloca(ty);
  line("store " + ty + " " + tuple.v + ", " + ty + "* " + slot);
  return slot;
}

Value FunctionEmitter::tuple_item_at(const std::string& held, const Type& item, std::size_t n, const std::string& index) {
  std::string ity = llvm_value_type(item), arr = "[" + std::to_string(n) + " x " + ity + "]";
  std::string tty = "{";
  for (std::size_t k = 0; k < n; ++k) tty += (k ? ", " : "") + ity;
  tty += "}";
  std::string as_array = ins("bitcast " + tty + "* " + held + " to " + arr + "*");
  std::string at = ins("getelementptr " + arr + ", " + arr + "* " + as_array + ", i64 0, i64 " + index);
  return load(at, item);
}

Value FunctionEmitter::tuple_subscript(const Expr& e) {
  Value t = expr(*e.kids[0]);
  const Expr& index = *e.kids[1];
  Value raw = expr(index);
  std::size_t n = t.t.elements().size();
  // numba switches on the index as an intp: cases 0..n-1 and -n..-1; anything else raises IndexError.
  std::string i = convert(raw, Type::integer(64, raw.t.is_signed())).v;
  std::string wrapped = ins("select i1 " + ins("icmp slt i64 " + i + ", 0") + ", i64 " +
                            ins("add i64 " + i + ", " + std::to_string(n)) + ", i64 " + i);
  raise_if(ins("icmp uge i64 " + wrapped + ", " + std::to_string(n)), "builtins.IndexError", "tuple index out of range",
           e.loc);
  return tuple_item_at(tuple_in_memory(t), e.type, n, wrapped);
}

}  // namespace cubridge::compiler
