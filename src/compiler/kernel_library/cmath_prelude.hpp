// Internal: the cmath module for kernels as Python source (cmath_prelude.cpp), parsed once per process.
#pragma once

#include <string_view>

#include "compiler/frontend/ast.hpp"

namespace cubridge::compiler {

/// The Python text of the cmath implementations: one function `__cmath_<name>` per entry point.
std::string_view cmath_prelude_source();
/// The parsed prelude, shared and never modified (typing clones function bodies).
const ModuleAst& cmath_prelude();

}  // namespace cubridge::compiler
