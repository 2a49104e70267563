// Which argument types a parameter type takes (cubridge/types/accepts.hpp): the rules a launch of a
// kernel compiled for several signatures picks one by.
#include <gtest/gtest.h>

#include "cubridge/types/accepts.hpp"
#include "cubridge/types/type_spelling.hpp"

namespace {

bool takes(const char* param, const char* arg) {
  return cubridge::accepts(*cubridge::parse_type_name(param), *cubridge::parse_type_name(arg));
}

TEST(Accepts, AnyLayoutWhereTheParameterSaysA) {
  EXPECT_TRUE(takes("float32[:, :]", "float32[:, ::1]"));
  EXPECT_TRUE(takes("float32[:, :]", "float32[::1, :]"));
  EXPECT_TRUE(takes("float32[:, :]", "float32[:, :]"));
}

TEST(Accepts, AContiguousParameterTakesItsOwnLayoutOnly) {
  EXPECT_TRUE(takes("float32[:, ::1]", "float32[:, ::1]"));
  EXPECT_FALSE(takes("float32[:, ::1]", "float32[:, :]"));
  EXPECT_FALSE(takes("float32[:, ::1]", "float32[::1, :]"));
}

TEST(Accepts, ReadOnlyArraysOnlyWhereTheKernelDoesNotWrite) {
  EXPECT_TRUE(takes("const float32[:]", "float32[::1]"));
  EXPECT_TRUE(takes("const float32[:]", "const float32[:]"));
  EXPECT_FALSE(takes("float32[:]", "const float32[::1]"));
}

TEST(Accepts, ElementTypeAndRankMustMatchAndScalarsOnlyThemselves) {
  EXPECT_FALSE(takes("float32[:]", "float64[:]"));
  EXPECT_FALSE(takes("float32[:]", "float32[:, :]"));
  EXPECT_FALSE(takes("int64", "float64"));
  EXPECT_TRUE(takes("int64", "int64"));
}

}  // namespace
