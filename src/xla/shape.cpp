// Internal: names and sizes of the element types of custom-call buffers.
#include "cubridge/xla/shape.hpp"

#include <array>

namespace cubridge::xla {
namespace {
struct TypeInfo {
  ElementType type;
  const char* numpy;
  const char* xla;
  std::size_t size;
};
constexpr std::array<TypeInfo, 15> kTypes{{
    {ElementType::pred, "bool", "pred", 1},     {ElementType::s8, "int8", "s8", 1},
    {ElementType::s16, "int16", "s16", 2},      {ElementType::s32, "int32", "s32", 4},
    {ElementType::s64, "int64", "s64", 8},      {ElementType::u8, "uint8", "u8", 1},
    {ElementType::u16, "uint16", "u16", 2},     {ElementType::u32, "uint32", "u32", 4},
    {ElementType::u64, "uint64", "u64", 8},     {ElementType::f16, "float16", "f16", 2},
    {ElementType::bf16, "bfloat16", "bf16", 2}, {ElementType::f32, "float32", "f32", 4},
    {ElementType::f64, "float64", "f64", 8},    {ElementType::c64, "complex64", "c64", 8},
    {ElementType::c128, "complex128", "c128", 16},
}};
const TypeInfo* info(ElementType type) noexcept {
  for (const TypeInfo& t : kTypes) {
    if (t.type == type) return &t;
  }
  return nullptr;
}
}  // namespace

std::optional<ElementType> parse_element_type(std::string_view name) noexcept {
  for (const TypeInfo& t : kTypes) {
    if (name == t.numpy || name == t.xla) return t.type;
  }
  return std::nullopt;
}

const char* element_type_name(ElementType type) noexcept {
  const TypeInfo* t = info(type);
  return t != nullptr ? t->numpy : "invalid";
}

std::size_t element_size(ElementType type) noexcept {
  const TypeInfo* t = info(type);
  return t != nullptr ? t->size : 0;
}

bool is_element_type_code(std::uint8_t code) noexcept {
  return info(static_cast<ElementType>(code)) != nullptr;
}

std::int64_t Shape::element_count() const noexcept {
  std::int64_t n = 1;
  for (std::int64_t d : dims) n *= d;
  return n;
}

}  // namespace cubridge::xla
