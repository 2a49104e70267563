// Internal: typing of tuple indices that are not integer literals (see function_typer.hpp). A constant
// expression (-1, a module constant N) is folded into a literal, so any tuple takes it as t[2] does;
// a run-time integer indexes homogeneous tuples only, as numba's UniTuple getitem does (the item type is
// the tuple's one type; emit_tuple_index.cpp wraps negatives and raises IndexError out of range).
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

bool FunctionTyper::fold_tuple_index(Expr& idx) {
  auto k = const_int(idx);
  if (!k) return false;
  idx.kind = ExprKind::Int;
  idx.ival = static_cast<std::uint64_t>(*k);
  idx.int_unsigned = false;
  idx.kids.clear();
  return true;
}

Type FunctionTyper::tuple_subscript(Expr& e, const Type& base) {
  Expr& idx = *e.kids[1];
  Type t = expr(idx);
  if (t.is_unknown()) return t;
  if (!t.is_int()) error(idx.loc, "a tuple index must be an integer, got " + t.name());
  const std::vector<Type>& items = base.elements();
  if (!std::all_of(items.begin(), items.end(), [&](const Type& x) { return x == items[0]; }))
    error(idx.loc, "the heterogeneous tuple " + base.name() + " can only be indexed with an integer constant "
                       "(a variable index needs items of one type, as numba's UniTuple)");
  fn_.can_raise = true;  // IndexError out of range
  return items[0];
}

}  // namespace cubridge::compiler::typer_detail
