// Tests of the typestr grammar (CAI v3 "typestr") and the DLPack dtype mapping. CPU only.
#include <gtest/gtest.h>
#include <bit>

#include <stdexcept>
#include <string>

#include "cubridge/array/dtype.hpp"

using cubridge::DType;
using cubridge::parse_typestr;

namespace {
std::string error_of(const char* t) {
  try {
    parse_typestr(t, "__cuda_array_interface__['typestr']");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(DType, AcceptsEveryGpuKindInEveryByteOrder) {
  for (const char* t : {"|b1", "<i1", "<i2", "<i4", "<i8", "<u1", "<u2", "<u4", "<u8", "<f2", "<f4",
                        "<f8", "<c8", "<c16", ">i4", ">f8", ">c16", "=f4", "|f4", "|V1", "|V12"}) {
    EXPECT_NO_THROW(parse_typestr(t, "t")) << t;
  }
}

TEST(DType, NormalisesByteOrder) {
  EXPECT_EQ(parse_typestr("=f4", "t").byteorder, '<');  // the test machines are little-endian
  EXPECT_EQ(parse_typestr("<u1", "t").byteorder, '|');
  EXPECT_EQ(parse_typestr(">b1", "t").typestr(), std::string("|b1"));
  EXPECT_EQ(parse_typestr(">f8", "t").typestr(), std::string(">f8"));
  EXPECT_FALSE(parse_typestr(">f8", "t").native());
  EXPECT_TRUE(parse_typestr("<f8", "t").native());
  EXPECT_EQ(parse_typestr("<c16", "t").typestr(), std::string("<c16"));
  EXPECT_EQ(parse_typestr("|V12", "t").typestr(), std::string("|V12"));
  EXPECT_EQ(parse_typestr("<c16", "t").alignment(), 8u);
  EXPECT_EQ(parse_typestr("|V12", "t").alignment(), 1u);
}

TEST(DType, ItemsizeMustMatchKind) {
  EXPECT_EQ(error_of("<f3"),
            "__cuda_array_interface__['typestr']: '<f3' is not a valid typestr (itemsize 3 is not one "
            "of 2, 4, 8 for kind 'f')");
  EXPECT_NE(error_of("|b2").find("itemsize 2 is not one of 1 for kind 'b'"), std::string::npos);
  EXPECT_NE(error_of("<i16").find("itemsize 16 is not one of 1, 2, 4, 8"), std::string::npos);
  EXPECT_NE(error_of("<c4").find("for kind 'c'"), std::string::npos);
  EXPECT_NE(error_of("<f16").find("itemsize 16"), std::string::npos);  // long double
  EXPECT_NE(error_of("|V0").find("itemsize 0"), std::string::npos);
}

// datetime64 / timedelta64 (Numba's NPDatetime/NPTimedelta): 8 bytes, the unit part of the dtype and of its
// canonical typestr; multiples of a unit and other sizes are refused; DLPack has no datetime dtype.
TEST(DType, DatetimesCarryTheirUnit) {
  const DType d = parse_typestr("<M8[D]", "t");
  EXPECT_EQ(d.kind, 'M');
  EXPECT_EQ(d.itemsize, 8u);
  EXPECT_EQ(d.unit, 4);
  EXPECT_EQ(d.alignment(), 8u);
  EXPECT_EQ(d.typestr(), std::string("<M8[D]"));
  EXPECT_EQ(parse_typestr("=m8[ms]", "t").typestr(), std::string("<m8[ms]"));
  EXPECT_EQ(parse_typestr("<M8", "t").typestr(), std::string("<M8"));  // the generic unit
  EXPECT_EQ(parse_typestr(">m8[as]", "t").typestr(), std::string(">m8[as]"));
  EXPECT_NE(parse_typestr("<M8[D]", "t"), parse_typestr("<M8[s]", "t"));
  EXPECT_NE(parse_typestr("<M8[D]", "t"), parse_typestr("<m8[D]", "t"));
  EXPECT_FALSE(cubridge::to_dlpack_dtype(d).has_value());
  EXPECT_NE(error_of("<M8[10s]").find("'<M8[10s]' is not a valid typestr (the unit '[10s]' is not one of [Y, M, W"),
            std::string::npos);
  EXPECT_NE(error_of("<M8[B]").find("the unit '[B]'"), std::string::npos);
  EXPECT_NE(error_of("<m8[]").find("the unit '[]'"), std::string::npos);
  EXPECT_NE(error_of("<M4[D]").find("a datetime64/timedelta64 is 8 bytes: write <M8[unit]"), std::string::npos);
}

TEST(DType, RefusesKindsThatCannotLiveOnTheGpu) {
  EXPECT_NE(error_of("|O8").find("kind 'O' (Python objects cannot live in GPU memory)"), std::string::npos);
  EXPECT_NE(error_of("<x4").find("is not supported on the GPU; accepted kinds: b, i, u, f, c, V, S, U, M, m"),
            std::string::npos);
  EXPECT_NE(error_of("|a5").find("(NumPy's old spelling of byte strings: write 'S')"), std::string::npos);
  EXPECT_NE(error_of("<x4").find("kind 'x'"), std::string::npos);
}

// NumPy's fixed-width strings are bytes held as they are (Numba's CharSeq / UnicodeCharSeq elements): 'S'
// counts bytes, 'U' counts UTF-32 code points of 4 bytes each, aligned to 4.
TEST(DType, FixedWidthStringsAreOpaqueBytes) {
  const DType s = parse_typestr("|S12", "t");
  EXPECT_EQ(s.kind, 'S');
  EXPECT_EQ(s.itemsize, 12u);
  EXPECT_EQ(s.alignment(), 1u);
  EXPECT_STREQ(s.typestr(), "|S12");
  const DType u = parse_typestr("<U12", "t");
  EXPECT_EQ(u.kind, 'U');
  EXPECT_EQ(u.itemsize, 48u);
  EXPECT_EQ(u.alignment(), 4u);
  EXPECT_STREQ(u.typestr(), "<U12");
  EXPECT_FALSE(parse_typestr(">U2", "t").native());
  EXPECT_FALSE(cubridge::to_dlpack_dtype(u).has_value());
  EXPECT_NE(error_of("|S0").find("itemsize 0 is not one of any positive size for kind 'S'"), std::string::npos);
  EXPECT_NE(error_of("<U0").find("for kind 'U'"), std::string::npos);
  EXPECT_NE(error_of("<U999999999").find("larger than 2**30"), std::string::npos);
}

TEST(DType, RefusesMalformedGrammar) {
  EXPECT_NE(error_of("f4").find("expected a byte order"), std::string::npos);
  EXPECT_NE(error_of("").find("''"), std::string::npos);
  EXPECT_NE(error_of("!f4").find("byte order '!' is not one of '<', '>', '|', '='"), std::string::npos);
  EXPECT_NE(error_of("<f4x").find("the size '4x' is not a decimal number of bytes"), std::string::npos);
  EXPECT_NE(error_of("<f-4").find("not a decimal number"), std::string::npos);
  EXPECT_NE(error_of("|V99999999999").find("larger than 2**30"), std::string::npos);
}

TEST(DType, DLPackRoundTrip) {
  for (const char* t : {"|b1", "<i1", "<i8", "<u2", "<f2", "<f4", "<f8", "<c8", "<c16"}) {
    DType d = parse_typestr(t, "t");
    auto dl = cubridge::to_dlpack_dtype(d);
    ASSERT_TRUE(dl.has_value()) << t;
    EXPECT_EQ(cubridge::from_dlpack_dtype(*dl), d) << t;
  }
  EXPECT_FALSE(cubridge::to_dlpack_dtype(parse_typestr(">f4", "t")).has_value());
  EXPECT_FALSE(cubridge::to_dlpack_dtype(parse_typestr("|V8", "t")).has_value());
  auto bf16 = CubridgeDLDataType{CUBRIDGE_DL_BFLOAT, 16, 1};
  EXPECT_EQ(cubridge::from_dlpack_dtype(bf16), cubridge::bfloat16_dtype());
  try {
    cubridge::from_dlpack_dtype(CubridgeDLDataType{CUBRIDGE_DL_BFLOAT, 32, 1});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("code 4, bits 32, lanes 1) has no NumPy typestr: bfloat has 16 bits only"),
              std::string::npos);
  }
  EXPECT_THROW(cubridge::from_dlpack_dtype(CubridgeDLDataType{CUBRIDGE_DL_BFLOAT, 16, 2}), std::invalid_argument);
  EXPECT_THROW(cubridge::from_dlpack_dtype(CubridgeDLDataType{CUBRIDGE_DL_FLOAT, 32, 4}), std::invalid_argument);
}

// bfloat16 (DLPack's kDLBfloat/16, ml_dtypes.bfloat16): a DType of its own that no typestr parses to, since
// NumPy and CuPy spell it '<V2' and a bare '<V2' is opaque bytes; exported to DLPack as kDLBfloat/16.
TEST(DType, BFloat16) {
  const DType b = cubridge::bfloat16_dtype();
  EXPECT_EQ(b.itemsize, 2u);
  EXPECT_TRUE(b.native());
  EXPECT_EQ(b.alignment(), 2u);
  EXPECT_STREQ(b.typestr(), std::endian::native == std::endian::little ? "<V2" : ">V2");
  const auto dl = cubridge::to_dlpack_dtype(b);
  ASSERT_TRUE(dl.has_value());
  EXPECT_EQ(dl->code, CUBRIDGE_DL_BFLOAT);
  EXPECT_EQ(dl->bits, 16);
  EXPECT_EQ(dl->lanes, 1);
  EXPECT_EQ(cubridge::from_dlpack_dtype(*dl), b);
  // The typestr NumPy writes for it stays opaque bytes, never bfloat16, and float16 stays float16.
  EXPECT_NE(parse_typestr("<V2", "t"), b);
  EXPECT_NE(parse_typestr("<f2", "t"), b);
  EXPECT_EQ(parse_typestr("<V2", "t").kind, 'V');
  // No typestr parses to bfloat16's kind letter.
  EXPECT_THROW(parse_typestr("<E2", "t"), std::invalid_argument);
}
