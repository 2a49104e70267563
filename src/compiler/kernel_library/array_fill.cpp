// Internal: the source of a.fill(v) (see array_fill.hpp). The slice store broadcasts v to every element of
// an array of any rank, converting it to the dtype as numba's setitem does (typer_slice_store.cpp).
#include "compiler/kernel_library/array_fill.hpp"

#include <string>

namespace cubridge::compiler {

const ModuleAst& array_fill_module() {
  static const ModuleAst parsed = parse_module(std::string("def ") + kArrayFillFunction + "(a, v):\n    a[:] = v\n",
                                               "<cubridge array fill>");
  return parsed;
}

}  // namespace cubridge::compiler
