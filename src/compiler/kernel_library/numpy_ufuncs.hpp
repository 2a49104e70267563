// Internal: the NumPy ufuncs numba-cuda lowers in kernels (np.sin, np.maximum, np.isnan, ...), typed on
// scalars as numba types them: numba's ufunc_find_matching_loop takes the first of NumPy's loops that every
// input casts to safely (np.can_cast), an integer casting to any float when the inputs mix integers and
// floats. The loops and the casting matrix come from numpy_ufunc_table.inc (generated).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cubridge/types/type.hpp"

namespace cubridge::compiler {

/// One row of the generated table: a ufunc's name, its input count and its loops ("ff->f dd->d").
struct UfuncLoops {
  const char* name;
  int nin;
  const char* loops;
};

/// The loop a call resolved to: the types its inputs convert to and its result.
struct UfuncLoop {
  std::vector<Type> inputs;
  Type output;
  std::string signature;  ///< NumPy's spelling, "ff->f"
  bool lowered = true;    ///< false: numba types it but numba-cuda has no GPU code for it
};

/// The ufunc a NumPy name stands for ("asin" -> "arcsin", "sin" -> "sin"), or nullopt when numba-cuda
/// does not lower it in kernels.
std::optional<std::string_view> numpy_ufunc(std::string_view numpy_name);
/// The number of inputs of a ufunc numpy_ufunc() returned.
int numpy_ufunc_inputs(std::string_view ufunc);
/// Numba's loop for scalar arguments, or nullopt when no loop accepts them.
std::optional<UfuncLoop> resolve_ufunc(std::string_view ufunc, std::span<const Type> args);
/// The loops of a ufunc in NumPy's spelling, for messages ("ff->f, dd->d").
std::string ufunc_loop_list(std::string_view ufunc);
/// The ufuncs numba-cuda lowers, comma-separated, for messages.
std::string numpy_ufunc_names();

}  // namespace cubridge::compiler
