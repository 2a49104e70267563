// Internal: a for loop's variable that is used only inside that loop (its body and else) gets a variable of
// its own, as numba's SSA gives each loop's definition its own version: two loops `for i in range(u32)`
// and `for i in range(u32, 1)` type their counters apart (uint64, int64) instead of unifying them to
// float64. Only where no statement outside such loops reads or writes the name, so the rename cannot be
// seen: Python's value of the variable after the loop is never read.
#include <cctype>
#include <string>

#include "compiler/typing/typer.hpp"

namespace cubridge::compiler {

namespace {

void rename_expr(Expr& e, const std::string& from, const std::string& to) {
  if (e.kind == ExprKind::Name && e.name == from) e.name = to;
  for (ExprPtr& k : e.kids)
    if (k) rename_expr(*k, from, to);
}

void rename_body(std::vector<StmtPtr>& body, const std::string& from, const std::string& to);

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
}

}  // namespace cubridge::compiler
