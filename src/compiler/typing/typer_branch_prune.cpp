// Internal: numba's dead-branch pruning (core/analysis.py dead_branch_prune, after
// rewrite_semantic_constants), which runs before typing, so the pruned branch is never typed: an assignment
// there does not widen a variable's type and code there need not type (`if a.ndim == 2: a.shape[1]` for a
// 1-d a). numba prunes
//   - `if L op R:` (one comparison) where both operands are constants: literals, module globals and closure
//     variables bound to numbers, local variables whose one definition is such a constant, and the semantic
//     constants `a.ndim` of an array argument (and `len(t)` of a tuple argument);
//   - `if C:` where C is a global, closure variable (None among them) or single-definition local constant;
//   - `if L is R:` / `is not` (numba evaluates operator.is_ on the two Python objects): decided here where
//     the answer does not hang on CPython's object caches, i.e. where an operand is True, False or None
//     (singletons: the same object exactly when the same kind and value; True is not 1); two numbers are
//     left to run time.
// A literal argument (a helper called with 32) is not a constant here: numba prunes on arguments only
// against None (prune_by_type), which `is None` folding (typer_none.cpp) does.
// numba prunes before its SSA, so a definition in a pruned branch reaches no read: the tests on literals and
// global or closure constants are decided before variables are versioned (prune_constant_branches), the
// others (single-definition locals, a.ndim, len(t), which need types) while typing.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

struct PruneValue {
  bool none = false;
  bool boolean = false;  // True or False (a singleton, for `is`)
  bool integral = false;  // compare as integers (exactly), else as doubles
  std::int64_t i = 0;
  double d = 0;
};

namespace {

// The name of the literal that stands for a test decided before versioning (prune_constant_branches).
constexpr const char* kPrunedTest = "pruned test";

std::optional<PruneValue> of_constant(const Constant& c) {
  PruneValue v;
  const Type& t = c.type;
  if (t.is_bool() || (t.is_int() && t.is_signed())) {
    v.integral = true;
    v.boolean = t.is_bool();
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

// `a op b` of two constants, by numba's rules (see the top), or nullopt where it is left to run time.
std::optional<bool> decide(CmpOp op, const PruneValue& a, const PruneValue& b) {
  if (op == CmpOp::Is || op == CmpOp::IsNot) {
    const bool singleton = a.none || b.none || a.boolean || b.boolean;
    if (!singleton) return std::nullopt;  // two numbers: identity is CPython's business, tested at run time
    const bool same = a.none == b.none && a.boolean == b.boolean && (a.none || a.i == b.i);
    return op == CmpOp::Is ? same : !same;
  }
  if (a.none || b.none) {  // prune_by_type: None against a value of another type
    if (op == CmpOp::Eq) return a.none && b.none;
    if (op == CmpOp::Ne) return !(a.none && b.none);
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
  if (a.integral && b.integral) return cmp(a.i, b.i);
  double x = a.integral ? static_cast<double>(a.i) : a.d, y = b.integral ? static_cast<double>(b.i) : b.d;
  return cmp(x, y);
}

void bound_names(const std::vector<StmtPtr>& body, std::set<std::string>& out) {
  auto target = [&](auto&& self, const Expr& t) -> void {
    if (t.kind == ExprKind::Name) out.insert(t.name);
    if (t.kind == ExprKind::Tuple)
      for (const ExprPtr& k : t.kids) self(self, *k);
  };
  for (const StmtPtr& s : body) {
    for (const ExprPtr& t : s->targets)
      if (t) target(target, *t);
    bound_names(s->body, out);
    bound_names(s->orelse, out);
  }
}

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
      v.boolean = true;
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
  if (test.kind == ExprKind::Bool && test.name == kPrunedTest) return test.ival != 0;  // decided before versioning
  if (test.kind == ExprKind::Name && (test.slot >= 0 || test.constant)) {  // `if C:` (prune_by_predicate)
    auto v = prune_operand(test, 0);
    if (!v) return std::nullopt;
    return is_true(*v);
  }
  if (test.kind != ExprKind::Compare || test.cmp_ops.size() != 1 || test.kids.size() != 2) return std::nullopt;
  auto a = prune_operand(*test.kids[0], 0), b = prune_operand(*test.kids[1], 0);
  if (!a || !b) return std::nullopt;
  return decide(test.cmp_ops[0], *a, *b);
}

std::optional<PruneValue> FunctionTyper::unbound_constant(const Expr& e, const std::set<std::string>& bound) {
  if (e.kind != ExprKind::Name) return prune_operand(e, 0);  // literals (and -literal)
  if (bound.count(e.name)) return std::nullopt;
  const Constant* c = constant_of(e.name, e.loc);
  return c ? of_constant(*c) : std::nullopt;
}

void FunctionTyper::prune_constant_branches(std::vector<StmtPtr>& body) {
  std::set<std::string> bound(fn_.def->params.begin(), fn_.def->params.end());
  bound_names(body, bound);
  auto walk = [&](auto&& self, std::vector<StmtPtr>& stmts) -> void {
    for (StmtPtr& s : stmts) {
      if (s->kind == StmtKind::If && s->test) {
        const Expr& t = *s->test;
        std::optional<bool> taken;
        if (t.kind == ExprKind::Name) {
          if (auto v = unbound_constant(t, bound)) taken = is_true(*v);
        } else if (t.kind == ExprKind::Compare && t.cmp_ops.size() == 1 && t.kids.size() == 2) {
          auto a = unbound_constant(*t.kids[0], bound), b = unbound_constant(*t.kids[1], bound);
          if (a && b) taken = decide(t.cmp_ops[0], *a, *b);
        }
        if (taken) {
          (*taken ? s->orelse : s->body).clear();
          auto literal = std::make_unique<Expr>();
          literal->kind = ExprKind::Bool;
          literal->ival = *taken ? 1 : 0;
          literal->name = kPrunedTest;
          literal->loc = t.loc;
          s->test = std::move(literal);
        }
      }
      self(self, s->body);
      self(self, s->orelse);
    }
  };
  walk(walk, body);
}

}  // namespace cubridge::compiler::typer_detail
