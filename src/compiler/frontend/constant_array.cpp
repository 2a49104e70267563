// Internal: arrays handed over by the Python layer (NumPy module globals and closure cells), checked.
#include <stdexcept>
#include <string>

#include "cubridge/compiler/compile.hpp"
#include "cubridge/error.hpp"

namespace cubridge::compiler {

namespace {
constexpr std::int64_t kMaxRank = 32;
}  // namespace

ConstantArray constant_array(std::string_view dtype_name, std::vector<std::int64_t> shape, std::string bytes) {
  auto t = parse_type_name(dtype_name);
  if (!t || !(t->is_scalar() || t->is_record() || t->is_datetime() || t->is_timedelta()))
    throw cubridge::InvalidArgument("constant array: dtype '" + std::string(dtype_name) +
                                "' is not a number type or a record; accepted: bool, int8-int64, uint8-uint64, "
                                "float16, float32, float64, complex64, complex128, Record(...), "
                                "datetime64[unit], timedelta64[unit]");
  if (static_cast<std::int64_t>(shape.size()) > kMaxRank)  // rank 0 is numba's 0-d array: one element
    throw cubridge::InvalidArgument("constant array: rank " + std::to_string(shape.size()) +
                                " is not supported; expected 0 to " + std::to_string(kMaxRank) + " dimensions");
  std::int64_t itemsize = t->storage_size();
  std::int64_t count = 1;
  for (std::int64_t d : shape) {
    if (d < 0) throw cubridge::InvalidArgument("constant array: dimension " + std::to_string(d) + " is negative");
    if (d != 0 && count > (INT64_MAX / itemsize) / d)
      throw cubridge::InvalidArgument("constant array: the shape's element count overflows");
    count *= d;
  }
  if (static_cast<std::int64_t>(bytes.size()) != count * itemsize)
    throw cubridge::InvalidArgument("constant array: " + std::to_string(bytes.size()) + " bytes given for " +
                                std::to_string(count) + " elements of " + t->name() + " (" +
                                std::to_string(count * itemsize) + " bytes expected)");
  return {*t, std::move(shape), std::move(bytes)};
}

}  // namespace cubridge::compiler
