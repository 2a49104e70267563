// Opaque bytes: round trips, and every malformed input is an error naming the problem, never a crash.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>

#include "cubridge/xla/opaque.hpp"

using namespace cubridge::xla;

namespace {
std::string sample() {
  return OpaqueWriter()
      .add_int("n", 2048)
      .add_float("scale", 1.5)
      .add_bytes("tag", std::string("a\0b", 3))
      .add("dims", std::vector<std::int64_t>{2, -3, 4})
      .add("shape", Shape{ElementType::f32, {128, 16}})
      .bytes();
}
template <class E>
std::string message_of(const std::string& bytes) {
  try {
    OpaqueReader r(bytes);
  } catch (const E& e) {
    return e.what();
  }
  return "no exception";
}
}  // namespace

TEST(Opaque, RoundTripsEveryKind) {
  std::string bytes = sample();
  OpaqueReader r(bytes);
  EXPECT_EQ(r.size(), 5u);
  EXPECT_EQ(r.get_int("n"), 2048);
  EXPECT_EQ(r.get_float("scale"), 1.5);
  EXPECT_EQ(r.get_bytes("tag"), std::string_view("a\0b", 3));
  EXPECT_EQ(r.get_ints("dims"), (std::vector<std::int64_t>{2, -3, 4}));
  EXPECT_EQ(r.get_shape("shape"), (Shape{ElementType::f32, {128, 16}}));
  EXPECT_EQ(r.get_shape("shape").byte_size(), 128u * 16u * 4u);
  EXPECT_EQ(decode_opaque(bytes).size(), 5u);
}

TEST(Opaque, EmptyEncodingIsValid) {
  OpaqueReader r(OpaqueWriter().bytes());
  EXPECT_EQ(r.size(), 0u);
}

TEST(Opaque, MissingAndMistypedEntriesNameThemselves) {
  std::string bytes = sample();
  OpaqueReader r(bytes);
  try {
    r.get_int("m");
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "opaque has no entry 'm' (entries: 'n', 'scale', 'tag', 'dims', 'shape')");
  }
  try {
    r.get_int("scale");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "opaque entry 'scale' is of kind float64, not int64");
  }
}

TEST(Opaque, MalformedHeaders) {
  EXPECT_EQ(message_of<std::invalid_argument>(""),
            "opaque: malformed at byte 0: the header needs 8 bytes but there are 0 (was it encoded with "
            "cubridge.xla.encode_opaque?)");
  EXPECT_NE(message_of<std::invalid_argument>(std::string("XXXX\x01\0\0\0", 8)).find("the magic is not \"CBXO\""),
            std::string::npos);
  std::string v2 = OpaqueWriter().bytes();
  v2[4] = 2;
  EXPECT_EQ(message_of<std::invalid_argument>(v2),
            "opaque: malformed at byte 4: version 2 is not supported (this reader knows 1)");
}

TEST(Opaque, TruncationAnywhereIsAnError) {
  std::string bytes = sample();
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_THROW(OpaqueReader(bytes.substr(0, cut)), std::invalid_argument) << "cut at " << cut;
  }
  EXPECT_NE(message_of<std::invalid_argument>(bytes.substr(0, bytes.size() - 3)).find("remain"),
            std::string::npos);
}

TEST(Opaque, TrailingBytesUnknownKindsAndDuplicates) {
  EXPECT_EQ(message_of<std::invalid_argument>(sample() + "x"),
            "opaque: malformed at byte " + std::to_string(sample().size()) +
                ": 1 bytes follow the last of 5 entries");
  std::string bad_kind = OpaqueWriter().add_int("n", 1).bytes();
  bad_kind[8] = 9;
  EXPECT_NE(message_of<std::invalid_argument>(bad_kind).find("has kind 9, which is not one of"),
            std::string::npos);
  std::string one = OpaqueWriter().add_int("n", 1).bytes();
  std::string twice = one + one.substr(8);
  twice[6] = 2;
  EXPECT_NE(message_of<std::invalid_argument>(twice).find("entry 'n' appears twice"), std::string::npos);
}

TEST(Opaque, BadShapesAreRejectedOnBothSides) {
  EXPECT_THROW(OpaqueWriter().add("s", Shape{ElementType::f32, {-1}}), std::invalid_argument);
  EXPECT_THROW(OpaqueWriter().add("s", Shape{ElementType::f32, std::vector<std::int64_t>(65, 1)}),
               std::invalid_argument);
  std::string bytes = OpaqueWriter().add("s", Shape{ElementType::f32, {3}}).bytes();
  std::string bad_type = bytes;
  bad_type[8 + 2 + 1] = 99;
  EXPECT_NE(message_of<std::invalid_argument>(bad_type).find("element type code 99"), std::string::npos);
  std::string negative = bytes;
  negative[bytes.size() - 1] = '\x80';
  EXPECT_NE(message_of<std::invalid_argument>(negative).find("negative dimension"), std::string::npos);
}

TEST(Opaque, WriterRejectsBadNames) {
  try {
    OpaqueWriter().add_int("", 1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "opaque entry name '' has 0 bytes: names have 1 to 255 bytes");
  }
  EXPECT_THROW(OpaqueWriter().add_int("a", 1).add_int("a", 2), std::invalid_argument);
}

TEST(Opaque, RandomBytesNeverCrash) {
  std::mt19937 rng(7);
  std::string base = sample();
  for (int round = 0; round < 2000; ++round) {
    std::string bytes = base;
    for (int k = 0; k < 3; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    try {
      OpaqueReader r(bytes);
      for (auto name : r.names()) (void)r.get(name);
    } catch (const std::invalid_argument&) {
    }
  }
}
