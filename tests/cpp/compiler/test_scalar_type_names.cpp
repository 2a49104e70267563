// The compiler's type names read off the scalar-type table: every row that NumPy has by each of its
// spellings, the language's own names (int, float, complex, double, byte, int_, float_), and none.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "cubridge/types/type_spelling.hpp"
#include "cubridge/types/scalar_type.hpp"

namespace cubridge::compiler {
namespace {

TEST(ScalarTypeNames, EveryNumpyRowByEachSpelling) {
  for (const ScalarTypeInfo& row : kScalarTypes) {
    for (std::string_view spelling : {row.name, row.alias, row.short_typestr()}) {
      if (spelling.empty()) continue;
      std::optional<Type> t = parse_type_name(spelling);
      if (!row.numpy()) {  // bfloat16: numba.cuda.types.bfloat16, a kind of its own (no NumPy scalar)
        ASSERT_TRUE(t.has_value()) << spelling;
        EXPECT_TRUE(t->is_bfloat16() && !t->is_scalar()) << spelling;
        continue;
      }
      ASSERT_TRUE(t.has_value()) << spelling;
      EXPECT_TRUE(t->is_scalar());
      EXPECT_EQ(t->name(), row.name) << spelling;
      EXPECT_EQ(t->storage_size(), row.itemsize) << spelling;
    }
  }
}

TEST(ScalarTypeNames, ThePythonNamesAndNone) {
  for (auto [name, numba] : {std::pair{"int", "int64"}, {"int_", "int64"}, {"byte", "uint8"}, {"float", "float64"},
                             {"float_", "float64"}, {"double", "float64"}, {"complex", "complex128"},
                             {"none", "none"}, {"void", "none"}}) {
    std::optional<Type> t = parse_type_name(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_EQ(t->name(), numba) << name;
  }
  for (const char* name : {"bf16", "pred", "f32", "<f4", "int128"})
    EXPECT_FALSE(parse_type_name(name).has_value()) << name;
}

}  // namespace
}  // namespace cubridge::compiler
