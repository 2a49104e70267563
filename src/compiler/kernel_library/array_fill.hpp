// Internal: a.fill(v) in kernels, written as numba-cuda's own implementation (np/arrayobj.py's overload of
// "fill": `arr[:] = val`, returning None) in Python-subset source and compiled with the kernel, specialised
// like any function on the array's and the value's types. It stores into the array; it allocates nothing.
#pragma once

#include "compiler/frontend/ast.hpp"

namespace cubridge::compiler {

/// The name of the function that fills its first argument with its second.
inline constexpr const char* kArrayFillFunction = "__array_fill";

/// The parsed source, shared and never modified nor freed (typed functions point into it), parsed on first
/// use (thread-safe).
const ModuleAst& array_fill_module();

}  // namespace cubridge::compiler
