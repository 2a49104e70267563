// Internal: type inference (see typer.hpp). Each function is typed by repeating passes over its body
// until the variable types stop changing (types only widen, by unification, so this terminates), then
// once more in strict mode, where anything still unknown or unsupported is an error.
#include "compiler/typing/function_typer.hpp"
#include "compiler/typing/stack_budget.hpp"

#include <algorithm>
#include <typeinfo>
#include <cmath>
#include <map>
#include "cubridge/error.hpp"

namespace cubridge::compiler {

ExprPtr clone_expr(const Expr& e) {
  // a callee's body is cloned on top of its caller's typing: the same stack budget as the typer's
  if (typer_detail::stack_left() < typer_detail::stack_reserve())
    throw typer_detail::StackExhausted{e.loc.line, e.loc.col};
  auto c = std::make_unique<Expr>();
  c->kind = e.kind;
  c->loc = e.loc;
  c->name = e.name;
  c->binop = e.binop;
  c->unop = e.unop;
  c->is_and = e.is_and;
  c->cmp_ops = e.cmp_ops;
  c->ival = e.ival;
  c->int_unsigned = e.int_unsigned;
  c->fval = e.fval;
  c->imag = e.imag;
  c->keywords = e.keywords;
  c->kids.reserve(e.kids.size());
  for (const ExprPtr& k : e.kids) c->kids.push_back(k ? clone_expr(*k) : nullptr);
  return c;
}

static StmtPtr clone_stmt(const Stmt& s) {
  auto c = std::make_unique<Stmt>();
  c->kind = s.kind;
  c->loc = s.loc;
  for (const ExprPtr& t : s.targets) c->targets.push_back(clone_expr(*t));
  if (s.value) c->value = clone_expr(*s.value);
  if (s.test) c->test = clone_expr(*s.test);
  if (s.msg) c->msg = clone_expr(*s.msg);
  c->aug_op = s.aug_op;
  c->body = clone_body(s.body);
  c->orelse = clone_body(s.orelse);
  c->what = s.what;
  c->exception_args = s.exception_args;
  return c;
}

std::vector<StmtPtr> clone_body(const std::vector<StmtPtr>& body) {
  std::vector<StmtPtr> out;
  out.reserve(body.size());
  for (const StmtPtr& s : body) out.push_back(clone_stmt(*s));
  return out;
}

namespace {

// A parameter bound to a string literal (typer_static_arguments.cpp, key "text s:<str>" / "text b:<bytes>"):
// each use of its name in the callee's body becomes the literal, and `x == "..."` / `x != "..."` between two
// literals of the same kind is decided here (numba compares the two constants at run time: the same
// answer). Any other use of the text meets the typer's refusal of strings as values.
void substitute_text(Expr& e, const std::string& param, const std::string& text, bool bytes) {
  for (ExprPtr& k : e.kids)
    if (k) substitute_text(*k, param, text, bytes);
  if (e.kind == ExprKind::Name && e.name == param) {
    e.kind = ExprKind::Str;
    e.name = text;
    e.ival = bytes ? 1 : 0;
    return;
  }
  if (e.kind != ExprKind::Compare || e.cmp_ops.size() != 1 || e.kids.size() != 2) return;
  const CmpOp op = e.cmp_ops[0];
  const Expr& a = *e.kids[0];
  const Expr& b = *e.kids[1];
  if ((op != CmpOp::Eq && op != CmpOp::Ne) || a.kind != ExprKind::Str || b.kind != ExprKind::Str || a.ival != b.ival ||
      a.ival == 2)
    return;
  const bool equal = a.name == b.name;
  e.kind = ExprKind::Bool;
  e.ival = (op == CmpOp::Eq) == equal ? 1 : 0;
  e.name.clear();
  e.kids.clear();
  e.cmp_ops.clear();
}

void substitute_text(std::vector<StmtPtr>& body, const std::string& param, const std::string& text, bool bytes) {
  for (StmtPtr& s : body) {
    for (ExprPtr& t : s->targets) substitute_text(*t, param, text, bytes);
    for (ExprPtr* x : {&s->value, &s->test, &s->msg})
      if (*x) substitute_text(**x, param, text, bytes);
    substitute_text(s->body, param, text, bytes);
    substitute_text(s->orelse, param, text, bytes);
  }
}

}  // namespace

namespace typer_detail {

// Types one specialisation to a fixed point, then strictly.
void type_function(Program& prog, TypedFunction& fn) {
  const FunctionDef& def = *fn.def;
  if (!def.parse_error.empty()) throw CompileError(def.parse_error, def.file, def.loc.line, def.loc.col);
  if (fn.arg_types.size() != def.params.size())
    fail(def.file, def.loc, "function '" + def.name + "' takes " + std::to_string(def.params.size()) +
                                " argument(s) but the signature gives " + std::to_string(fn.arg_types.size()));
  try {
    fn.body = clone_body(def.body);
    FunctionTyper(prog, fn, false).prune_constant_branches(fn.body);  // numba prunes before its SSA
    fn.uninitialized_reads = version_variables(def.params, fn.body);
    unroll_literal_loops(prog, fn);
  } catch (const StackExhausted& at) {
    fail(def.file, SourceLoc{at.line, at.col}, too_deep_message());
  }
  fn.local_names = def.params;
  for (std::size_t i = 0; i < fn.static_args.size(); ++i) {
    if (!fn.static_args[i].empty()) fn.local_names[i].clear();  // bound at compile time: no variable
    const std::string& key = fn.static_args[i];
    if (key.starts_with("text ") && key.size() >= 7)
      substitute_text(fn.body, def.params[i], key.substr(7), key[5] == 'b');
  }
  fn.local_types = fn.arg_types;
  // Every name bound anywhere in the body is local (Python's scoping rule).
  std::vector<std::string>& names = fn.local_names;
  auto add_targets = [&](auto&& self, const Expr& t) -> void {
    if (t.kind == ExprKind::Name) {
      if (std::find(names.begin(), names.end(), t.name) == names.end()) {
        names.push_back(t.name);
        fn.local_types.push_back(Type());
      }
    } else if (t.kind == ExprKind::Tuple) {
      for (const auto& k : t.kids) self(self, *k);
    }
  };
  auto walk = [&](auto&& self, const std::vector<StmtPtr>& body) -> void {
    for (const StmtPtr& s : body) {
      for (const auto& t : s->targets) add_targets(add_targets, *t);
      self(self, s->body);
      self(self, s->orelse);
    }
  };
  walk(walk, fn.body);

  prog.stack.push_back(&def);
  struct Pop {
    std::vector<const FunctionDef*>& s;
    ~Pop() { s.pop_back(); }
  } pop{prog.stack};
  FunctionTyper typer(prog, fn, false);
  // A self-recursive call without a declared return type (numba's RecursiveCall) takes the type the other
  // returns give so far: each lenient pass unifies the known returned types, and the next pass types the
  // recursive calls with it, until nothing changes.
  auto provisional = [&]() -> std::optional<Type> {
    std::optional<Type> r;
    bool none = fn.falls_through;
    for (const auto& [t, loc] : typer.returns) {
      if (t.is_unknown()) continue;
      if (t.is_none()) {
        none = true;
        continue;
      }
      std::optional<Type> u = r ? unify(*r, t) : std::optional<Type>(t);
      if (!u) return std::nullopt;  // reported by the strict pass
      r = u;
    }
    if (!r) return none ? std::optional<Type>(Type::none()) : std::nullopt;
    return none && !r->is_optional() ? Type::optional(*r) : *r;
  };
  const bool inferred_recursion = !fn.declared_return;
  for (int pass = 0;; ++pass) {
    typer.changed = false;
    typer.run();
    if (fn.recursive && inferred_recursion) {
      std::optional<Type> p = provisional();
      if (p && !(*p == fn.return_type)) {
        fn.return_type = *p;
        typer.changed = true;
      }
    }
    if (!typer.changed) break;
    if (pass > 64)
      fail(def.file, def.loc, fn.recursive ? "Return type of recursive function does not converge: '" + def.name +
                                                 "' returns a type that grows with each recursive call"
                                           : "type inference of '" + def.name + "' did not converge");
  }
  if (fn.recursive && inferred_recursion && fn.return_type.is_unknown())
    fail(def.file, def.loc, "cannot type infer runaway recursion: every return of '" + def.name + "' calls '" +
                                def.name + "' again, so no return gives its type (numba-cuda refuses it too)");
  FunctionTyper strict(prog, fn, true);
  strict.run();

  // The return type: unify every returned type (Numba's rule); falling off the end returns None.
  std::vector<std::pair<Type, SourceLoc>> rets = strict.returns;
  // A recursive call whose type no other return gives: numba's runaway recursion when no return gives one, its
  // non-converging return type when others do but the type keeps changing with each recursive call.
  const bool some_known = fn.falls_through || std::any_of(rets.begin(), rets.end(),
                                                          [](const auto& r) { return !r.first.is_unknown(); });
  for (const auto& [t, loc] : rets)
    if (t.is_unknown())
      fail(def.file, loc, !fn.recursive ? "the type of the value '" + def.name + "' returns here cannot be inferred"
                          : some_known ? "Return type of recursive function does not converge: the value '" + def.name +
                                         "' returns here depends on a recursive call whose type the other returns of '" +
                                         def.name + "' do not settle (numba-cuda refuses it too)"
                                       : "cannot type infer runaway recursion: every return of '" + def.name +
                                         "' calls '" + def.name + "' again, so no return gives its type (numba-cuda "
                                         "refuses it too)");
  if (fn.falls_through) rets.emplace_back(Type::none(), def.loc);
  std::optional<Type> result;
  bool has_none = false;
  SourceLoc none_loc = def.loc, value_loc = def.loc;
  for (auto& [t, loc] : rets) {
    if (t.is_none()) {
      has_none = true;
      none_loc = loc;
      continue;
    }
    value_loc = loc;
    if (!result) {
      result = t;
      continue;
    }
    auto u = unify(*result, t);
    if (!u)
      fail(def.file, loc, "can't unify the return types of '" + def.name + "': " + result->name() + " and " + t.name());
    result = *u;
  }
  // A value on some paths and None on others: numba's Optional of the value's type.
  Type inferred = result ? (has_none && !result->is_optional() ? Type::optional(*result) : *result) : Type::none();
  if (inferred.is_optional() && &fn == prog.out.functions[0].get())
    fail(def.file, has_none ? none_loc : value_loc,
         "'" + def.name + "' returns " + inferred.name() + ": only the functions it calls may return an Optional, "
         "not the compiled function itself; return a value on every path (or unwrap it: x if x is not None else ...)");
  if (&fn == prog.out.functions[0].get() && !prog.options.device && !inferred.is_none())
    fail_type(def.file, value_loc, "Kernel '" + def.name + "' must have void return type but got " + inferred.name() +
                                       ": a kernel (device=False) must not return a value; compile it with device=True");
  if (fn.declared_return) {
    if (fn.return_type.is_none() != inferred.is_none() ||
        (!inferred.is_none() && can_convert(inferred, fn.return_type) == Conversion::None))
      fail(def.file, def.loc, "'" + def.name + "' returns " + inferred.name() + ", which cannot be converted to the declared return type " +
                                  fn.return_type.name());
  } else {
    fn.return_type = inferred;
  }
}

const Constant* FunctionTyper::constant_of(std::string_view name, SourceLoc loc) {
  if (auto s = fn_.static_constants.find(name); s != fn_.static_constants.end()) return &s->second;
  auto c = prog_.options.constants.find(name);
  if (c != prog_.options.constants.end()) return &c->second;
  auto ev = prog_.evaluated.find(name);
  if (ev != prog_.evaluated.end()) return ev->second;
  auto a = prog_.module_assignments.find(name);
  if (a == prog_.module_assignments.end()) return nullptr;
  if (prog_.evaluating.count(name)) return nullptr;  // A = B; B = A
  prog_.evaluating.emplace(name);
  // Evaluate a module-level constant: literals, negation, tuples, and other constants.
  auto eval = [&](auto&& self, const Expr& e) -> std::optional<Constant> {
    Constant k;
    switch (e.kind) {
      case ExprKind::Int:
        k.type = e.int_unsigned ? u64() : i64();
        k.i = static_cast<std::int64_t>(e.ival);
        k.u = e.ival;
        return k;
      case ExprKind::Float: k.type = f64(); k.re = e.fval; return k;
      case ExprKind::Complex: k.type = Type::complex(128); k.im = e.imag; return k;
      case ExprKind::Bool: k.type = Type::boolean(); k.i = static_cast<std::int64_t>(e.ival); return k;
      case ExprKind::Tuple: {
        std::vector<Type> ts;
        for (const auto& kid : e.kids) {
          auto v = self(self, *kid);
          if (!v) return std::nullopt;
          ts.push_back(v->type);
          k.elements.push_back(*v);
        }
        if (ts.empty()) return std::nullopt;
        k.type = Type::tuple(ts);
        return k;
      }
      case ExprKind::Unary: {
        auto v = self(self, *e.kids[0]);
        if (!v || e.unop != UnaryOp::Neg || !v->type.is_scalar() || v->type.is_bool()) return std::nullopt;
        v->re = -v->re;
        v->im = -v->im;
        v->i = static_cast<std::int64_t>(~static_cast<std::uint64_t>(v->i) + 1);
        v->u = ~v->u + 1;
        return v;
      }
      case ExprKind::Name: {
        if (e.name == name) return std::nullopt;
        const Constant* other = constant_of(e.name, loc);
        if (!other) return std::nullopt;
        return *other;
      }
      default: return std::nullopt;
    }
  };
  auto v = eval(eval, *a->second);
  prog_.evaluating.erase(std::string(name));
  if (!v)
    fail(fn_.def->file, loc, "module-level name '" + std::string(name) +
                                 "' is not a constant this compiler can fold (numbers and tuples of numbers are)");
  prog_.out.constants.push_back(*v);
  const Constant* p = &prog_.out.constants.back();
  prog_.evaluated.emplace(std::string(name), p);
  return p;
}

void FunctionTyper::too_deep(SourceLoc loc) { error(loc, too_deep_message()); }

Type FunctionTyper::user_call(Expr& e, const FunctionDef& def, const std::vector<Type>& args, bool unknown,
                              const std::vector<StaticBinding>* statics) {
  e.callee = Callee::UserFunction;
  const bool recursive = std::find(prog_.stack.begin(), prog_.stack.end(), &def) != prog_.stack.end();
  // numba types a self-recursive call from the declared signature (jit("i8(i8)", device=True)), or without
  // one from the function's other returns (type_function's provisional return type).
  if (unknown) return Type();
  if (args.size() != def.params.size())
    error(e.loc, def.name + "() takes " + std::to_string(def.params.size()) + " argument(s), got " + std::to_string(args.size()));
  for (std::size_t i = 0; i < args.size(); ++i)
    if (!args[i].is_scalar() && !args[i].is_bfloat16() && !args[i].is_fp8() && !args[i].is_vector() && !args[i].is_tuple() &&
        !args[i].is_array() && !args[i].is_grid_group() && !args[i].is_record() && !args[i].is_none() &&
        !args[i].is_pointer() && !is_datetime_like(args[i]) && !args[i].is_foreign())
      error(e.kids[i + 1]->loc, "cannot pass a value of type " + args[i].name() + " to " + def.name + "()");
  const Signature* declared = nullptr;
  if (auto d = prog_.options.declared_signatures.find(def.name); d != prog_.options.declared_signatures.end()) {
    declared = &declared_signature(e, def, d->second, args);
    e.formals = declared->args;  // the arguments are cast to the declared parameters
  }
  const std::vector<Type>& params = declared ? declared->args : args;
  std::vector<std::string> keys;
  if (statics)
    for (const StaticBinding& b : *statics) keys.push_back(b.key);
  bool any_static = std::any_of(keys.begin(), keys.end(), [](const std::string& k) { return !k.empty(); });
  if (!any_static) keys.clear();
  auto& fns = prog_.out.functions;
  for (std::size_t i = 1; i < fns.size(); ++i) {
    // A specialisation that failed stays failed: the lenient passes do not type it again (each of the
    // caller's passes did, and so did each level of a chain of calls: time exponential in the chain's
    // depth); the strict pass types it again to report its error.
    const bool same = fns[i]->def == &def && fns[i]->arg_types == params && fns[i]->static_args == keys;
    if (same && fns[i]->failed && !strict_) return Type();
    if (same && !fns[i]->failed) {
      e.callee_index = static_cast<int>(i);
      if (recursive) fns[i]->recursive = true;  // the call of a function being typed: its declared return
      if (fns[i]->can_raise) fn_.can_raise = true;
      return fns[i]->return_type;
    }
  }
  if (prog_.stack.size() > kMaxCallDepth)
    error(e.loc, "this call of '" + def.name + "' nests calls " + std::to_string(prog_.stack.size()) +
                     " deep: calls of module functions nest at most " + std::to_string(kMaxCallDepth) +
                     " deep (each is typed and inlined inside its caller); shorten the chain of calls");
  auto f = std::make_unique<TypedFunction>();
  f->def = &def;
  f->arg_types = params;
  f->static_args = keys;
  for (std::size_t i = 0; any_static && i < keys.size(); ++i) {
    const StaticBinding& b = (*statics)[i];
    if (b.key.empty()) continue;
    const std::string& p = def.params[i];
    if (!b.path.empty()) f->static_paths[p] = b.path;
    else if (!b.function.empty()) f->static_functions[p] = b.function;
    else if (b.constant) f->static_constants[p] = *b.constant;  // a text binding lives in its key alone
  }
  if (declared && declared->result) {
    f->declared_return = true;
    f->return_type = *declared->result;
  }
  TypedFunction* raw = f.get();
  fns.push_back(std::move(f));
  std::size_t index = fns.size() - 1;
  try {
    type_function(prog_, *raw);
  } catch (const CompileError& err) {
    raw->failed = true;
    if (!strict_) return Type();  // retried in the strict pass, where the error is reported
    if (typeid(err) != typeid(CompileError)) throw;  // CompileTypeError, OverloadNeeded: kept as they are
    // The call chain, one line per caller, as numba reports it ("During: resolving callee type: ...").
    throw CompileError(std::string(err.what()) + "\nDuring: resolving callee type: type(CUDADispatcher(<function " +
                           def.name + ">)) (the call of '" + def.name + "' in '" + fn_.def->name + "', " +
                           fn_.def->file + ":" + std::to_string(e.loc.line) + ")",
                       err.file(), err.line(), err.column());
  } catch (...) {
    raw->failed = true;
    if (!strict_) return Type();
    throw;
  }
  e.callee_index = static_cast<int>(index);
  if (raw->can_raise) fn_.can_raise = true;
  return raw->return_type;
}

}  // namespace typer_detail

using typer_detail::Program;
using typer_detail::type_function;


TypedModule type_program(const SourceSet& sources, std::string_view entry, const Signature& signature,
                         const CompileOptions& options) {
  TypedModule out;
  Program prog(sources, options, out);
  for (const ModuleAst& m : sources.units) {
    for (const FunctionDef& f : m.functions) prog.functions.emplace(f.name, &f);
    for (const auto& [alias, target] : m.imports) prog.imports[alias] = target;
    for (const auto& [name, value] : m.assignments) prog.module_assignments[name] = value.get();
  }
  auto it = prog.functions.find(entry);
  if (it == prog.functions.end()) {
    std::string names;
    for (const auto& [n, f] : prog.functions) names += (names.empty() ? "" : ", ") + n;
    throw cubridge::InvalidArgument("function '" + std::string(entry) + "' is not defined in " + options.filename +
                                " (functions found: " + (names.empty() ? "none" : names) + ")");
  }
  if (!options.device && options.abi == Abi::c)
    throw cubridge::InvalidArgument("The C ABI is not supported for kernels: kernel '" + std::string(entry) + "': a kernel (device=False) takes the Numba ABI "
                                "(arrays as numba-cuda's meminfo, parent, nitems, itemsize, data, shape, strides); "
                                "compile it with abi='numba', or compile a device function with device=True");
  for (std::size_t i = 0; i < signature.args.size(); ++i)
    if (signature.args[i].is_record() && signature.args[i].readonly())
      throw cubridge::InvalidArgument("function '" + std::string(entry) + "': argument " + std::to_string(i) + " is a read-only record (" +
                                  signature.args[i].name() + "), which cubridge's compiler does not take; write the "
                                  "record without 'const' (read-only records are for kernels loaded with load_kernel)");
  if (signature.result && signature.result->is_pointer())
    throw cubridge::InvalidArgument("function '" + std::string(entry) + "': a C pointer (" + signature.result->name() +
                                ") is no return type cubridge's compiler takes");
  auto f = std::make_unique<TypedFunction>();
  f->def = it->second;
  f->arg_types = signature.args;
  if (signature.result) {
    f->declared_return = true;
    f->return_type = *signature.result;
  }
  TypedFunction* raw = f.get();
  out.functions.push_back(std::move(f));
  type_function(prog, *raw);
  return out;
}

}  // namespace cubridge::compiler