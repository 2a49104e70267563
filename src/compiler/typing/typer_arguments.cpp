// Internal: how a call reaches a module function and how its arguments meet the parameters, as Python
// binds them: the callee under another name (a closure or global variable, a path through an imported
// module, an item of a tuple of functions; CompileOptions::function_aliases), keyword arguments and
// default values. After binding, a call's arguments are its kids in parameter order and the emitter sees
// a plain positional call.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

// Python's "missing 2 required positional arguments: 'x' and 'y'".
std::string missing_message(const FunctionDef& def, const std::vector<std::string>& missing) {
  std::string names;
  for (std::size_t i = 0; i < missing.size(); ++i) {
    if (i) names += missing.size() == 2 ? " and " : (i + 1 == missing.size() ? ", and " : ", ");
    names += "'" + missing[i] + "'";
  }
  return def.name + "() missing " + std::to_string(missing.size()) + " required positional argument" +
         (missing.size() == 1 ? "" : "s") + ": " + names;
}

}  // namespace

const FunctionDef* FunctionTyper::user_function(const Expr& callee, const std::string& path) {
  const auto& aliases = prog_.options.function_aliases;
  auto by_alias = [&](const std::string& key) -> const FunctionDef* {
    auto a = aliases.find(key);
    if (a == aliases.end()) return nullptr;
    auto f = prog_.functions.find(a->second);
    return f == prog_.functions.end() ? nullptr : f->second;
  };
  if (callee.kind == ExprKind::Name) {
    if (slot_of(callee.name) >= 0) return nullptr;
    if (const FunctionDef* f = by_alias(callee.name)) return f;
    if (!path.empty()) return by_alias(path);
    auto f = prog_.functions.find(callee.name);
    if (f != prog_.functions.end() && !constant_of(callee.name, callee.loc)) return f->second;
    return nullptr;
  }
  if (!path.empty()) return by_alias(path);  // mod.fn, pkg.sub.fn
  // ops[0](x): an item of a tuple of functions, at a constant index.
  if (callee.kind == ExprKind::Subscript && callee.kids[0]->kind == ExprKind::Name && slot_of(callee.kids[0]->name) < 0) {
    std::optional<std::int64_t> i = const_int(*callee.kids[1]);
    if (i) return by_alias(callee.kids[0]->name + "[" + std::to_string(*i) + "]");
  }
  return nullptr;
}

void FunctionTyper::bind_arguments(Expr& e, const FunctionDef& def) {
  std::size_t nparams = def.params.size();
  if (def.vararg && !(e.keywords.empty() && e.kids.size() - 1 == nparams && e.kids.back()->kind == ExprKind::Tuple &&
                      e.kids.back()->name == kStarredArgument)) {
    // def f(a, *args): the positional arguments after a become one tuple, passed as the keyword `args`.
    std::size_t npositional = e.kids.size() - 1 - e.keywords.size();
    auto packed = std::make_unique<Expr>();
    packed->kind = ExprKind::Tuple;
    packed->loc = e.loc;
    packed->name = kStarredArgument;  // marks the call as bound
    auto first = e.kids.begin() + static_cast<std::ptrdiff_t>(nparams);  // kids[0] is the callee
    auto last = e.kids.begin() + static_cast<std::ptrdiff_t>(1 + npositional);
    if (1 + npositional > nparams) {
      packed->kids.assign(std::make_move_iterator(first), std::make_move_iterator(last));
      e.kids.erase(first, last);
    }
    e.kids.push_back(std::move(packed));
    e.keywords.push_back(def.params.back());
  }
  if (e.keywords.empty() && e.kids.size() - 1 == nparams) return;  // positional, or bound in an earlier pass
  std::size_t npositional = e.kids.size() - 1 - e.keywords.size();
  if (npositional > nparams)
    error(e.loc, def.name + "() takes " + std::to_string(nparams) + " positional argument" + (nparams == 1 ? "" : "s") +
                     " but " + std::to_string(npositional) + (npositional == 1 ? " was" : " were") + " given");
  std::vector<ExprPtr> bound(nparams);
  for (std::size_t i = 0; i < npositional; ++i) bound[i] = std::move(e.kids[i + 1]);
  for (std::size_t k = 0; k < e.keywords.size(); ++k) {
    const std::string& kw = e.keywords[k];
    ExprPtr& value = e.kids[1 + npositional + k];
    auto it = std::find(def.params.begin(), def.params.end(), kw);
    if (it == def.params.end())
      error(value->loc, def.name + "() got an unexpected keyword argument '" + kw + "' (its parameters: " +
                            [&] {
                              std::string s;
                              for (const std::string& p : def.params) s += (s.empty() ? "" : ", ") + p;
                              return s.empty() ? std::string("none") : s;
                            }() + ")");
    auto i = static_cast<std::size_t>(it - def.params.begin());
    if (bound[i]) error(value->loc, def.name + "() got multiple values for argument '" + kw + "'");
    bound[i] = std::move(value);
  }
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < nparams; ++i) {
    if (bound[i]) continue;
    const Expr* given = i < def.defaults.size() ? def.defaults[i].get() : nullptr;
    if (!given) {
      missing.push_back(def.params[i]);
      continue;
    }
    // The value Python computed when the def ran (the Python API passes it as the constant
    // "<default f.param>"); from source alone, the default expression itself, typed here.
    std::string key = "<default " + def.name + "." + def.params[i] + ">";
    if (prog_.options.constants.count(key)) {
      auto name = std::make_unique<Expr>();
      name->kind = ExprKind::Name;
      name->loc = e.loc;
      name->name = key;
      bound[i] = std::move(name);
      continue;
    }
    auto check = [&](auto&& self, const Expr& x) -> void {
      if (stack_left() < stack_reserve()) too_deep(e.loc);
      if (x.kind == ExprKind::Name && slot_of(x.name) >= 0)
        error(e.loc, "the default value of parameter '" + def.params[i] + "' of " + def.name + "() names '" + x.name +
                         "', which is a local variable here; pass the argument explicitly");
      for (const ExprPtr& k : x.kids)
        if (k) self(self, *k);
    };
    check(check, *given);
    try {
      bound[i] = clone_expr(*given);
    } catch (const StackExhausted&) {
      too_deep(e.loc);
    }
  }
  if (!missing.empty()) error(e.loc, missing_message(def, missing));
  e.kids.resize(1);
  for (ExprPtr& b : bound) e.kids.push_back(std::move(b));
  e.keywords.clear();
}

}  // namespace cubridge::compiler::typer_detail
