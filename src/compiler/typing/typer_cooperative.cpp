// Internal: typing of numba-cuda's cooperative groups (see function_typer.hpp): cuda.cg.this_grid() gives a
// GridGroup, whose .sync() waits for every thread of the grid and returns int32 0 (numba-cuda types it
// after cudaCGSynchronize's cudaError_t). That is all of numba-cuda's cg module.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

Type FunctionTyper::this_grid(Expr& e, const Intrinsic& in) {
  if (in.name != "cg.this_grid")
    error(e.loc, in.shown + "() is not supported; numba-cuda's cooperative groups offer cuda.cg.this_grid() and "
                            "its .sync()");
  arity(e, in.shown, e.kids.size() - 1, 0, 0);
  return Type::grid_group();
}

Type FunctionTyper::grid_group_method(Expr& e, const Expr& callee) {
  if (callee.name != "sync")
    error(e.loc, "method '" + callee.name + "' of a GridGroup is not supported; a grid group offers .sync()");
  arity(e, "GridGroup.sync", e.kids.size() - 1, 0, 0);
  e.callee = Callee::Builtin;
  e.target = "grid_sync";
  return Type::integer(32, true);
}

}  // namespace cubridge::compiler::typer_detail
