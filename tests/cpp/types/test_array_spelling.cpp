// Numba's array spellings, "T[:, ::1]" and "array(T, 2d, C)": every form and every refusal (the parser the
// kernel signatures and the compiler's type names share).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "cubridge/types/array_spelling.hpp"

namespace {

using cubridge::ArraySpelling;
using cubridge::parse_array_spelling;

// `element` views the parsed text: the literals passed here outlive it.
ArraySpelling parsed(std::string_view text) {
  auto a = parse_array_spelling(text);
  EXPECT_TRUE(a.has_value()) << text;
  return a.value_or(ArraySpelling{});
}

std::string refusal(const std::string& text) {
  try {
    parse_array_spelling(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ArraySpelling, SliceDimensionsGiveRankAndLayout) {
  struct Case { const char* text; const char* element; int ndim; char layout; };
  for (const Case& c : {Case{"float32[:]", "float32", 1, 'A'}, Case{"float32[::1]", "float32", 1, 'C'},
                        Case{" int64 [:, ::1] ", "int64", 2, 'C'}, Case{"f8[::1, :, :]", "f8", 3, 'F'},
                        Case{"complex64[:,:,:]", "complex64", 3, 'A'}, Case{"u1[ : , :: 1 ]", "u1", 2, 'C'}}) {
    ArraySpelling a = parsed(c.text);
    EXPECT_EQ(a.element, c.element) << c.text;
    EXPECT_EQ(a.ndim, c.ndim) << c.text;
    EXPECT_EQ(a.layout, c.layout) << c.text;
  }
}

TEST(ArraySpelling, NumbasStrFormGivesRankAndLayout) {
  ArraySpelling a = parsed("array(float32, 2d, F)");
  EXPECT_EQ(a.element, "float32");
  EXPECT_EQ(a.ndim, 2);
  EXPECT_EQ(a.layout, 'F');
  EXPECT_EQ(parsed("array(int8, 0d, C)").ndim, 0);
  EXPECT_EQ(parsed("array(bool, 32d, A)").ndim, 32);
}

TEST(ArraySpelling, WhatIsNotArrayShapedIsNotAnArray) {
  for (const char* text : {"float32", "UniTuple(int32 x 2)", "float32*", "", "arrays"})
    EXPECT_FALSE(parse_array_spelling(text).has_value()) << text;
}

TEST(ArraySpelling, MalformedSpellingsSayWhatIsWrong) {
  EXPECT_NE(refusal("float32[]").find("'float32[]' has no dimensions; write float32[:] for 1-d"), std::string::npos);
  EXPECT_NE(refusal("float32[::2]").find("'::2' is not a dimension; write ':' (any stride) or '::1'"),
            std::string::npos);
  EXPECT_NE(refusal("float32[::1, ::1]").find("'::1' may appear only once"), std::string::npos);
  EXPECT_NE(refusal("float32[:, ::1, :]").find("'::1' must be the last dimension (C order) or the first (F order), "
                                               "not dimension 1"),
            std::string::npos);
  EXPECT_NE(refusal("float32[:").find("unbalanced brackets in 'float32[:'"), std::string::npos);
  EXPECT_NE(refusal("float32[:]x").find("'float32[:]x': text after the closing ']'"), std::string::npos);
  EXPECT_NE(refusal("array(float32, 2d)").find("needs three fields: array(float32, 2d, C)"), std::string::npos);
  EXPECT_NE(refusal("array(float32, xd, C)").find("'xd' is not a rank; write it as 1d, 2d, ..."), std::string::npos);
  EXPECT_NE(refusal("array(float32, 99999d, C)").find("is not a rank"), std::string::npos);
  EXPECT_NE(refusal("array(float32, 33d, C)").find("'33d' has 33 dimensions; at most 32 are accepted"),
            std::string::npos);
  EXPECT_NE(refusal("array(float32, 1d, Q)").find("layout 'Q' is not one of C, F, A"), std::string::npos);
  std::string dims = ":";
  for (int i = 1; i < 33; ++i) dims += ", :";
  EXPECT_NE(refusal("float32[" + dims + "]").find("has 33 dimensions; at most 32 are accepted"), std::string::npos);
}

}  // namespace
