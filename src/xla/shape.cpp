// Internal: names and sizes of the element types of custom-call buffers, read off the scalar-type table.
#include "cubridge/xla/shape.hpp"

#include "cubridge/types/scalar_type.hpp"

namespace cubridge::xla {
namespace {

// An ElementType is its table row + 1 (0 stays invalid in opaque bytes).
constexpr const ScalarTypeInfo* row_of(ElementType type) noexcept {
  const auto code = static_cast<std::size_t>(type);
  return code >= 1 && code <= kScalarTypes.size() ? &kScalarTypes[code - 1] : nullptr;
}
static_assert(row_of(ElementType::pred)->xla == "pred" && row_of(ElementType::c128)->xla == "c128" &&
              static_cast<std::size_t>(ElementType::c128) == kScalarTypes.size());

}  // namespace

std::optional<ElementType> parse_element_type(std::string_view name) noexcept {
  const ScalarTypeInfo* row =
      find_scalar_type([name](const ScalarTypeInfo& r) { return name == r.name || name == r.xla; });
  if (row == nullptr) return std::nullopt;
  return static_cast<ElementType>(static_cast<std::uint8_t>(row->type) + 1);
}

const char* element_type_name(ElementType type) noexcept {
  const ScalarTypeInfo* row = row_of(type);
  return row != nullptr ? row->name.data() : "invalid";
}

std::size_t element_size(ElementType type) noexcept {
  const ScalarTypeInfo* row = row_of(type);
  return row != nullptr ? row->itemsize : 0;
}

bool is_element_type_code(std::uint8_t code) noexcept { return row_of(static_cast<ElementType>(code)) != nullptr; }

std::int64_t Shape::element_count() const noexcept {
  std::int64_t n = 1;
  for (std::int64_t d : dims) n *= d;
  return n;
}

}  // namespace cubridge::xla
