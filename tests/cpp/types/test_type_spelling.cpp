// The one grammar of type spellings: every row of the spelling table parses to the type Numba names
// that way, Type::name() reads back to the same type, and a bad spelling gets the one error message.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "cubridge/types/signature.hpp"
#include "cubridge/types/type_spelling.hpp"
#include "spelling_table.hpp"

namespace {

using cubridge::parse_signature;
using cubridge::parse_type_name;
using cubridge::Type;

TEST(TypeSpelling, EveryRowOfTheTableDenotesItsNumbaType) {
  for (const auto& row : cubridge::test::kSpellings) {
    std::optional<Type> t = parse_type_name(row.spelling);
    ASSERT_TRUE(t.has_value()) << row.spelling;
    EXPECT_EQ(t->name(), row.numba_name) << row.spelling;
    std::optional<Type> again = parse_type_name(t->name());  // Numba's name is itself a spelling
    ASSERT_TRUE(again.has_value()) << t->name();
    EXPECT_EQ(*again, *t) << row.spelling;
  }
}

TEST(TypeSpelling, EveryRowIsASignatureArgumentAndAReturnType) {
  for (const auto& row : cubridge::test::kSpellings) {
    const std::string text = std::string(row.spelling) + "(" + std::string(row.spelling) + ", int32)";
    cubridge::Signature s = parse_signature(text);
    ASSERT_EQ(s.args.size(), 2u) << text;
    EXPECT_EQ(s.args[0].name(), row.numba_name) << text;
    ASSERT_TRUE(s.result.has_value()) << text;
    EXPECT_EQ(s.result->name(), row.numba_name) << text;
  }
}

TEST(TypeSpelling, PointersAreTheirOwnKind) {
  Type p = *parse_type_name("const float32*");
  EXPECT_TRUE(p.is_pointer());
  EXPECT_TRUE(p.readonly());
  EXPECT_EQ(p.pointee(), Type::floating(32));
  EXPECT_TRUE(parse_type_name("void*")->pointee().is_none());
  EXPECT_FALSE(parse_type_name("UniTuple(float32* x 2)").has_value());
  EXPECT_FALSE(parse_type_name("Tuple(int32, float32*)").has_value());
}

// NumPy's fixed-width strings as Numba names them: CharSeq "[char x n]" (n bytes), UnicodeCharSeq
// "[unichr x n]" (n UTF-32 code points); array elements and record fields, never tuple items.
TEST(TypeSpelling, DatetimesAreNumbasNPDatetimeWithTheUnitInTheType) {
  Type d = *parse_type_name("datetime64[D]");
  EXPECT_TRUE(d.is_datetime());
  EXPECT_EQ(d.datetime_unit(), 4);
  EXPECT_EQ(d.storage_size(), 8);
  EXPECT_EQ(d.name(), "datetime64[D]");
  EXPECT_EQ(parse_type_name("timedelta64[ms]")->name(), "timedelta64[ms]");
  EXPECT_EQ(parse_type_name("datetime64")->name(), "datetime64[]");  // the generic unit, as numba names it
  EXPECT_EQ(*parse_type_name("datetime64[]"), Type::datetime(14));
  EXPECT_NE(*parse_type_name("datetime64[D]"), *parse_type_name("datetime64[s]"));
  EXPECT_NE(*parse_type_name("datetime64[D]"), *parse_type_name("timedelta64[D]"));
  EXPECT_NE(parse_type_name("datetime64[D]")->hash(), parse_type_name("datetime64[s]")->hash());
  EXPECT_EQ(*parse_type_name("array(datetime64[D], 1d, C)"), Type::array(Type::datetime(4), 1, 'C'));
  for (const char* bad : {"datetime64[10s]", "datetime64[B]", "datetime64[D", "timedelta64D", "datetime32[D]"})
    EXPECT_FALSE(parse_type_name(bad).has_value()) << bad;
  EXPECT_THROW(Type::datetime(3), std::invalid_argument);  // NumPy's old business-day code
}

TEST(TypeSpelling, FixedWidthStringsAreNumbasCharSeqs) {
  Type b = *parse_type_name("[char x 12]");
  EXPECT_TRUE(b.is_char_seq());
  EXPECT_EQ(b.bits(), 8);
  EXPECT_EQ(b.char_count(), 12);
  EXPECT_EQ(b.storage_size(), 12);
  EXPECT_EQ(b.name(), "[char x 12]");
  Type u = *parse_type_name("[unichr x 12]");
  EXPECT_EQ(u.bits(), 32);
  EXPECT_EQ(u.char_count(), 12);
  EXPECT_EQ(u.storage_size(), 48);
  EXPECT_NE(b, u);
  EXPECT_EQ(*parse_type_name("array([unichr x 3], 1d, C)"), Type::array(Type::char_seq(3, true), 1, 'C'));
  EXPECT_EQ(*parse_type_name("[char x 3][::1]"), Type::array(Type::char_seq(3, false), 1, 'C'));
  Type r = *parse_type_name("Record(x[type=int32;offset=0],y[type=[unichr x 2];offset=4];12;False)");
  EXPECT_EQ(r.elements()[1], Type::char_seq(2, true));
  for (const char* bad : {"[char x 0]", "[char x -1]", "[unichr x]", "[char x 12]*", "UniTuple([char x 2] x 2)",
                          "[char x 999999999999]"})
    EXPECT_FALSE(parse_type_name(bad).has_value()) << bad;
  EXPECT_THROW(Type::char_seq(0, false), std::invalid_argument);
}

TEST(TypeSpelling, TuplesHoldNumbersArraysAndTuplesAndMayBeEmpty) {
  // numba-cuda's kernels take tuples of arrays, nested tuples and () as arguments.
  EXPECT_EQ(parse_type_name("Tuple()")->leaf_count(), 0u);
  EXPECT_EQ(parse_type_name("()")->elements().size(), 0u);
  Type arrays = *parse_type_name("UniTuple(array(float64, 1d, C) x 3)");
  EXPECT_EQ(arrays.name(), "UniTuple(array(float64, 1d, C) x 3)");
  EXPECT_EQ(*parse_type_name("UniTuple(float64[::1] x 3)"), arrays);
  Type nested = *parse_type_name("Tuple(Tuple(), UniTuple(int64 x 2), array(int64, 1d, C))");
  EXPECT_EQ(*parse_type_name(nested.name()), nested);
  EXPECT_EQ(nested.leaf_count(), 3u);
  EXPECT_FALSE(parse_type_name("Tuple(Record(a=int8), int32)").has_value());
}

TEST(TypeSpelling, NamedTuplesKeepTheirClassAndFieldNames) {
  Type p = Type::named_tuple("Point", {"x", "y"}, {Type::integer(64, true), Type::floating(64)});
  EXPECT_TRUE(p.is_tuple() && p.is_named_tuple());
  EXPECT_EQ(p.name(), "NamedTuple(Point, x=int64, y=float64)");
  EXPECT_EQ(*parse_type_name(p.name()), p);
  EXPECT_EQ(parse_type_name(p.name())->hash(), p.hash());
  EXPECT_EQ(p.field_index("y"), 1);
  EXPECT_NE(p, Type::tuple({Type::integer(64, true), Type::floating(64)}));  // the names are part of the type
  EXPECT_NE(p, Type::named_tuple("Other", {"x", "y"}, p.elements()));
  EXPECT_FALSE(parse_type_name("NamedTuple(Point, x=int64, 1y=int64)").has_value());
  EXPECT_FALSE(parse_type_name("NamedTuple(Point, x)").has_value());
  EXPECT_THROW(Type::named_tuple("Point", {"x"}, {}), std::invalid_argument);
  EXPECT_FALSE(parse_type_name("float32*[:]").has_value());
}

TEST(TypeSpelling, ArraysAndRecordsKeepTheirFactsApart) {
  // An aligned record's "aligned" and a read-only array's "readonly" are two facts, not one field.
  Type rec = *parse_type_name("Record(a=int8, b=float64; aligned)");
  EXPECT_TRUE(rec.aligned());
  EXPECT_FALSE(rec.readonly());
  Type arr = *parse_type_name("const float32[:, :, ::1]");
  EXPECT_EQ(arr.ndim(), 3);
  EXPECT_EQ(arr.bits(), 0);  // bits are a scalar's width only
  EXPECT_TRUE(arr.readonly());
  EXPECT_FALSE(arr.aligned());
}

TEST(TypeSpelling, ABadSpellingGetsTheOneMessage) {
  for (const auto& bad : cubridge::test::kBadSpellings) {
    EXPECT_FALSE(parse_type_name(bad.spelling).has_value()) << bad.spelling;
    const std::string text = "void(" + std::string(bad.spelling) + ")";
    try {
      parse_signature(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const std::invalid_argument& e) {
      const std::string expected = "signature '" + text + "': unknown argument type '" + std::string(bad.spelling) +
                                   "': " + std::string(bad.says);
      EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected) << e.what();
    }
  }
}

TEST(TypeSpelling, SignatureShapes) {
  EXPECT_EQ(parse_signature("float32(float32, float32)").str(), "float32(float32, float32)");
  EXPECT_EQ(parse_signature("(float64,)").str(), "(float64)");
  EXPECT_EQ(parse_signature("float32[:], int64").str(), "(array(float32, 1d, A), int64)");
  EXPECT_EQ(parse_signature("array(float32, 1d, C)").str(), "(array(float32, 1d, C))");
  EXPECT_EQ(parse_signature("UniTuple(int32 x 2)(int32)").str(), "UniTuple(int32 x 2)(int32)");
  EXPECT_EQ(parse_signature("void()").str(), "none()");
  EXPECT_EQ(parse_signature("void(float32[:], const float32*)"), parse_signature("none(array(float32, 1d, A), const float32*)"));
  EXPECT_THROW(parse_signature("int32,, int32"), std::invalid_argument);
  EXPECT_THROW(parse_signature("void(none)"), std::invalid_argument);
  EXPECT_THROW(parse_signature("void(float32[:)"), std::invalid_argument);
}

}  // namespace
