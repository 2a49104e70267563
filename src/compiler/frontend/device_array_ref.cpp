// Internal: GPU arrays handed over by the Python layer (module globals and closure cells with
// __cuda_array_interface__), checked.
#include <string>

#include "cubridge/compiler/compile.hpp"
#include "cubridge/error.hpp"

namespace cubridge::compiler {

DeviceArrayRef device_array_ref(std::string_view type_name, std::uint64_t address, std::vector<std::int64_t> shape,
                                std::vector<std::int64_t> strides) {
  auto t = parse_type_name(type_name);
  if (!t || !t->is_array() || !t->dtype().is_scalar())  // 0-d: numba's array(T, 0d, C)
    throw cubridge::InvalidArgument("device array: type '" + std::string(type_name) +
                                    "' is not an array of numbers");
  const auto rank = static_cast<std::size_t>(t->ndim());
  if (shape.size() != rank || strides.size() != rank)
    throw cubridge::InvalidArgument("device array: " + t->name() + " needs " + std::to_string(rank) +
                                    " extents and strides, got " + std::to_string(shape.size()) + " and " +
                                    std::to_string(strides.size()));
  std::int64_t count = 1;
  for (std::int64_t d : shape) {
    if (d < 0) throw cubridge::InvalidArgument("device array: extent " + std::to_string(d) + " is negative");
    if (d != 0 && count > INT64_MAX / d) throw cubridge::InvalidArgument("device array: the element count overflows");
    count *= d;
  }
  return {*t, address, std::move(shape), std::move(strides)};
}

}  // namespace cubridge::compiler
