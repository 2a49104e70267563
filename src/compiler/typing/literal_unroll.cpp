// Internal: numba's literal_unroll and the tuples of arrays numba-cuda freezes into the code
// (CompileOptions::constant_tuples), rewritten before typing. `for x in literal_unroll(t):` runs its body
// once per item of t, and numba types each run with that item's own type (its loop-body versioning), so the
// items of a heterogeneous tuple (arrays of different ranks, layouts or dtypes) each get a variable of
// their own: the loop becomes one copy of its body per item, `x#k = t[k]` before copy k. Variables the body
// defines before reading them, and nothing outside the loop reads, get a version per copy as well (numba's
// SSA gives each item's run its own). A captured tuple's `t[k]` (constant k) is its item, `len(t)` its length,
// and the builtin `tuple((a, b))` of a tuple written in place is that tuple (numba's tuple() of a tuple).
//
// Refused by name: a tuple whose length is not known here (a local variable), `break`/`continue` in the
// unrolled body (the copies are straight-line code), and the loop variable read after the loop.
#include <algorithm>
#include <functional>
#include <string>

#include "compiler/typing/function_typer.hpp"
#include "compiler/typing/renaming.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

bool mentions(const Stmt& s, const std::string& name) {
  for (const ExprPtr& t : s.targets)
    if (t && expr_uses(*t, name)) return true;
  for (const ExprPtr* p : {&s.value, &s.test, &s.msg})
    if (*p && expr_uses(**p, name)) return true;
  auto in = [&](const std::vector<StmtPtr>& b) {
    return std::any_of(b.begin(), b.end(), [&](const StmtPtr& x) { return mentions(*x, name); });
  };
  return in(s.body) || in(s.orelse);
}

/// Whether `name` occurs in `body` anywhere but inside the statement `skip`.
bool mentioned_outside(const std::vector<StmtPtr>& body, const Stmt* skip, const std::string& name) {
  for (const StmtPtr& s : body) {
    if (s.get() == skip) continue;
    bool holds_skip = false;
    std::function<bool(const std::vector<StmtPtr>&)> contains = [&](const std::vector<StmtPtr>& b) {
      return std::any_of(b.begin(), b.end(), [&](const StmtPtr& x) {
        return x.get() == skip || contains(x->body) || contains(x->orelse);
      });
    };
    holds_skip = contains(s->body) || contains(s->orelse);
    if (!holds_skip) {
      if (mentions(*s, name)) return true;
      continue;
    }
    for (const ExprPtr& t : s->targets)
      if (t && expr_uses(*t, name)) return true;
    for (const ExprPtr* p : {&s->value, &s->test, &s->msg})
      if (*p && expr_uses(**p, name)) return true;
    if (mentioned_outside(s->body, skip, name) || mentioned_outside(s->orelse, skip, name)) return true;
  }
  return false;
}

void names_bound(const Expr& t, std::vector<std::string>& out) {
  if (t.kind == ExprKind::Name) {
    if (std::find(out.begin(), out.end(), t.name) == out.end()) out.push_back(t.name);
  } else if (t.kind == ExprKind::Tuple) {
    for (const ExprPtr& k : t.kids) names_bound(*k, out);
  }
}

void names_bound(const std::vector<StmtPtr>& body, std::vector<std::string>& out) {
  for (const StmtPtr& s : body) {
    for (const ExprPtr& t : s->targets) names_bound(*t, out);
    names_bound(s->body, out);
    names_bound(s->orelse, out);
  }
}

/// A `break` or `continue` of this loop (not of a loop nested in it), or null.
const Stmt* loop_exit(const std::vector<StmtPtr>& body) {
  for (const StmtPtr& s : body) {
    if (s->kind == StmtKind::Break || s->kind == StmtKind::Continue) return s.get();
    if (s->kind == StmtKind::If)
      if (const Stmt* x = loop_exit(s->body) ? loop_exit(s->body) : loop_exit(s->orelse)) return x;
  }
  return nullptr;
}

/// Whether the body's first mention of `name` is a top-level `name = value` whose value does not read it:
/// each copy then defines it before reading it, so a version per copy changes nothing Python could see.
bool defined_before_read(const std::vector<StmtPtr>& body, const std::string& name) {
  for (const StmtPtr& s : body) {
    if (!mentions(*s, name)) continue;
    return s->kind == StmtKind::Assign && s->targets.size() == 1 && s->targets[0]->kind == ExprKind::Name &&
           s->targets[0]->name == name && !expr_uses(*s->value, name);
  }
  return false;
}

ExprPtr index_expr(const std::string& tuple, std::size_t k, SourceLoc loc) {
  auto s = std::make_unique<Expr>();
  s->kind = ExprKind::Subscript;
  s->loc = loc;
  s->kids.push_back(name_expr(tuple, loc));
  auto i = std::make_unique<Expr>();
  i->kind = ExprKind::Int;
  i->loc = loc;
  i->ival = k;
  s->kids.push_back(std::move(i));
  return s;
}

class Unroller {
 public:
  Unroller(const Program& prog, const TypedFunction& fn) : prog_(prog), fn_(fn) {
    locals_ = fn.def->params;
    names_bound(fn.def->body, locals_);
  }

  void run(std::vector<StmtPtr>& body) {
    whole_ = &body;
    unroll(body);
    fold(body);
  }

 private:
  const Program& prog_;
  const TypedFunction& fn_;
  std::vector<std::string> locals_;
  std::vector<StmtPtr>* whole_ = nullptr;
  int temporaries_ = 0;

  [[noreturn]] void error(SourceLoc loc, const std::string& msg) const { fail(fn_.def->file, loc, source_names(msg)); }

  bool is_local(const std::string& name) const {
    return std::find(locals_.begin(), locals_.end(), name) != locals_.end();
  }

  int param_index(const std::string& name) const {
    const auto& p = fn_.def->params;
    auto it = std::find(p.begin(), p.end(), name);
    return it == p.end() ? -1 : static_cast<int>(it - p.begin());
  }

  /// The dotted path a callee expression names through the imports ("numba.cuda.misc.special.literal_unroll").
  std::string path_of(const Expr& e) const {
    if (e.kind == ExprKind::Name) {
      if (is_local(e.name)) return "";
      auto it = prog_.imports.find(e.name);
      return it == prog_.imports.end() ? "" : it->second;
    }
    if (e.kind == ExprKind::Attribute) {
      std::string base = path_of(*e.kids[0]);
      return base.empty() ? "" : base + "." + e.name;
    }
    return "";
  }

  bool is_literal_unroll(const Expr& e) const {
    if (e.kind != ExprKind::Call) return false;
    std::string path = path_of(*e.kids[0]);
    return path.starts_with("numba.") && path.ends_with(".literal_unroll");
  }

  /// The items of literal_unroll's argument, as expressions; `prelude` gets an assignment that evaluates a
  /// tuple written in place once.
  std::vector<ExprPtr> items_of(Expr& call, std::vector<StmtPtr>& prelude) {
    if (call.kids.size() != 2 || !call.keywords.empty())
      error(call.loc, "literal_unroll() takes one argument, the tuple to unroll");
    Expr& arg = *call.kids[1];
    std::vector<ExprPtr> items;
    if (arg.kind == ExprKind::Tuple) {
      std::string tmp = "literal_unroll#" + std::to_string(++temporaries_);
      auto assign = std::make_unique<Stmt>();
      assign->kind = StmtKind::Assign;
      assign->loc = call.loc;
      assign->targets.push_back(name_expr(tmp, call.loc));
      std::size_t n = arg.kids.size();
      assign->value = std::move(call.kids[1]);
      prelude.push_back(std::move(assign));
      for (std::size_t k = 0; k < n; ++k) items.push_back(index_expr(tmp, k, call.loc));
      return items;
    }
    if (arg.kind != ExprKind::Name)
      error(arg.loc, "literal_unroll() takes a tuple: a parameter, a tuple captured from the globals or closure, or "
                     "a tuple written in place (literal_unroll((a, b)))");
    const std::string& t = arg.name;
    int p = param_index(t);
    if (p >= 0) {
      const Type& type = fn_.arg_types[static_cast<std::size_t>(p)];
      if (!type.is_tuple())
        error(arg.loc, "literal_unroll(" + t + "): '" + t + "' is " + type.name() + "; literal_unroll takes a tuple");
      for (std::size_t k = 0; k < type.elements().size(); ++k) items.push_back(index_expr(t, k, arg.loc));
      return items;
    }
    if (is_local(t))
      error(arg.loc, "literal_unroll(" + t + "): '" + t + "' is a local variable, whose length cubridge does not know "
                     "before typing; unroll a parameter, a tuple captured from the globals or closure, or a tuple "
                     "written in place");
    if (auto c = prog_.options.constant_tuples.find(t); c != prog_.options.constant_tuples.end()) {
      for (const std::string& item : c->second) items.push_back(name_expr(item, arg.loc));
      return items;
    }
    if (auto c = prog_.options.constants.find(t); c != prog_.options.constants.end() && c->second.type.is_tuple()) {
      for (std::size_t k = 0; k < c->second.type.elements().size(); ++k) items.push_back(index_expr(t, k, arg.loc));
      return items;
    }
    if (auto r = prog_.options.refused_functions.find(t); r != prog_.options.refused_functions.end())
      error(arg.loc, r->second);
    error(arg.loc, "literal_unroll(" + t + "): '" + t + "' is not a tuple this function can see (a parameter, or a "
                   "tuple captured from the globals or closure)");
  }

  void unroll(std::vector<StmtPtr>& body) {
    for (std::size_t i = 0; i < body.size(); ++i) {
      Stmt& s = *body[i];
      if (s.kind != StmtKind::For || !is_literal_unroll(*s.value)) {
        unroll(s.body);
        unroll(s.orelse);
        continue;
      }
      unroll(s.body);  // literal_unroll loops inside the body first, where their uses are checked in place
      if (const Stmt* x = loop_exit(s.body))
        error(x->loc, std::string(x->kind == StmtKind::Break ? "break" : "continue") +
                          " in a literal_unroll loop is not supported: cubridge runs the body once per item, as "
                          "straight-line code; test a flag instead");
      std::vector<std::string> targets;
      names_bound(*s.targets[0], targets);
      for (const std::string& t : targets)
        if (mentioned_outside(*whole_, &s, t))
          error(s.targets[0]->loc, "the variable '" + t + "' of a literal_unroll loop is used outside the loop; each "
                                   "item gets a variable of its own (their types may differ), so use it only inside");
      // Names the body defines before reading them and nothing outside reads: one version per copy.
      std::vector<std::string> versioned;
      std::vector<std::string> defined;
      names_bound(s.body, defined);
      for (const std::string& d : defined)
        if (std::find(targets.begin(), targets.end(), d) == targets.end() && defined_before_read(s.body, d) &&
            !mentioned_outside(*whole_, &s, d))
          versioned.push_back(d);
      std::vector<StmtPtr> out;
      std::vector<ExprPtr> items = items_of(*s.value, out);
      for (std::size_t k = 0; k < items.size(); ++k) {
        std::string suffix = "#" + std::to_string(k);
        auto assign = std::make_unique<Stmt>();
        assign->kind = StmtKind::Assign;
        assign->loc = s.loc;
        assign->targets.push_back(clone_expr(*s.targets[0]));
        assign->value = std::move(items[k]);
        std::vector<StmtPtr> copy;
        copy.push_back(std::move(assign));
        for (StmtPtr& b : clone_body(s.body)) copy.push_back(std::move(b));
        for (const std::string& t : targets) rename_body(copy, t, t + suffix);
        for (const std::string& v : versioned) rename_body(copy, v, v + suffix);
        for (StmtPtr& c : copy) out.push_back(std::move(c));
      }
      unroll(s.orelse);
      for (StmtPtr& e : s.orelse) out.push_back(std::move(e));  // no break: the else always runs
      body.erase(body.begin() + static_cast<std::ptrdiff_t>(i));
      const std::size_t n = out.size();
      for (std::size_t k = 0; k < n; ++k)
        body.insert(body.begin() + static_cast<std::ptrdiff_t>(i + k), std::move(out[k]));
      i += n;
      --i;
    }
  }

  const std::vector<std::string>* captured_tuple(const Expr& e) const {
    if (e.kind != ExprKind::Name || is_local(e.name)) return nullptr;
    auto c = prog_.options.constant_tuples.find(e.name);
    return c == prog_.options.constant_tuples.end() ? nullptr : &c->second;
  }

  static std::optional<std::int64_t> literal_int(const Expr& e) {
    if (e.kind == ExprKind::Int && !e.int_unsigned) return static_cast<std::int64_t>(e.ival);
    if (e.kind == ExprKind::Unary && e.unop == UnaryOp::Neg && e.kids[0]->kind == ExprKind::Int &&
        !e.kids[0]->int_unsigned)
      return -static_cast<std::int64_t>(e.kids[0]->ival);
    return std::nullopt;
  }

  void fold(Expr& e) {
    for (ExprPtr& k : e.kids)
      if (k) fold(*k);
    if (e.kind == ExprKind::Subscript) {
      const std::vector<std::string>* items = captured_tuple(*e.kids[0]);
      std::optional<std::int64_t> k = items ? literal_int(*e.kids[1]) : std::nullopt;
      if (!k) return;
      auto n = static_cast<std::int64_t>(items->size());
      if (*k < -n || *k >= n)
        error(e.loc, "tuple index " + std::to_string(*k) + " is out of range for '" + e.kids[0]->name + "', a tuple of " +
                         std::to_string(n) + " items");
      std::string item = (*items)[static_cast<std::size_t>(*k < 0 ? *k + n : *k)];
      e = std::move(*name_expr(item, e.loc));
      return;
    }
    if (e.kind == ExprKind::Call && e.kids.size() == 2 && e.keywords.empty() && e.kids[0]->kind == ExprKind::Name &&
        e.kids[0]->name == "tuple" && !is_local("tuple") && !prog_.functions.count("tuple") &&
        !prog_.imports.count("tuple") && e.kids[1]->kind == ExprKind::Tuple) {
      ExprPtr items = std::move(e.kids[1]);
      e = std::move(*items);
      return;
    }
    if (e.kind == ExprKind::Call && e.kids.size() == 2 && e.keywords.empty() && e.kids[0]->kind == ExprKind::Name &&
        e.kids[0]->name == "len" && !is_local("len") && !prog_.functions.count("len")) {
      if (const std::vector<std::string>* items = captured_tuple(*e.kids[1])) {
        SourceLoc loc = e.loc;
        e = Expr();
        e.kind = ExprKind::Int;
        e.loc = loc;
        e.ival = items->size();
      }
    }
  }

  void fold(std::vector<StmtPtr>& body) {
    for (StmtPtr& s : body) {
      for (ExprPtr& t : s->targets)
        if (t) fold(*t);
      for (ExprPtr* p : {&s->value, &s->test, &s->msg})
        if (*p) fold(**p);
      fold(s->body);
      fold(s->orelse);
    }
  }
};

}  // namespace

void unroll_literal_loops(const Program& prog, TypedFunction& fn) {
  Unroller(prog, fn).run(fn.body);
}

}  // namespace cubridge::compiler::typer_detail
