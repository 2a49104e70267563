// Internal: the libdevice functions kernels may call as numba.cuda.libdevice.<name> (numba-cuda's list and
// types, generated into libdevice_table.inc). A function with output pointers returns them, after its own
// result, as a tuple (libdevice.sincos(x) -> (sin, cos); libdevice.frexp(x) -> (mantissa, exponent)).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cubridge/types/type.hpp"

namespace cubridge::compiler {

/// One row of the generated table: "__nv_frexp", "float64", "float64 int32*".
struct LibdeviceRow {
  const char* symbol;
  const char* result;
  const char* params;
};

struct LibdeviceFunction {
  std::string symbol;                 ///< "__nv_frexp"
  std::optional<Type> result;         ///< the function's own result; none for void
  std::vector<Type> params;           ///< every parameter's type, outputs included
  std::vector<bool> is_output;        ///< per parameter: a pointer it writes
  /// The types the caller passes (the non-output parameters).
  std::vector<Type> inputs() const;
  /// What numba-cuda returns: the result and the outputs, a tuple when more than one.
  Type returned() const;
};

/// libdevice.<name> (without "__nv_"), or nullopt.
std::optional<LibdeviceFunction> libdevice_function(std::string_view name);

}  // namespace cubridge::compiler
