// Tests of the 'descr' value rules (CAI v3 "descr", NumPy's grammar): sizes of flat, nested and subarray
// fields, and every refusal by message. CPU only.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "cubridge/array/descr.hpp"

using cubridge::DescrField;
using cubridge::check_descr;
using cubridge::descr_size;
using cubridge::kMaxDescrDepth;
using cubridge::parse_typestr;

namespace {
const std::string kPath = "__cuda_array_interface__['descr']";

DescrField leaf(std::string typestr, std::vector<std::int64_t> shape = {}) {
  return {std::move(typestr), {}, false, std::move(shape)};
}
DescrField nested(std::vector<DescrField> fields, std::vector<std::int64_t> shape = {}) {
  return {"", std::move(fields), true, std::move(shape)};
}
std::string error_of(auto fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {  // ArrayInterfaceError, or parse_typestr's own
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Descr, FlatFieldsAddTheirItemsizes) {
  EXPECT_EQ(descr_size(std::vector{leaf("<f4"), leaf("<i8"), leaf("|u1")}, kPath), 13);
}

TEST(Descr, SubarrayShapesMultiplyTheFieldSize) {
  EXPECT_EQ(descr_size(std::vector{leaf("<f4", {2, 3}), leaf("<f8", {0})}, kPath), 24);
}

TEST(Descr, NestedListsAreSizedRecursively) {
  std::vector<DescrField> inner{leaf("<f4"), leaf("<f4")};
  EXPECT_EQ(descr_size(std::vector{nested(inner, {2}), leaf("<i2")}, kPath), 18);
}

TEST(Descr, CheckDescrAcceptsTheTypestrsItemsize) {
  EXPECT_NO_THROW(check_descr(std::vector{leaf("<f4"), leaf("<f4")}, parse_typestr("|V8", "t"), kPath));
}

TEST(Descr, CheckDescrRefusesAnotherItemsizeByName) {
  EXPECT_EQ(error_of([] { check_descr(std::vector{leaf("<f4")}, parse_typestr("|V8", "t"), kPath); }),
            kPath + ": describes 4 bytes per element but typestr '|V8' has 8");
}

TEST(Descr, AnEmptyListDescribesNoBytesAsNumPyReadsIt) {
  EXPECT_EQ(descr_size({}, kPath), 0);  // np.dtype([]).itemsize; np.dtype([('a', [])]).descr keeps the []
  EXPECT_EQ(descr_size(std::vector{nested({}), leaf("<f4")}, kPath), 4);
}

TEST(Descr, ANegativeExtentIsRefusedWithItsPath) {
  EXPECT_EQ(error_of([] { descr_size(std::vector{leaf("<f4"), leaf("<f4", {2, -1})}, kPath); }),
            kPath + "[1][2]: extent -1 is negative");
}

TEST(Descr, ABadTypestrIsNamedAtItsPath) {
  EXPECT_NE(error_of([] { descr_size(std::vector{nested({leaf("<f3")})}, kPath); }).find(kPath + "[0][1][0][1]"),
            std::string::npos);
}

TEST(Descr, SizesPast64BitsAreRefused) {
  EXPECT_EQ(error_of([] { descr_size(std::vector{leaf("<f8", {1ll << 40, 1ll << 40})}, kPath); }),
            kPath + "[0]: the size in bytes overflows 64 bits");
  EXPECT_EQ(error_of([] { descr_size(std::vector{leaf("<f8", {1ll << 59}), leaf("<f8", {1ll << 59})}, kPath); }),
            kPath + ": the size in bytes overflows 64 bits");
}

TEST(Descr, NestingPastTheLimitIsRefused) {
  DescrField f = leaf("<f4");
  for (int i = 0; i < kMaxDescrDepth; ++i) f = nested({f});
  EXPECT_NE(error_of([&] { descr_size(std::vector{f}, kPath); }).find("descr lists nest more than 32 deep"),
            std::string::npos);
}
