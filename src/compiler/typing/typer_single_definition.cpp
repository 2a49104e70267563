// Internal: local variables whose value is known when the function is compiled. numba reads a constant
// through a variable that has exactly one definition in the function (ir_utils.find_const over
// get_definition), so `N = 100; sm = cuda.shared.array(N, int32)` has a constant shape. A parameter, a
// second assignment, an augmented assignment, a for-loop target or a tuple unpacking is another
// definition (or not a constant one), and then the variable is a run-time value.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

bool binds(const Expr& target, const std::string& name) {
  if (target.kind == ExprKind::Name) return target.name == name;
  if (target.kind == ExprKind::Tuple)
    return std::any_of(target.kids.begin(), target.kids.end(), [&](const ExprPtr& k) { return binds(*k, name); });
  return false;
}

/// Counts the definitions of `name` in `body`; `only` is the one definition when it is `name = value`.
void definitions(const std::vector<StmtPtr>& body, const std::string& name, int& count, const Stmt*& only) {
  for (const StmtPtr& s : body) {
    for (const ExprPtr& t : s->targets) {
      if (!binds(*t, name)) continue;
      ++count;
      bool plain = s->kind == StmtKind::Assign && t->kind == ExprKind::Name;
      only = plain ? s.get() : nullptr;
    }
    definitions(s->body, name, count, only);
    definitions(s->orelse, name, count, only);
  }
}

}  // namespace

const Stmt* FunctionTyper::single_assignment(const std::string& name) const {
  const FunctionDef& def = *fn_.def;
  if (std::find(def.params.begin(), def.params.end(), name) != def.params.end()) return nullptr;
  int count = 0;
  const Stmt* only = nullptr;
  definitions(def.body, name, count, only);
  return count == 1 ? only : nullptr;
}

std::optional<std::int64_t> FunctionTyper::single_definition_int(const std::string& name) {
  const Stmt* only = single_assignment(name);
  if (only == nullptr || single_definition_depth_ > 16) return std::nullopt;  // N = M; M = N
  ++single_definition_depth_;
  std::optional<std::int64_t> v = const_int(*only->value);
  --single_definition_depth_;
  return v;
}

}  // namespace cubridge::compiler::typer_detail
