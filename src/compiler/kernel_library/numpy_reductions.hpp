// Internal: NumPy's whole-array reductions in kernels (np.sum(a), np.all(a), np.nanmax(a), ...), written as
// Python-subset source for one rank and dtype and compiled with the kernel (numpy_reductions.cpp), as
// numba-cuda compiles its own Python implementations of them (arraymath.py).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "compiler/frontend/ast.hpp"
#include "cubridge/types/type.hpp"

namespace cubridge::compiler {

/// Whether np.<name> is one of the reductions below.
bool is_numpy_reduction(std::string_view name);

/// Whether arrays offer np.<name> as a method too: a.sum(), a.argmax(), ... (not the nan* ones).
bool is_array_reduction_method(std::string_view name);

/// The names, for messages: "all, any, sum, ..." (with `methods`, only those arrays offer as methods).
std::string numpy_reduction_names(bool methods = false);

/// A reduction's source for an array of `rank` >= 1 dimensions of `dtype`.
struct ReductionSource {
  std::string function;  ///< the name of the function to call with the array (others may be defined too)
  std::string text;      ///< the module's Python text
};

/// The source of np.<name>(a), or nullopt with `why` set when numba-cuda's implementation is not reproduced
/// for that dtype (complex var/std/argmax, records, a bool nansum);
/// np.amin and np.amax are np.min and np.max.
std::optional<ReductionSource> numpy_reduction_source(std::string_view name, int rank, const Type& dtype,
                                                      std::string& why);

/// The parsed source, shared and never modified nor freed (typed functions point into it, as they do into
/// the cmath prelude): one per reduction, rank and dtype, parsed on first use (thread-safe).
const ModuleAst& numpy_reduction_module(const ReductionSource& source);

}  // namespace cubridge::compiler
