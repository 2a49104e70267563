// Internal: typing of calls of functions numba implements through an @overload (see function_typer.hpp).
// numba types such a call by calling the overload function with the argument types and compiling the
// implementation it returns; the front end cannot run Python, so a call whose types no resolution covers
// throws OverloadNeeded with the types, the Python API calls the overload function and compiles again
// with the implementation added as a unit and its resolution listed. A resolved call is a plain call of the
// implementation (keywords and defaults bound to its parameters, as Python binds them).
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

Type FunctionTyper::overloaded_call(Expr& e, const std::string& name,
                                    const std::vector<OverloadResolution>& resolutions) {
  // The call's argument types as written: positional ones, then the keyword ones in the call's order. Once
  // the call is bound to an implementation's parameters, they are read back through its parameter names.
  const bool bound = e.overload_positional >= 0;
  const std::vector<std::string>& keywords = bound ? e.overload_keywords : e.keywords;
  const std::size_t npositional = bound ? static_cast<std::size_t>(e.overload_positional)
                                        : e.kids.size() - 1 - e.keywords.size();
  const FunctionDef* impl = nullptr;
  if (bound) impl = prog_.functions.find(e.target)->second;
  std::vector<Type> args;
  // numba types an integer written as such, or a global or closure constant, as IntegerLiteral: those values
  // are passed on. It may also type a bool constant or a local variable holding a constant as a literal,
  // whose value is not known here: those arguments are listed, for prefer_literal overloads to refuse.
  std::vector<std::optional<std::int64_t>> literals;
  std::vector<std::size_t> unknown_literals;
  const std::size_t nparams = fn_.def != nullptr ? fn_.def->params.size() : 0;
  bool unknown = false;
  // A function passed (a module function, a lifted nested def, or a function this one was given): numba
  // types it as a Dispatcher of that function, so it is reported by name (its type here is None) and a
  // resolution holds for that function only.
  std::vector<std::string> functions;
  auto function_passed = [&](const Expr& a) -> std::string {
    if (a.kind != ExprKind::Name || slot_of(a.name) >= 0 || a.name.starts_with("<")) return "";
    if (auto f = fn_.static_functions.find(a.name); f != fn_.static_functions.end()) return f->second;
    const FunctionDef* f = user_function(a, "");
    return f != nullptr ? f->name : "";
  };
  auto add = [&](Expr& a) {
    if (std::string f = function_passed(a); !f.empty()) {
      functions.push_back(std::move(f));
      args.push_back(Type::none());
      literals.push_back(std::nullopt);
      return;
    }
    functions.emplace_back();
    Type t = expr(a);
    unknown = unknown || t.is_unknown();
    args.push_back(t);
    const Expr& v = a.kind == ExprKind::Unary && a.unop == UnaryOp::Neg ? *a.kids[0] : a;
    // A parameter is never a literal: numba compiles a function for its arguments' plain types (a parameter
    // bound here at compile time included).
    const bool parameter = a.kind == ExprKind::Name && fn_.def != nullptr &&
                           std::find(fn_.def->params.begin(), fn_.def->params.end(), a.name) != fn_.def->params.end();
    std::optional<std::int64_t> value;
    if (v.kind == ExprKind::Int && !v.int_unsigned) value = const_int(a);
    else if (!parameter && a.constant != nullptr && a.constant->type.is_int() && a.constant->type.is_signed())
      value = a.constant->i;
    const int slot = a.kind == ExprKind::Name ? slot_of(a.name) : -1;
    const bool maybe = !parameter &&
                       ((a.kind == ExprKind::Bool && a.name != "is None") ||
                        (a.constant != nullptr && !value && (a.constant->type.is_int() || a.constant->type.is_bool())) ||
                        (slot >= 0 && static_cast<std::size_t>(slot) >= nparams && (t.is_int() || t.is_bool())));
    if (!value && maybe) unknown_literals.push_back(args.size() - 1);
    literals.push_back(value);
  };
  // Bound to an implementation `def impl(f, *args)`, the positional arguments after f sit in one packed tuple
  // (bind_arguments): read back one by one, as the call wrote them.
  std::vector<Expr*> positional;
  if (bound && impl->vararg && e.kids.size() == impl->params.size() + 1 &&
      e.kids.back()->kind == ExprKind::Tuple && e.kids.back()->name == kStarredArgument) {
    for (std::size_t i = 1; i < impl->params.size(); ++i) positional.push_back(e.kids[i].get());
    for (ExprPtr& k : e.kids.back()->kids) positional.push_back(k.get());
  } else {
    for (std::size_t i = 0; i < npositional && i + 1 < e.kids.size(); ++i) positional.push_back(e.kids[i + 1].get());
  }
  if (positional.size() < npositional)
    error(e.loc, "the arguments of this call of '" + name + "' (an @overload) cannot be read back after binding");
  for (std::size_t i = 0; i < npositional; ++i) add(*positional[i]);
  for (std::size_t k = 0; k < keywords.size(); ++k) {
    std::size_t at = 1 + npositional + k;
    if (bound) at = 1 + static_cast<std::size_t>(std::find(impl->params.begin(), impl->params.end(), keywords[k]) -
                                                  impl->params.begin());
    add(*e.kids[at]);
  }
  if (unknown) return Type();  // typed in a later pass
  const bool passes_functions = std::any_of(functions.begin(), functions.end(), [](const auto& f) { return !f.empty(); });
  auto same_functions = [&](const OverloadResolution& r) {  // none listed: no function passed
    return r.functions.empty() ? !passes_functions : r.functions == functions;
  };
  const OverloadResolution* found = nullptr;
  for (const OverloadResolution& r : resolutions)  // one for these literal values wins over one for any values
    if (r.args == args && r.keywords == keywords && same_functions(r) &&
        (r.literals.empty() || r.literals == literals) &&
        (found == nullptr || !r.literals.empty()))
      found = &r;
  if (bound && (!found || found->function != e.target))
    error(e.loc, "the argument types of this call of '" + name + "' (an @overload) changed between typing passes; "
                 "numba would pick its implementation for the final types, which cubridge cannot do here: give the "
                 "arguments stable types (convert them before the loop)");
  if (!found) {
    std::string shown;
    for (std::size_t i = 0; i < args.size(); ++i)
      shown += (i ? ", " : "") + (i >= npositional ? keywords[i - npositional] + "=" : std::string()) +
               (functions[i].empty() ? args[i].name() : "function " + functions[i]);
    throw OverloadNeeded(file() + ":" + std::to_string(e.loc.line) + ":" + std::to_string(e.loc.col) + ": '" + name +
                             "' has a numba @overload, and no implementation was resolved for (" + shown + ")",
                         name, args, keywords, literals, unknown_literals, functions);
  }
  auto f = prog_.functions.find(found->function);
  if (f == prog_.functions.end())
    error(e.loc, "the implementation '" + found->function + "' resolved for '" + name + "' is not among the units");
  if (!bound) {
    e.overload_positional = static_cast<int>(npositional);
    e.overload_keywords = e.keywords;
    e.target = found->function;
  }
  Type r = module_function_call(e, *f->second);
  e.target = found->function;  // user_call keeps it; read back by the later passes
  return r;
}

}  // namespace cubridge::compiler::typer_detail
