// Internal: `x is None` / `x is not None` as numba types them. A value whose type is none (an omitted
// None default, None passed) or a number is known to be None or not: the test is a constant and the
// branch it guards is pruned before typing (numba's dead-branch pruning), so code that only makes sense
// for the other case is never typed. An Optional value (numba's unify of T and none) is tested at run time.
// `x is y` of two values that are not None is numba's generic_is: values of one immutable type (numbers,
// tuples) compare with ==, values of two different types are never the same object (False), and mutable
// values (arrays, records) have no `is` in numba-cuda: refused by name.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

Type FunctionTyper::is_none(Expr& e) {
  bool negate = e.cmp_ops[0] == CmpOp::IsNot;
  Type a = expr_optional(*e.kids[0]);
  Type b = expr_optional(*e.kids[1]);
  if (!a.is_unknown() && !b.is_unknown() && !a.is_none() && !b.is_none()) return is_value(e, a, b, negate);
  if ((a.is_optional() && b.is_none()) || (b.is_optional() && a.is_none())) {
    e.formals = {a.is_optional() ? a : b};  // the emitter reads the Optional's flag
    return Type::boolean();
  }
  // A local variable's type may still widen (to Optional) in a later pass: fold once types are final.
  auto local = [&](const Expr& x) {
    return x.kind == ExprKind::Name && x.slot >= static_cast<int>(fn_.def->params.size());
  };
  if (a.is_unknown() || b.is_unknown() || (!strict_ && (local(*e.kids[0]) || local(*e.kids[1])))) {
    e.formals = {Type()};
    return Type::boolean();
  }
  e.kind = ExprKind::Bool;
  e.name = "is None";  // is_none_test: the If it guards is pruned
  e.ival = (a.is_none() && b.is_none()) != negate;
  e.kids.clear();
  e.cmp_ops.clear();
  e.formals.clear();
  return Type::boolean();
}

Type FunctionTyper::equals_none(Expr& e, const Type& a, const Type& b) {
  // numba prunes a branch on `x == None` by the operands' types (dead_branch_prune's prune_by_type): a value
  // whose type is not none never equals None. An Optional operand would need a run-time test: refused.
  for (const ExprPtr& k : e.kids)  // an Optional operand was unwrapped by expr(): its type is the Unwrap's kid's
    if (k->kind == ExprKind::Unwrap && k->kids[0]->type.is_optional())
      error(e.loc, "comparing an Optional value (" + k->kids[0]->type.name() + ") with None by == or != is not "
                   "supported; test it with `is None` / `is not None`");
  auto local = [&](const Expr& x) {
    return x.kind == ExprKind::Name && x.slot >= static_cast<int>(fn_.def->params.size());
  };
  if (a.is_unknown() || b.is_unknown() || (!strict_ && (local(*e.kids[0]) || local(*e.kids[1])))) {
    e.formals = {Type()};  // a local's type may still widen to Optional: decide once types are final
    return Type::boolean();
  }
  bool equal = a.is_none() && b.is_none();
  e.kind = ExprKind::Bool;
  e.ival = equal == (e.cmp_ops[0] == CmpOp::Eq) ? 1 : 0;
  e.kids.clear();
  e.cmp_ops.clear();
  e.formals.clear();
  return Type::boolean();
}

Type FunctionTyper::is_value(Expr& e, const Type& a, const Type& b, bool negate) {
  const char* op = negate ? "is not" : "is";
  for (const Type* t : {&a, &b})
    if (t->is_array() || t->is_record() || t->is_grid_group() || t->is_optional())
      error(e.loc, std::string("the '") + op + "' operator on a value of type " + t->name() + " is not supported (numba-cuda "
                   "compares numbers and tuples with it, and None: x is None); compare values with == and !=");
  // A local's type may still widen in a later lenient pass: decide once types are final.
  if (!strict_) {
    e.formals = {Type()};
    return Type::boolean();
  }
  if (a == b) {
    e.cmp_ops[0] = negate ? CmpOp::Ne : CmpOp::Eq;
    return expr_inner(e);
  }
  e.kind = ExprKind::Bool;
  e.ival = negate ? 1 : 0;
  e.kids.clear();
  e.cmp_ops.clear();
  e.formals.clear();
  return Type::boolean();
}

}  // namespace cubridge::compiler::typer_detail
