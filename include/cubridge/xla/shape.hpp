// The element type and dimensions of one array buffer that a custom call receives.
// Implements: XLA "Custom calls" buffer shapes (the XLA primitive types a classic target can be given).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace cubridge::xla {

/// XLA primitive types that a custom call's buffer can hold: one per row of the scalar-type table
/// (cubridge/types/scalar_type.hpp), named as XLA names it, valued as its row + 1. Values are ours (stable:
/// they are stored in opaque data), not XLA's PrimitiveType (the table's xla_primitive column).
enum class ElementType : std::uint8_t {
  pred = 1, s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64, c64, c128
};

/// NumPy's name ("float32", "bool", "bfloat16", ...) or XLA's ("f32", "pred", "bf16", ...).
std::optional<ElementType> parse_element_type(std::string_view name) noexcept;
/// NumPy's name of the type ("float32").
const char* element_type_name(ElementType type) noexcept;
std::size_t element_size(ElementType type) noexcept;
/// True for a code that names an ElementType (used when decoding untrusted bytes).
bool is_element_type_code(std::uint8_t code) noexcept;

struct Shape {
  ElementType type = ElementType::f32;
  std::vector<std::int64_t> dims;

  std::int64_t element_count() const noexcept;
  std::size_t byte_size() const noexcept { return static_cast<std::size_t>(element_count()) * element_size(type); }
  friend bool operator==(const Shape&, const Shape&) = default;
};

}  // namespace cubridge::xla
