// Custom-call element types read off the scalar-type table: one per row, valued row + 1 (the opaque
// bytes' code), found by NumPy's name or XLA's, with the row's size.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "cubridge/types/scalar_type.hpp"
#include "cubridge/xla/shape.hpp"

namespace cubridge::xla {
namespace {

TEST(ElementTypes, OnePerRowByEitherName) {
  for (std::size_t i = 0; i < kScalarTypes.size(); ++i) {
    const ScalarTypeInfo& row = kScalarTypes[i];
    const auto type = static_cast<ElementType>(i + 1);
    EXPECT_EQ(parse_element_type(row.name), type) << row.name;
    EXPECT_EQ(parse_element_type(row.xla), type) << row.xla;
    EXPECT_EQ(std::string(element_type_name(type)), row.name);
    EXPECT_EQ(element_size(type), row.itemsize);
    EXPECT_TRUE(is_element_type_code(static_cast<std::uint8_t>(i + 1)));
  }
  EXPECT_FALSE(is_element_type_code(0));
  EXPECT_FALSE(is_element_type_code(static_cast<std::uint8_t>(kScalarTypes.size() + 1)));
  EXPECT_EQ(std::string(element_type_name(static_cast<ElementType>(0))), "invalid");
  EXPECT_FALSE(parse_element_type("f4").has_value());  // typestrs and aliases are not element type names
  EXPECT_FALSE(parse_element_type("half").has_value());
}

TEST(ElementTypes, EnumeratorsAreNamedAsXlaNamesTheirRows) {
  // The opaque codes are stored: each enumerator keeps its value, and its name is its row's XLA name.
  const std::pair<ElementType, const char*> pinned[] = {
      {ElementType::pred, "pred"}, {ElementType::s8, "s8"},     {ElementType::s16, "s16"},   {ElementType::s32, "s32"},
      {ElementType::s64, "s64"},   {ElementType::u8, "u8"},     {ElementType::u16, "u16"},   {ElementType::u32, "u32"},
      {ElementType::u64, "u64"},   {ElementType::f16, "f16"},   {ElementType::bf16, "bf16"}, {ElementType::f32, "f32"},
      {ElementType::f64, "f64"},   {ElementType::c64, "c64"},   {ElementType::c128, "c128"}};
  ASSERT_EQ(std::size(pinned), kScalarTypes.size());
  for (std::size_t i = 0; i < std::size(pinned); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(pinned[i].first), i + 1) << pinned[i].second;
    EXPECT_EQ(parse_element_type(pinned[i].second), pinned[i].first) << pinned[i].second;
  }
}

}  // namespace
}  // namespace cubridge::xla
