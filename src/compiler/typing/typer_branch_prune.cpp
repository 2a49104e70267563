// Internal: numba's dead-branch pruning (core/analysis.py dead_branch_prune, after
// rewrite_semantic_constants), which runs before typing, so the pruned branch is never typed: an assignment
// there does not widen a variable's type and code there need not type (`if a.ndim == 2: a.shape[1]` for a
// 1-d a). numba prunes
//   - `if L op R:` (one comparison) where both operands are constants: literals, module globals and closure
//     variables bound to numbers, local variables whose one definition is such a constant, and the semantic
//     constants `a.ndim` of an array argument (and `len(t)` of a tuple argument);
//   - `if C:` where C is a global, closure variable (None among them) or single-definition local constant.
// A literal argument (a helper called with 32) is not a constant here: numba prunes on arguments only
// against None (prune_by_type), which `is None` folding (typer_none.cpp) does.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

struct PruneValue {
  bool none = false;
  bool integral = false;  // compare as integers (exactly), else as doubles
  std::int64_t i = 0;
  double d = 0;
};

namespace {

std::optional<PruneValue> of_constant(const Constant& c) {
  PruneValue v;
  const Type& t = c.type;
  if (t.is_bool() || (t.is_int() && t.is_signed())) {
    v.integral = true;
    v.i = c.i;
  } else if (t.is_int()) {
    if (c.u > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
    v.integral = true;
    v.i = static_cast<std::int64_t>(c.u);
  } else if (t.is_float()) {
    v.d = c.re;
  } else if (t.is_none()) {
    v.none = true;  // a global or closure variable bound to None: false
  } else {
    return std::nullopt;  // complex, tuples: not pruned here
  }
  return v;
}

bool is_true(const PruneValue& v) { return !v.none && (v.integral ? v.i != 0 : v.d != 0); }

}  // namespace

std::optional<PruneValue> FunctionTyper::prune_operand(const Expr& e, int depth) {
  if (depth > 16) return std::nullopt;
  PruneValue v;
  switch (e.kind) {
    case ExprKind::Int:
      if (e.int_unsigned) return std::nullopt;
      v.integral = true;
      v.i = static_cast<std::int64_t>(e.ival);
      return v;
    case ExprKind::Bool:
      if (e.name == "is None") return std::nullopt;  // a folded test, not a written constant
      v.integral = true;
      v.i = static_cast<std::int64_t>(e.ival);
      return v;
    case ExprKind::Float: v.d = e.fval; return v;
    case ExprKind::NoneLit: v.none = true; return v;
    case ExprKind::Unary: {
      if (e.unop != UnaryOp::Neg || e.kids[0]->kind == ExprKind::Unary) return std::nullopt;
      auto k = prune_operand(*e.kids[0], depth + 1);  // CPython folds -1 into a constant
      if (!k || k->none) return std::nullopt;
      if (k->integral) k->i = -k->i;
      else k->d = -k->d;
      return k;
    }
    case ExprKind::Name: {
      if (e.slot < 0) {
        if (fn_.static_constants.count(e.name)) return std::nullopt;  // an argument (see above)
        const Constant* c = e.constant ? e.constant : nullptr;
        return c ? of_constant(*c) : std::nullopt;
      }
      // A local of one definition `name = <constant>` (find_const follows the assignment).
      const FunctionDef& def = *fn_.def;
      if (std::find(def.params.begin(), def.params.end(), e.name) != def.params.end()) return std::nullopt;
      const Stmt* only = single_assignment(e.name);
      if (only == nullptr) return std::nullopt;
      return prune_operand(*only->value, depth + 1);
    }
    case ExprKind::Attribute: {
      // rewrite_semantic_constants: a.ndim of an array argument.
      const Expr& base = *e.kids[0];
      if (e.name != "ndim" || base.kind != ExprKind::Name || base.slot < 0 ||
          base.slot >= static_cast<int>(fn_.def->params.size()) || !base.type.is_array())
        return std::nullopt;
      v.integral = true;
      v.i = base.type.ndim();
      return v;
    }
    case ExprKind::Call: {
      // rewrite_semantic_constants: len(t) of a tuple argument.
      if (e.callee != Callee::Builtin || e.target != "len" || e.kids.size() != 2) return std::nullopt;
      const Expr& arg = *e.kids[1];
      if (arg.kind != ExprKind::Name || arg.slot < 0 || arg.slot >= static_cast<int>(fn_.def->params.size()) ||
          !arg.type.is_tuple())
        return std::nullopt;
      v.integral = true;
      v.i = static_cast<std::int64_t>(arg.type.elements().size());
      return v;
    }
    default: return std::nullopt;
  }
}

std::optional<bool> FunctionTyper::pruned_test(const Expr& test) {
  if (test.kind == ExprKind::Name && (test.slot >= 0 || test.constant)) {  // `if C:` (prune_by_predicate)
    auto v = prune_operand(test, 0);
    if (!v) return std::nullopt;
    return is_true(*v);
  }
  if (test.kind != ExprKind::Compare || test.cmp_ops.size() != 1 || test.kids.size() != 2) return std::nullopt;
  auto a = prune_operand(*test.kids[0], 0), b = prune_operand(*test.kids[1], 0);
  if (!a || !b) return std::nullopt;
  CmpOp op = test.cmp_ops[0];
  if (a->none || b->none) {  // prune_by_type: None against a value of another type
    if (op == CmpOp::Eq) return a->none && b->none;
    if (op == CmpOp::Ne) return !(a->none && b->none);
    return std::nullopt;
  }
  auto cmp = [&](auto x, auto y) -> std::optional<bool> {
    switch (op) {
      case CmpOp::Eq: return x == y;
      case CmpOp::Ne: return x != y;
      case CmpOp::Lt: return x < y;
      case CmpOp::Le: return x <= y;
      case CmpOp::Gt: return x > y;
      case CmpOp::Ge: return x >= y;
      default: return std::nullopt;
    }
  };
  if (a->integral && b->integral) return cmp(a->i, b->i);
  double x = a->integral ? static_cast<double>(a->i) : a->d, y = b->integral ? static_cast<double>(b->i) : b->d;
  return cmp(x, y);
}

}  // namespace cubridge::compiler::typer_detail
