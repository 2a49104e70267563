// Internal: the complex loops (F->F, FF->?, ...) of the NumPy ufuncs numba-cuda lowers in kernels, as Python
// source compiled with the kernel (numpy_complex_loops.cpp), the way the cmath prelude is: each loop keeps
// numba-cuda's own implementation (its ufunc table, numba/cuda/ufuncs.py, and npyfuncs).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "compiler/frontend/ast.hpp"

namespace cubridge::compiler {

/// The prelude function computing `ufunc`'s complex loop on complex numbers of `bits` (64 or 128) bits,
/// or nullopt when numba-cuda has no complex loop for it.
std::optional<std::string> numpy_complex_loop(std::string_view ufunc, int bits);
/// The ufuncs with a complex loop, comma-separated, for messages.
std::string numpy_complex_loop_names();
/// The parsed prelude, shared and never modified (typing clones function bodies).
const ModuleAst& numpy_complex_prelude();

}  // namespace cubridge::compiler
