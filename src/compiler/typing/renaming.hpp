// Internal: renaming a variable in a syntax tree, and finding where a name occurs — what the rewrites
// before typing share (variable_versions.cpp: variable versions; literal_unroll.cpp: unrolled copies).
#pragma once

#include <string>
#include <vector>

#include "compiler/frontend/ast.hpp"

namespace cubridge::compiler {

/// Every Name `from` in e (targets too) becomes `to`.
void rename_expr(Expr& e, const std::string& from, const std::string& to);
void rename_stmt(Stmt& s, const std::string& from, const std::string& to);
void rename_body(std::vector<StmtPtr>& body, const std::string& from, const std::string& to);
/// Whether the Name `name` occurs in e.
bool expr_uses(const Expr& e, const std::string& name);

}  // namespace cubridge::compiler
