// The fp8 conversions (src/compiler/kernel_library/fp8_functions.cpp): every constructor and conversion
// operator numba-cuda's cuda_fp8 bindings register exists for each fp8 type on sm_89 and sm_90 with its C
// signature; saturating narrowing uses sm_89's instruction and nothing else does; the e8m0 roundings the header
// asserts against are absent; every block balances its braces (one PTX scope per block).
#include <gtest/gtest.h>

#include <string>

#include "compiler/kernel_library/fp8_functions.hpp"

using namespace cubridge;
using namespace cubridge::compiler;

namespace {

bool balanced(const std::string& ptx) {
  int depth = 0;
  for (char c : ptx) {
    depth += c == '{' ? 1 : c == '}' ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth == 0;
}

const Type kFp8[] = {Type::fp8_e4m3(), Type::fp8_e5m2(), Type::fp8_e8m0()};

}  // namespace

TEST(Fp8Functions, EveryConstructorAndConversionOfTheBindingsExists) {
  for (const Type& t : kFp8)
    for (int cc : {89, 90}) {
      for (char from : std::string("hbfdcCsSiIlL")) {
        auto code = fp8_construct(t, from, cc);
        ASSERT_TRUE(code.has_value()) << t.name() << " from " << from;
        EXPECT_EQ(code->signature, std::string({'8', from}));
        EXPECT_TRUE(balanced(code->ptx)) << code->ptx;
      }
      for (char to : std::string("hbfdcCsSiIlL")) {
        auto code = fp8_convert_to(t, to, cc);
        ASSERT_TRUE(code.has_value()) << t.name() << " to " << to;
        EXPECT_EQ(code->signature, std::string({to, '8'}));
        EXPECT_TRUE(balanced(code->ptx)) << code->ptx;
      }
      EXPECT_FALSE(fp8_construct(t, '?', cc).has_value());  // numba-cuda has no constructor from bool
    }
  EXPECT_FALSE(fp8_construct(Type::bfloat16(), 'f', 90).has_value());
}

TEST(Fp8Functions, OnlySaturatingNarrowingUsesTheSm89Instruction) {
  const auto e4 = Fp8Interpretation::E4M3;
  const auto e5 = Fp8Interpretation::E5M2;
  EXPECT_NE(fp8_cvt_to_fp8('f', Fp8Saturation::SatFinite, e4, 90).ptx.find("cvt.rn.satfinite.e4m3x2.f32"), std::string::npos);
  EXPECT_NE(fp8_cvt_to_fp8('f', Fp8Saturation::SatFinite, e5, 90).ptx.find("cvt.rn.satfinite.e5m2x2.f32"), std::string::npos);
  for (char from : {'f', 'd', 'S'}) {
    const std::string ptx = fp8_cvt_to_fp8(from, Fp8Saturation::NoSat, e4, 90).ptx;
    EXPECT_EQ(ptx.find("satfinite"), std::string::npos) << from;
    EXPECT_NE(ptx.find("0x407D000000000000"), std::string::npos) << from;  // E4M3's overflow threshold
  }
  // float64 has no instruction: the header's algorithm, saturated to 0x7E (E4M3) / 0x7B (E5M2)
  EXPECT_NE(fp8_cvt_to_fp8('d', Fp8Saturation::SatFinite, e4, 90).ptx.find("mov.b32 r, 126;"), std::string::npos);
  EXPECT_NE(fp8_cvt_to_fp8('d', Fp8Saturation::SatFinite, e5, 90).ptx.find("mov.b32 r, 123;"), std::string::npos);
  EXPECT_NE(fp8_cvt_to_fp8('d', Fp8Saturation::NoSat, e5, 90).ptx.find("mov.b32 r, 124;"), std::string::npos);
  EXPECT_EQ(fp8_cvt_to_fp8('d', Fp8Saturation::NoSat, e4, 90).signature, "Cd");
}

TEST(Fp8Functions, E8m0RoundsOnlyTowardZeroOrUp) {
  for (char from : {'f', 'd'}) {
    EXPECT_TRUE(fp8_cvt_to_e8m0(from, Fp8Saturation::NoSat, CudaRoundMode::Zero, 90).has_value());
    EXPECT_TRUE(fp8_cvt_to_e8m0(from, Fp8Saturation::SatFinite, CudaRoundMode::PosInf, 90).has_value());
    EXPECT_FALSE(fp8_cvt_to_e8m0(from, Fp8Saturation::NoSat, CudaRoundMode::Nearest, 90).has_value());
    EXPECT_FALSE(fp8_cvt_to_e8m0(from, Fp8Saturation::NoSat, CudaRoundMode::MinInf, 90).has_value());
  }
  // the bfloat16_raw form takes any mode (the header asserts nothing there: only PosInf rounds up)
  auto nearest = fp8_cvt_to_e8m0('S', Fp8Saturation::NoSat, CudaRoundMode::Nearest, 90);
  ASSERT_TRUE(nearest.has_value());
  EXPECT_EQ(nearest->ptx.find("add.u32 r, r, 1"), std::string::npos);
  EXPECT_NE(fp8_cvt_to_e8m0('S', Fp8Saturation::NoSat, CudaRoundMode::PosInf, 90)->ptx.find("add.u32 r, r, 1"),
            std::string::npos);
  // sm_90 rounds a float32 up to bfloat16 with cvt.rp.bf16.f32; sm_89 has no such instruction
  EXPECT_NE(fp8_cvt_to_e8m0('f', Fp8Saturation::NoSat, CudaRoundMode::PosInf, 90)->ptx.find("cvt.rp.bf16.f32"),
            std::string::npos);
  EXPECT_EQ(fp8_cvt_to_e8m0('f', Fp8Saturation::NoSat, CudaRoundMode::PosInf, 89)->ptx.find("cvt.rp.bf16.f32"),
            std::string::npos);
  EXPECT_EQ(fp8_cvt_e8m0_to_bf16raw().signature, "SC");
}

TEST(Fp8Functions, LettersAndTypes) {
  EXPECT_EQ(fp8_letter(Type::fp8_e4m3()), '8');
  EXPECT_EQ(fp8_letter(Type::floating(16)), 'h');
  EXPECT_EQ(fp8_letter(Type::bfloat16()), 'b');
  EXPECT_EQ(fp8_letter(Type::integer(64, false)), 'L');
  EXPECT_EQ(fp8_letter_type('h'), Type::floating(16));
  EXPECT_EQ(Type::fp8_e5m2().name(), "fp8_e5m2");
  EXPECT_EQ(Type::fp8_e8m0().storage_size(), 1);
  EXPECT_NE(Type::fp8_e4m3(), Type::fp8_e5m2());
}
