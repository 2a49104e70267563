// Internal: renaming a variable in a syntax tree, finding where a name occurs, and spelling a version's name
// ("x#2", "x#v2") as the source does in messages.
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

std::string source_names(const std::string& msg) {
  std::string out;
  out.reserve(msg.size());
  for (std::size_t i = 0; i < msg.size(); ++i) {
    const bool after_name = !out.empty() && (std::isalnum(static_cast<unsigned char>(out.back())) || out.back() == '_');
    const std::size_t digits = i + 1 < msg.size() && msg[i + 1] == 'v' ? i + 2 : i + 1;  // "#v2": variable_versions.cpp
    if (msg[i] == '#' && after_name && digits < msg.size() && std::isdigit(static_cast<unsigned char>(msg[digits]))) {
      i = digits - 1;
      while (i + 1 < msg.size() && std::isdigit(static_cast<unsigned char>(msg[i + 1]))) ++i;
      continue;
    }
    out += msg[i];
  }
  return out;
}

}  // namespace cubridge::compiler
