// Internal: Python's operator module in kernels (see function_typer.hpp). numba types operator.add(a, b) as
// a + b (its typing templates key the operators by these very functions), so a function value bound to one
// (op = operator.truediv; r[0] = op(x, y)) compiles as the operator expression: the call is rewritten into
// it and typed as written code is, fastmath's float32 division included.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

struct Binaries {
  const char* name;
  BinOp op;
};
constexpr Binaries kBinaries[] = {{"add", BinOp::Add},         {"sub", BinOp::Sub},           {"mul", BinOp::Mul},
                                  {"truediv", BinOp::TrueDiv}, {"floordiv", BinOp::FloorDiv}, {"mod", BinOp::Mod},
                                  {"pow", BinOp::Pow},         {"lshift", BinOp::LShift},     {"rshift", BinOp::RShift},
                                  {"and_", BinOp::BitAnd},     {"or_", BinOp::BitOr},         {"xor", BinOp::BitXor}};
struct Comparisons {
  const char* name;
  CmpOp op;
};
constexpr Comparisons kComparisons[] = {{"lt", CmpOp::Lt}, {"le", CmpOp::Le}, {"gt", CmpOp::Gt},
                                        {"ge", CmpOp::Ge}, {"eq", CmpOp::Eq}, {"ne", CmpOp::Ne}};
struct Unaries {
  const char* name;
  UnaryOp op;
};
constexpr Unaries kUnaries[] = {{"neg", UnaryOp::Neg}, {"pos", UnaryOp::Pos}, {"invert", UnaryOp::Invert},
                                {"not_", UnaryOp::Not}};

}  // namespace

Type FunctionTyper::operator_call(Expr& e, const std::string& fname) {
  auto take_operands = [&](std::size_t n) {
    if (!e.keywords.empty()) error(e.loc, "operator." + fname + "() takes no keyword arguments");
    if (e.kids.size() - 1 != n)
      error(e.loc, "operator." + fname + "() takes " + std::to_string(n) + " argument(s), got " +
                       std::to_string(e.kids.size() - 1));
    e.kids.erase(e.kids.begin());  // the callee: the expression becomes the operator's
    e.callee = Callee::Unresolved;
  };
  for (const Binaries& b : kBinaries)
    if (fname == b.name) {
      take_operands(2);
      e.kind = ExprKind::Binary;
      e.binop = b.op;
      return expr_inner(e);
    }
  for (const Comparisons& c : kComparisons)
    if (fname == c.name) {
      take_operands(2);
      e.kind = ExprKind::Compare;
      e.cmp_ops = {c.op};
      return expr_inner(e);
    }
  for (const Unaries& u : kUnaries)
    if (fname == u.name) {
      take_operands(1);
      e.kind = ExprKind::Unary;
      e.unop = u.op;
      return expr_inner(e);
    }
  error(e.loc, "operator." + fname + " is not supported in compiled code; the operator functions are add, sub, mul, "
                                     "truediv, floordiv, mod, pow, lshift, rshift, and_, or_, xor, lt, le, gt, ge, eq, "
                                     "ne, neg, pos, invert and not_");
}

}  // namespace cubridge::compiler::typer_detail
