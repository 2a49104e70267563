// Internal: how deeply parsed code nests, measured without recursion. The parser's own recursion is bounded
// (DepthGuard), but chains it builds in loops ("x and x and ... x", "a + b + ... + z") nest as deeply as
// they are long, and the typer and emitter walk them recursively: past kMaxNesting levels the code is
// refused with its location instead of overflowing the stack.
#include <string>
#include <vector>

#include "compiler/frontend/ast.hpp"

namespace cubridge::compiler {

namespace {

struct Item {
  const Expr* e;
  const Stmt* s;
  int depth;
};

void walk(std::vector<Item> todo, const std::string& file) {
  while (!todo.empty()) {
    Item it = todo.back();
    todo.pop_back();
    if (it.depth > kMaxNesting)
      fail(file, it.e ? it.e->loc : it.s->loc,
           "this expression or block nests more than " + std::to_string(kMaxNesting) +
               " levels deep (a chain of that many 'and', '+', ... operands, or nested blocks); split it into "
               "named parts");
    if (it.e) {
      for (const ExprPtr& k : it.e->kids)
        if (k) todo.push_back({k.get(), nullptr, it.depth + 1});
      continue;
    }
    const Stmt& s = *it.s;
    for (const ExprPtr& t : s.targets)
      if (t) todo.push_back({t.get(), nullptr, it.depth + 1});
    for (const Expr* e : {s.value.get(), s.test.get(), s.msg.get()})
      if (e) todo.push_back({e, nullptr, it.depth + 1});
    for (const auto* block : {&s.body, &s.orelse})
      for (const StmtPtr& b : *block) todo.push_back({nullptr, b.get(), it.depth + 1});
  }
}

}  // namespace

void check_nesting(const FunctionDef& f) {
  std::vector<Item> todo;
  for (const StmtPtr& s : f.body) todo.push_back({nullptr, s.get(), 1});
  walk(std::move(todo), f.file);
}

void check_nesting(const Expr& e, const std::string& file) { walk({{&e, nullptr, 1}}, file); }

}  // namespace cubridge::compiler
