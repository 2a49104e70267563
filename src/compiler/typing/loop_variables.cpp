// Internal: variable versions, as numba's SSA gives each definition its own (so each may have its own type),
// where the version a read sees is certain from the syntax alone:
// - a for loop's variable used only inside that loop (its body and else) gets a variable of its own: two
//   loops `for i in range(u32)` and `for i in range(u32, 1)` type their counters apart (uint64, int64)
//   instead of unifying them to float64. Only where no statement outside such loops reads or writes the
//   name, so the rename cannot be seen: Python's value of the variable after the loop is never read.
// - a plain `x = a` followed in the same block by another plain `x = b`, with no other definition of x, no
//   break and no continue between them: the reads between them (and b itself) see only `a`, so that stretch
//   gets a version of its own (arr = arr.reshape(6); arr = arr.reshape(3, 2)).
// - a loop whose body starts its use of x with a plain `x = a`, where nothing outside the body reads x:
//   every read in the body sees a definition of the same iteration, so x gets a version of its own inside
//   (a variable re-bound to another type inside a loop and never read after it).
#include <cctype>
#include <string>

#include "compiler/typing/renaming.hpp"
#include "compiler/typing/typer.hpp"

namespace cubridge::compiler {

void rename_expr(Expr& e, const std::string& from, const std::string& to) {
  if (e.kind == ExprKind::Name && e.name == from) e.name = to;
  for (ExprPtr& k : e.kids)
    if (k) rename_expr(*k, from, to);
}

void rename_stmt(Stmt& s, const std::string& from, const std::string& to) {
  for (ExprPtr& t : s.targets)
    if (t) rename_expr(*t, from, to);
  for (ExprPtr* p : {&s.value, &s.test, &s.msg})
    if (*p) rename_expr(**p, from, to);
  rename_body(s.body, from, to);
  rename_body(s.orelse, from, to);
}

void rename_body(std::vector<StmtPtr>& body, const std::string& from, const std::string& to) {
  for (StmtPtr& s : body) rename_stmt(*s, from, to);
}

bool expr_uses(const Expr& e, const std::string& name) {
  if (e.kind == ExprKind::Name && e.name == name) return true;
  for (const ExprPtr& k : e.kids)
    if (k && expr_uses(*k, name)) return true;
  return false;
}

namespace {

/// Whether `name` occurs in `body` outside every for loop whose target is `name`.
bool used_outside_its_loops(const std::vector<StmtPtr>& body, const std::string& name) {
  for (const StmtPtr& s : body) {
    if (s->kind == StmtKind::For && s->targets.size() == 1 && s->targets[0]->kind == ExprKind::Name &&
        s->targets[0]->name == name) {
      if (s->value && expr_uses(*s->value, name)) return true;  // the iterable is evaluated before the loop
      continue;
    }
    for (const ExprPtr& t : s->targets)
      if (t && expr_uses(*t, name)) return true;
    for (const ExprPtr* p : {&s->value, &s->test, &s->msg})
      if (*p && expr_uses(**p, name)) return true;
    if (used_outside_its_loops(s->body, name) || used_outside_its_loops(s->orelse, name)) return true;
  }
  return false;
}

void split(std::vector<StmtPtr>& body, const std::vector<StmtPtr>& whole, int& counter) {
  for (StmtPtr& s : body) {
    if (s->kind == StmtKind::For && s->targets.size() == 1 && s->targets[0]->kind == ExprKind::Name) {
      const std::string name = s->targets[0]->name;
      if (name.find('#') == std::string::npos && !used_outside_its_loops(whole, name)) {
        std::string fresh = name + "#" + std::to_string(++counter);
        s->targets[0]->name = fresh;
        rename_body(s->body, name, fresh);
        rename_body(s->orelse, name, fresh);
      }
    }
    split(s->body, whole, counter);
    split(s->orelse, whole, counter);
  }
}

bool binds_name(const Expr& t, const std::string& name) {
  if (t.kind == ExprKind::Name) return t.name == name;
  if (t.kind == ExprKind::Tuple)
    for (const ExprPtr& k : t.kids)
      if (binds_name(*k, name)) return true;
  return false;
}

bool binds_anywhere(const Stmt& s, const std::string& name) {
  for (const ExprPtr& t : s.targets)
    if (t && binds_name(*t, name)) return true;
  for (const StmtPtr& b : s.body)
    if (binds_anywhere(*b, name)) return true;
  for (const StmtPtr& b : s.orelse)
    if (binds_anywhere(*b, name)) return true;
  return false;
}

bool has_loop_exit(const Stmt& s) {
  if (s.kind == StmtKind::Break || s.kind == StmtKind::Continue) return true;
  for (const StmtPtr& b : s.body)
    if (has_loop_exit(*b)) return true;
  for (const StmtPtr& b : s.orelse)
    if (has_loop_exit(*b)) return true;
  return false;
}

/// Whether the target expression reads `name` (a store into x[i] or x.f reads x; binding a name does not).
bool target_reads(const Expr& t, const std::string& name) {
  if (t.kind == ExprKind::Name) return false;
  if (t.kind == ExprKind::Tuple) {
    for (const ExprPtr& k : t.kids)
      if (target_reads(*k, name)) return true;
    return false;
  }
  return expr_uses(t, name);
}

/// Whether `s` reads `name` anywhere, leaving out the body of `skip` (a loop statement inside it, or itself).
bool reads(const Stmt& s, const std::string& name, const Stmt* skip) {
  for (const ExprPtr& t : s.targets)
    if (t && (s.kind == StmtKind::AugAssign ? expr_uses(*t, name) : target_reads(*t, name))) return true;
  for (const ExprPtr* p : {&s.value, &s.test, &s.msg})
    if (*p && expr_uses(**p, name)) return true;
  if (&s != skip)
    for (const StmtPtr& b : s.body)
      if (reads(*b, name, skip)) return true;
  for (const StmtPtr& b : s.orelse)
    if (reads(*b, name, skip)) return true;
  return false;
}

bool is_plain_definition(const Stmt& s, const std::string& name) {
  return s.kind == StmtKind::Assign && s.targets.size() == 1 && s.targets[0]->kind == ExprKind::Name &&
         s.targets[0]->name == name;
}

std::string fresh(const std::string& name, int& counter) { return name + "#" + std::to_string(++counter); }

/// The straight-line rule (see the top of the file), in `body` and the blocks inside it.
void version_stretches(std::vector<StmtPtr>& body, int& counter) {
  for (std::size_t i = 0; i < body.size(); ++i) {
    Stmt& s = *body[i];
    version_stretches(s.body, counter);
    version_stretches(s.orelse, counter);
    if (s.kind != StmtKind::Assign || s.targets.size() != 1 || s.targets[0]->kind != ExprKind::Name) continue;
    const std::string name = s.targets[0]->name;
    std::size_t j = i + 1;
    bool clean = true;
    for (; j < body.size() && !is_plain_definition(*body[j], name); ++j)
      if (binds_anywhere(*body[j], name) || has_loop_exit(*body[j])) {
        clean = false;
        break;
      }
    if (!clean || j == body.size()) continue;
    std::string to = fresh(name, counter);
    s.targets[0]->name = to;
    for (std::size_t k = i + 1; k < j; ++k) rename_stmt(*body[k], name, to);
    rename_expr(*body[j]->value, name, to);
  }
}

/// The loop rule (see the top of the file): `whole` is the function's body.
void version_loop_locals(std::vector<StmtPtr>& body, const std::vector<StmtPtr>& whole, int& counter) {
  for (StmtPtr& sp : body) {
    Stmt& s = *sp;
    version_loop_locals(s.body, whole, counter);
    version_loop_locals(s.orelse, whole, counter);
    if (s.kind != StmtKind::For && s.kind != StmtKind::While) continue;
    std::vector<std::string> candidates;
    for (const StmtPtr& b : s.body)
      if (b->kind == StmtKind::Assign && b->targets.size() == 1 && b->targets[0]->kind == ExprKind::Name)
        candidates.push_back(b->targets[0]->name);
    for (const std::string& name : candidates) {
      const Stmt* first = nullptr;
      for (const StmtPtr& b : s.body) {
        bool mentioned = binds_anywhere(*b, name) || reads(*b, name, nullptr);
        if (mentioned) {
          first = b.get();
          break;
        }
      }
      if (first == nullptr || !is_plain_definition(*first, name) || expr_uses(*first->value, name)) continue;
      bool read_outside = false;
      for (const StmtPtr& w : whole)
        if (reads(*w, name, &s)) read_outside = true;
      if (read_outside) continue;
      rename_body(s.body, name, fresh(name, counter));
    }
  }
}

}  // namespace

std::string source_names(const std::string& msg) {
  std::string out;
  out.reserve(msg.size());
  for (std::size_t i = 0; i < msg.size(); ++i) {
    const bool after_name = !out.empty() && (std::isalnum(static_cast<unsigned char>(out.back())) || out.back() == '_');
    if (msg[i] == '#' && after_name && i + 1 < msg.size() && std::isdigit(static_cast<unsigned char>(msg[i + 1]))) {
      while (i + 1 < msg.size() && std::isdigit(static_cast<unsigned char>(msg[i + 1]))) ++i;
      continue;
    }
    out += msg[i];
  }
  return out;
}

void split_loop_variables(std::vector<StmtPtr>& body) {
  int counter = 0;
  split(body, body, counter);
  version_stretches(body, counter);
  version_loop_locals(body, body, counter);
}

}  // namespace cubridge::compiler
