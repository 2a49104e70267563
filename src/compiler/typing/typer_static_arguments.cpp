// Internal: arguments bound at compile time (see function_typer.hpp). numba types a function, a number type,
// an intrinsic such as cuda.atomic.add, or a literal (an integer, a string) passed to a device function as
// part of the callee's signature (Dispatcher, NumberClass, Function and literal types), so a helper written as
//     def apply(ary, idx, value, dtype, n, op, cast): sm = cuda.shared.array(n, dtype); op(sm, cast(idx), value)
// is compiled once per (dtype, n, op, cast) it is called with. Here such a parameter gets no variable: its
// name resolves, inside that specialisation, to the path, function or constant it was bound to.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

bool assigns(const std::vector<StmtPtr>& body, const std::string& name) {
  auto target = [&](auto&& self, const Expr& t) -> bool {
    if (t.kind == ExprKind::Name) return t.name == name;
    if (t.kind == ExprKind::Tuple)
      return std::any_of(t.kids.begin(), t.kids.end(), [&](const ExprPtr& k) { return self(self, *k); });
    return false;
  };
  for (const StmtPtr& s : body) {
    for (const auto& t : s->targets)
      if (target(target, *t)) return true;
    if (assigns(s->body, name) || assigns(s->orelse, name)) return true;
  }
  return false;
}

// Paths that stand for something callable at compile time: the atomics and the number types.
bool static_path(const std::string& path) {
  if (path.starts_with("numba.cuda.atomic.") || path.starts_with("cubridge.atomic.")) return true;
  std::size_t dot = path.rfind('.');
  if (dot == std::string::npos) return false;
  std::string mod = path.substr(0, dot);
  auto t = parse_type_name(path.substr(dot + 1));
  return t && t->is_scalar() && (is_numeric_module(mod) || mod.starts_with("numba"));
}

bool integral(const Constant& c) {
  if (c.type.is_tuple())
    return !c.elements.empty() && std::all_of(c.elements.begin(), c.elements.end(), integral);
  return c.type.is_int();
}

std::string constant_key(const Constant& c) {
  if (c.type.is_tuple()) {
    std::string s = "(";
    for (const Constant& k : c.elements) s += constant_key(k) + ",";
    return s + ")";
  }
  return c.type.name() + ":" + (c.type.is_signed() ? std::to_string(c.i) : std::to_string(c.u));
}

}  // namespace

std::optional<StaticBinding> FunctionTyper::static_binding(Expr& a, const FunctionDef& def, std::size_t param) {
  auto path_binding = [](const std::string& p) { return StaticBinding{"path " + p, p, "", std::nullopt}; };
  auto function_binding = [](const std::string& f) { return StaticBinding{"function " + f, "", f, std::nullopt}; };
  if (a.kind == ExprKind::Name) {
    // This function's own compile-time parameters pass on as they are.
    if (auto p = fn_.static_paths.find(a.name); p != fn_.static_paths.end()) return path_binding(p->second);
    if (auto f = fn_.static_functions.find(a.name); f != fn_.static_functions.end()) return function_binding(f->second);
  }
  if (a.kind == ExprKind::Name && slot_of(a.name) < 0 && !a.name.starts_with("<")) {
    if (const FunctionDef* f = user_function(a, "")) return function_binding(f->name);
    if (auto imp = prog_.imports.find(a.name); imp != prog_.imports.end() && static_path(imp->second))
      return path_binding(imp->second);
  }
  if (a.kind == ExprKind::Attribute) {
    std::string p = dotted(a);
    if (!p.empty() && static_path(p)) return path_binding(p);
  }
  // Integer constants (and tuples of them), where the callee never assigns the parameter: numba retries
  // such an argument as a literal where a constant is needed (a shape); bound, it is one everywhere.
  if (assigns(def.body, def.params[param])) return std::nullopt;
  // A string literal: numba types it as a StringLiteral (bytes as a constant Bytes) and compiles the callee
  // for it; here the callee is compiled for the text, which stands wherever the parameter is named
  // (typer.cpp's substitute_text). The key carries the text: "text s:<str>" or "text b:<bytes>".
  if (a.kind == ExprKind::Str && a.ival != 2)
    return StaticBinding{std::string("text ") + (a.ival == 1 ? "b:" : "s:") + a.name, "", "", std::nullopt};
  if (a.kind == ExprKind::Tuple && a.kids.empty() && a.name == kStarredArgument)  // *args given nothing: ()
    return StaticBinding{"constant ()", "", "",
                         Constant{.type = Type::tuple({}), .i = 0, .u = 0, .re = 0, .im = 0, .elements = {}}};
  std::optional<Constant> c;
  if (a.kind == ExprKind::Int && !a.int_unsigned) {
    if (auto v = const_int(a)) c = Constant{.type = i64(), .i = *v, .u = 0, .re = 0, .im = 0, .elements = {}};
  } else if (a.kind == ExprKind::Name && slot_of(a.name) < 0 && !a.name.starts_with("<")) {
    if (const Constant* k = constant_of(a.name, a.loc)) c = *k;
  } else if (a.kind == ExprKind::Tuple && !a.kids.empty()) {
    Constant t;
    std::vector<Type> types;
    for (auto& k : a.kids) {
      auto v = const_int(*k);
      if (!v) return std::nullopt;
      t.elements.push_back(Constant{.type = i64(), .i = *v, .u = 0, .re = 0, .im = 0, .elements = {}});
      types.push_back(i64());
    }
    t.type = Type::tuple(types);
    c = t;
  }
  if (!c || !integral(*c)) return std::nullopt;
  return StaticBinding{"constant " + constant_key(*c), "", "", c};
}

Type FunctionTyper::module_function_call(Expr& e, const FunctionDef& def) {
  bind_arguments(e, def);
  // A function declared with signatures (jit(sigs, device=True)) takes its declared parameter types:
  // numba converts the arguments to them, so nothing is bound at compile time.
  const bool declared = prog_.options.declared_signatures.count(def.name) > 0;
  bool unknown = false, any = false;
  std::vector<Type> args;
  std::vector<StaticBinding> statics;
  for (std::size_t i = 1; i < e.kids.size(); ++i) {
    std::optional<StaticBinding> s =
        !declared && i - 1 < def.params.size() ? static_binding(*e.kids[i], def, i - 1) : std::nullopt;
    if (s) {
      any = true;
      e.kids[i]->type = Type::none();  // passes nothing
      args.push_back(Type::none());
      statics.push_back(std::move(*s));
      continue;
    }
    Type t = expr(*e.kids[i]);
    unknown = unknown || t.is_unknown();
    args.push_back(t);
    statics.emplace_back();
  }
  e.formals = args;
  return user_call(e, def, args, unknown, any ? &statics : nullptr);
}

}  // namespace cubridge::compiler::typer_detail
