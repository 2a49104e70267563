// Internal: nested `def`s lifted out of the function that defines them (see ast.hpp). numba-cuda inlines a
// closure at the calls in its encloser (inline_closurecall), where it reads the encloser's variables as they
// are at the call and its `nonlocal` assignments are the encloser's; and it compiles a closure passed to
// another function as a function of its own whose free variables must be constants
// (MakeFunctionToJitFunction). Here a nested function becomes a module function named
// "<encloser>$<name>$<line>":
//   - called only: the encloser's variables it reads are passed at each call as leading parameters, and the
//     ones it declares `nonlocal` come back as its result and are assigned after the call (copy in, copy
//     out: the same values a shared cell holds, as nothing else runs during the call);
//   - passed as an argument: each variable it reads from its encloser must be defined once there, by a
//     constant, which is folded into the body; otherwise numba's errors, in its words.
// Any other use of a nested function (stored, returned, captured by another nested function) is refused by name.
#include "compiler/frontend/ast.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "cubridge/error.hpp"

namespace cubridge::compiler {

namespace {

using Names = std::set<std::string>;

template <class F>
void each_expr(Expr& e, F&& f) {
  f(e);
  for (ExprPtr& k : e.kids)
    if (k) each_expr(*k, f);
}

template <class F>
void each_stmt_expr(std::vector<StmtPtr>& body, F&& f) {
  for (StmtPtr& s : body) {
    for (ExprPtr& t : s->targets) each_expr(*t, f);
    for (ExprPtr* x : {&s->value, &s->test, &s->msg})
      if (*x) each_expr(**x, f);
    each_stmt_expr(s->body, f);
    each_stmt_expr(s->orelse, f);
  }
}

void target_names(const Expr& t, Names& out) {
  if (t.kind == ExprKind::Name) out.insert(t.name);
  if (t.kind == ExprKind::Tuple)
    for (const ExprPtr& k : t.kids) target_names(*k, out);
}

// The names a body binds: assignment and loop targets, nested functions.
void bound_names(const std::vector<StmtPtr>& body, Names& out) {
  for (const StmtPtr& s : body) {
    if (s->kind == StmtKind::Assign || s->kind == StmtKind::AugAssign || s->kind == StmtKind::For)
      for (const ExprPtr& t : s->targets) target_names(*t, out);
    if (s->kind == StmtKind::Def) out.insert(s->def->name);
    bound_names(s->body, out);
    bound_names(s->orelse, out);
  }
}

void nonlocal_names(std::vector<StmtPtr>& body, Names& out, bool erase) {
  for (StmtPtr& s : body) {
    if (s->kind == StmtKind::Nonlocal) {
      for (const ExprPtr& t : s->targets) out.insert(t->name);
      if (erase) {
        s->kind = StmtKind::Pass;
        s->targets.clear();
      }
    }
    nonlocal_names(s->body, out, erase);
    nonlocal_names(s->orelse, out, erase);
  }
}

bool returns_value(const std::vector<StmtPtr>& body) {
  return std::any_of(body.begin(), body.end(), [](const StmtPtr& s) {
    return (s->kind == StmtKind::Return && s->value && s->value->kind != ExprKind::NoneLit) ||
           returns_value(s->body) || returns_value(s->orelse);
  });
}

// A literal numba sees as a constant (ir.Const): numbers, booleans, None, strings, a negated number.
bool literal(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Int: case ExprKind::Float: case ExprKind::Complex: case ExprKind::Bool: case ExprKind::NoneLit:
    case ExprKind::Str:
      return true;
    case ExprKind::Unary:
      return (e.unop == UnaryOp::Neg || e.unop == UnaryOp::Pos) && e.kids.size() == 1 &&
             (e.kids[0]->kind == ExprKind::Int || e.kids[0]->kind == ExprKind::Float ||
              e.kids[0]->kind == ExprKind::Complex);
    default:
      return false;
  }
}

ExprPtr copy_literal(const Expr& e, SourceLoc at) {
  auto c = std::make_unique<Expr>();
  c->kind = e.kind;
  c->loc = at;
  c->name = e.name;
  c->unop = e.unop;
  c->ival = e.ival;
  c->int_unsigned = e.int_unsigned;
  c->fval = e.fval;
  c->imag = e.imag;
  for (const ExprPtr& k : e.kids) c->kids.push_back(copy_literal(*k, at));
  return c;
}

// One nested function of the encloser being lifted, and how the encloser uses it.
struct Local {
  Stmt* stmt = nullptr;
  std::string name;    // as the encloser calls it
  std::string lifted;
  std::vector<Expr*> calls;       // Call expressions whose callee is this function
  std::vector<Stmt*> call_stmts;  // the expression statement each call is (nullptr: inside an expression)
  std::vector<Expr*> arguments;   // Name expressions passing it to a call
};

class Lifter {
 public:
  // `visible`: the variables of the functions around f (a nested function of a nested function reads them too).
  Lifter(FunctionDef& f, std::vector<FunctionDef>& out, const Names& visible = {})
      : f_(f), out_(out), enclosed_(visible) {}

  void run() {
    std::vector<Stmt*> defs;
    collect_defs(f_.body, defs);
    if (defs.empty()) return;
    own_.insert(f_.params.begin(), f_.params.end());
    bound_names(f_.body, own_);
    enclosed_.insert(own_.begin(), own_.end());
    for (Stmt* d : defs) {
      Lifter(*d->def, out_, enclosed_).run();  // its own nested functions first: their captures become names it reads
      locals_.emplace_back();
      locals_.back().stmt = d;
      locals_.back().name = d->def->name;
      locals_.back().lifted = f_.name + "$" + d->def->name + "$" + std::to_string(d->loc.line);
    }
    std::map<std::string, Local*> scope;
    uses(f_.body, scope);
    for (Local& l : locals_) lift(l);
  }

 private:
  FunctionDef& f_;
  std::vector<FunctionDef>& out_;
  std::vector<Local> locals_;
  Names enclosed_;  // the variables f sees: its own (parameters, assigned names, nested functions) and its enclosers'
  Names own_;

  [[noreturn]] void refuse(SourceLoc at, const std::string& msg) { fail(f_.file, at, msg); }

  void collect_defs(std::vector<StmtPtr>& body, std::vector<Stmt*>& out) {
    for (StmtPtr& s : body) {
      if (s->kind == StmtKind::Def) out.push_back(s.get());
      collect_defs(s->body, out);
      collect_defs(s->orelse, out);
    }
  }

  Local* local_of(Stmt* s) {
    for (Local& l : locals_)
      if (l.stmt == s) return &l;
    return nullptr;
  }

  // Which nested function each name stands for, statement by statement (a name defined differently on
  // the two sides of an if stands for neither after it).
  using Scope = std::map<std::string, Local*>;

  static void merge(Scope& into, const Scope& other) {
    for (auto& [n, l] : into)
      if (auto o = other.find(n); o == other.end() || o->second != l) l = nullptr;
    for (const auto& [n, l] : other)
      if (!into.count(n)) into[n] = nullptr;
  }

  void uses(std::vector<StmtPtr>& body, Scope& scope) {
    for (StmtPtr& s : body) {
      if (s->kind == StmtKind::Def) {
        scope[s->def->name] = local_of(s.get());
        continue;
      }
      for (ExprPtr& t : s->targets) {
        Names assigned;
        if (s->kind != StmtKind::Nonlocal) target_names(*t, assigned);
        for (const std::string& n : assigned) scope.erase(n);
        expr_uses(*t, scope, nullptr, false);
      }
      Stmt* statement = s->kind == StmtKind::Expr ? s.get() : nullptr;
      for (ExprPtr* x : {&s->value, &s->test, &s->msg})
        if (*x) expr_uses(**x, scope, statement, false);
      if (s->kind == StmtKind::If) {
        Scope other = scope;
        uses(s->body, scope);
        uses(s->orelse, other);
        merge(scope, other);
      } else if (!s->body.empty() || !s->orelse.empty()) {  // loops: their bodies may not run
        Scope after = scope;
        uses(s->body, after);
        uses(s->orelse, after);
        merge(scope, after);
      }
    }
  }

  void expr_uses(Expr& e, Scope& scope, Stmt* statement, bool argument) {
    auto found = [&](const std::string& n) -> Local* {
      auto it = scope.find(n);
      if (it == scope.end()) {
        for (const Local& l : locals_)
          if (l.name == n)  // a loop's later pass, or a variable of the same name: Python's binding is not static
            refuse(e.loc, "'" + n + "' is used where the nested function '" + n + "' of '" + f_.name + "' is not (or "
                          "not yet) defined; define it before its uses and give other variables other names");
        return nullptr;
      }
      if (!it->second)
        refuse(e.loc, "'" + n + "' is a nested function of '" + f_.name + "' on one path here and something else on "
                      "another; define it once before it is used");
      return it->second;
    };
    if (e.kind == ExprKind::Call) {
      Local* l = e.kids[0]->kind == ExprKind::Name ? found(e.kids[0]->name) : nullptr;
      if (l) {
        l->calls.push_back(&e);
        l->call_stmts.push_back(statement && statement->value.get() == &e ? statement : nullptr);
      } else {
        expr_uses(*e.kids[0], scope, nullptr, false);
      }
      for (std::size_t i = 1; i < e.kids.size(); ++i) expr_uses(*e.kids[i], scope, nullptr, true);
      return;
    }
    if (e.kind == ExprKind::Name) {
      if (Local* l = found(e.name)) {
        if (!argument)
          refuse(e.loc, "the nested function '" + e.name + "' is used as a value here; a nested function can be "
                        "called, or passed as an argument to a function (as numba-cuda compiles closures)");
        l->arguments.push_back(&e);
      }
      return;
    }
    for (std::size_t i = 0; i < e.kids.size(); ++i)
      if (e.kids[i]) expr_uses(*e.kids[i], scope, nullptr, false);
  }

  // The single constant definition of the encloser's variable `n`, or numba's error.
  const Expr& constant_definition(const std::string& n, SourceLoc at) {
    if (!own_.count(n))
      refuse(at, "the nested function passed as an argument here reads '" + n + "', a variable of a function around '" +
                     f_.name + "'; such a function may read constants of the function that defines it only");
    std::vector<const Stmt*> defs;
    auto walk = [&](auto&& self, const std::vector<StmtPtr>& body) -> void {
      for (const StmtPtr& s : body) {
        Names t;
        if (s->kind == StmtKind::Assign || s->kind == StmtKind::AugAssign || s->kind == StmtKind::For)
          for (const ExprPtr& x : s->targets) target_names(*x, t);
        if (t.count(n)) defs.push_back(s.get());
        self(self, s->body);
        self(self, s->orelse);
      }
    };
    walk(walk, f_.body);
    const bool param = std::find(f_.params.begin(), f_.params.end(), n) != f_.params.end();
    if (defs.size() + (param ? 1 : 0) > 1)
      fail_type(f_.file, at, "Cannot capture a constant value for variable '" + n +
                                 "' as there are multiple definitions present.");
    const Stmt* d = defs.empty() ? nullptr : defs[0];
    if (param || !d || d->kind != StmtKind::Assign || d->targets.size() != 1 ||
        d->targets[0]->kind != ExprKind::Name || !literal(*d->value))
      fail_type(f_.file, at, "Cannot capture the non-constant value associated with variable '" + n +
                                 "' in a function that may escape.");
    return *d->value;
  }

  void lift(Local& l) {
    FunctionDef& inner = *l.stmt->def;
    Names nonlocals;
    nonlocal_names(inner.body, nonlocals, true);
    Names own(inner.params.begin(), inner.params.end());
    bound_names(inner.body, own);
    Names reads;
    each_stmt_expr(inner.body, [&](Expr& e) { if (e.kind == ExprKind::Name) reads.insert(e.name); });
    for (const std::string& n : nonlocals) {
      if (!own_.count(n))
        refuse(l.stmt->loc, "'" + inner.name + "' declares '" + n + "' nonlocal, which is not a variable of '" +
                                f_.name + "' (the function that defines it): a nested function may assign the "
                                "variables of the function around it only");
      own.erase(n);
      reads.insert(n);
    }
    for (const ExprPtr& d : inner.defaults) {  // numba-cuda takes them as constants of the def
      if (!d) continue;
      each_expr(*d, [&](Expr& e) {
        if (e.kind == ExprKind::Name && enclosed_.count(e.name))
          refuse(e.loc, "a default value of the nested function '" + inner.name + "' reads '" + e.name + "', a " +
                            "variable of '" + f_.name + "'; defaults of nested functions are constants");
      });
    }
    std::vector<std::string> captures;
    for (const std::string& n : reads) {
      if (own.count(n) || !enclosed_.count(n)) continue;
      for (const Local& other : locals_)
        if (other.name == n)
          refuse(l.stmt->loc, "the nested function '" + inner.name + "' uses '" + n + "', a nested function of '" +
                                  f_.name + "'; pass it as an argument instead");
      captures.push_back(n);
    }
    const bool escapes = !l.arguments.empty();
    if (escapes) {
      if (!nonlocals.empty())
        refuse(l.stmt->loc, "the nested function '" + inner.name + "' assigns the nonlocal '" + *nonlocals.begin() +
                                "' and is passed as an argument; only a nested function that is called where it is "
                                "defined may assign its encloser's variables");
      for (const std::string& n : captures) {
        const Expr& value = constant_definition(n, l.stmt->loc);
        each_stmt_expr(inner.body, [&](Expr& e) {
          if (e.kind == ExprKind::Name && e.name == n) {
            ExprPtr c = copy_literal(value, e.loc);
            e.kind = c->kind;
            e.name = c->name;
            e.unop = c->unop;
            e.ival = c->ival;
            e.int_unsigned = c->int_unsigned;
            e.fval = c->fval;
            e.imag = c->imag;
            e.kids = std::move(c->kids);
          }
        });
      }
      captures.clear();
    }
    if (!nonlocals.empty()) copy_out(l, inner, nonlocals);
    // The lifted function: the captured variables first, then its own parameters.
    FunctionDef lifted;
    lifted.name = l.lifted;
    lifted.qualname = f_.qualname + ".<locals>." + inner.name;
    lifted.loc = inner.loc;
    lifted.file = inner.file;
    lifted.vararg = inner.vararg;
    for (const std::string& n : captures) {
      lifted.params.push_back(n);
      lifted.param_locs.push_back(inner.loc);
      lifted.defaults.emplace_back();
    }
    for (std::size_t i = 0; i < inner.params.size(); ++i) {
      lifted.params.push_back(inner.params[i]);
      lifted.param_locs.push_back(inner.param_locs[i]);
      lifted.defaults.push_back(std::move(inner.defaults[i]));
    }
    lifted.body = std::move(inner.body);
    for (Expr* call : l.calls) {
      // Python's count, before the hidden leading parameters would make it read differently.
      const std::size_t given = call->kids.size() - 1 - call->keywords.size(), takes = inner.params.size();
      const bool starred = std::any_of(call->kids.begin() + 1, call->kids.end(), [](const ExprPtr& k) {
        return k->kind == ExprKind::Unsupported && k->name == kStarredArgument;
      });
      if (!inner.vararg && !starred && given > takes)
        refuse(call->loc, inner.name + "() takes " + std::to_string(takes) + " positional argument" +
                              (takes == 1 ? "" : "s") + " but " + std::to_string(given) +
                              (given == 1 ? " was" : " were") + " given");
      call->kids[0]->name = l.lifted;
      std::vector<ExprPtr> args;
      for (const std::string& n : captures) args.push_back(name_expr(n, call->loc));
      call->kids.insert(call->kids.begin() + 1, std::make_move_iterator(args.begin()),
                        std::make_move_iterator(args.end()));
    }
    for (Expr* a : l.arguments) a->name = l.lifted;
    l.stmt->kind = StmtKind::Pass;
    l.stmt->def.reset();
    out_.push_back(std::move(lifted));
  }

  // A nested function assigning `nonlocal` variables returns their values, which each call assigns back.
  void copy_out(Local& l, FunctionDef& inner, const Names& nonlocals) {
    if (returns_value(inner.body))
      refuse(l.stmt->loc, "the nested function '" + inner.name + "' assigns the nonlocal '" + *nonlocals.begin() +
                              "' and returns a value; one that assigns its encloser's variables may return nothing");
    auto values = [&](SourceLoc at) {
      if (nonlocals.size() == 1) return name_expr(*nonlocals.begin(), at);
      auto t = std::make_unique<Expr>();
      t->kind = ExprKind::Tuple;
      t->loc = at;
      for (const std::string& n : nonlocals) t->kids.push_back(name_expr(n, at));
      return t;
    };
    auto rewrite = [&](auto&& self, std::vector<StmtPtr>& body) -> void {
      for (StmtPtr& s : body) {
        if (s->kind == StmtKind::Return) s->value = values(s->loc);
        self(self, s->body);
        self(self, s->orelse);
      }
    };
    rewrite(rewrite, inner.body);
    auto ret = std::make_unique<Stmt>();
    ret->kind = StmtKind::Return;
    ret->loc = inner.body.empty() ? inner.loc : inner.body.back()->loc;
    ret->value = values(ret->loc);
    inner.body.push_back(std::move(ret));
    for (std::size_t i = 0; i < l.calls.size(); ++i) {
      Stmt* s = l.call_stmts[i];
      if (!s)
        refuse(l.calls[i]->loc, "the nested function '" + inner.name + "' assigns the nonlocal '" +
                                    *nonlocals.begin() + "', so it can only be called as a statement of its own");
      s->kind = StmtKind::Assign;
      s->targets.push_back(values(s->loc));
    }
  }
};

}  // namespace

void lift_nested_functions(ModuleAst& m) {
  std::vector<FunctionDef> lifted;
  for (FunctionDef& f : m.functions) {
    if (!f.parse_error.empty()) continue;
    std::vector<FunctionDef> mine;
    try {
      Lifter(f, mine).run();
    } catch (const CompileError& e) {
      f.parse_error = e.what();
      f.body.clear();
      continue;
    }
    for (FunctionDef& d : mine) lifted.push_back(std::move(d));
  }
  for (FunctionDef& d : lifted) m.functions.push_back(std::move(d));
}

}  // namespace cubridge::compiler
