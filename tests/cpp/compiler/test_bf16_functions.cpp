// The bfloat16 tables (src/compiler/kernel_library/bf16_functions.cpp, bf16_names.cpp): every public name of
// numba.cuda.bf16 names a binding the compiler has on sm_80 and sm_90, with cuda_bf16.h's C signature, the
// per-target instructions of the header, and no binding cuda_bf16.h lacks.
#include <gtest/gtest.h>

#include <string>

#include "compiler/kernel_library/bf16_functions.hpp"
#include "cubridge/compiler/bf16_names.hpp"

using namespace cubridge::compiler;

TEST(Bf16Functions, EveryPublicNameHasItsBindingOnBothTargets) {
  ASSERT_GT(bf16_public_names().size(), 150u);
  for (const auto& [pub, binding] : bf16_public_names()) {
    for (int cc : {80, 90}) {
      auto f = bf16_function(binding, cc);
      ASSERT_TRUE(f.has_value()) << pub << " -> " << binding << " at sm_" << cc;
      EXPECT_FALSE(f->ptx.empty() && f->libdevice.empty()) << binding;
      EXPECT_GE(f->signature.size(), 2u) << binding;
    }
    EXPECT_EQ(bf16_binding_of(pub), binding);
  }
  EXPECT_EQ(bf16_binding_of("int16_to_bfloat16_rz"), "__short2bfloat16_rz");
  EXPECT_EQ(bf16_binding_of("bfloat16_to_uint64_rd"), "__bfloat162ull_rd");
  EXPECT_EQ(bf16_binding_of("hadd"), "__hadd");
  EXPECT_EQ(bf16_binding_of("htrunc"), "htrunc");
  EXPECT_FALSE(bf16_binding_of("hpow").has_value());
}

TEST(Bf16Functions, SignaturesAreCudaBf16s) {
  EXPECT_EQ(bf16_function("__hadd", 90)->signature, "bbb");
  EXPECT_EQ(bf16_function("__hfma_relu", 90)->signature, "bbbb");
  EXPECT_EQ(bf16_function("__heq", 90)->signature, "?bb");
  EXPECT_EQ(bf16_function("__hisinf", 90)->signature, "ib");
  EXPECT_EQ(bf16_function("__bfloat162char_rz", 90)->signature, "cb");
  EXPECT_EQ(bf16_function("__ull2bfloat16_ru", 90)->signature, "bL");
  EXPECT_EQ(bf16_function("__double2bfloat16", 90)->signature, "bd");
  EXPECT_EQ(bf16_function("__bfloat16_as_ushort", 90)->signature, "Sb");
  EXPECT_EQ(bf16_function("hsin", 90)->libdevice, "sin");
}

TEST(Bf16Functions, NamesCudaBf16LacksAreUnknown) {
  for (const char* n : {"__bfloat162char_rn", "__char2bfloat16_rn", "__double2bfloat16_rz", "__bfloat162double_rn",
                        "__hpow", "__float2bfloat16_rx", "__bfloat162float_rz", "hsinh"})
    EXPECT_FALSE(bf16_function(n, 90).has_value()) << n;
}

TEST(Bf16Functions, InstructionsFollowTheTarget) {
  EXPECT_EQ(bf16_function("__hadd", 90)->ptx, "add.bf16 $0, $1, $2;");
  EXPECT_NE(bf16_function("__hadd", 80)->ptx.find("fma.rn.bf16"), std::string::npos);
  EXPECT_EQ(bf16_function("__hmul_rn", 90)->ptx, "mul.rn.bf16 $0, $1, $2;");
  EXPECT_EQ(bf16_function("htanh_approx", 90)->ptx, "tanh.approx.bf16 $0, $1;");
  EXPECT_NE(bf16_function("htanh_approx", 80)->ptx.find("tanh.approx.f32"), std::string::npos);
  // round-to-odd through float32 for wide integers, one rounding for 16-bit ones
  EXPECT_NE(bf16_function("__int2bfloat16_rd", 80)->ptx.find("cvt.rm.bf16.f32"), std::string::npos);
  EXPECT_NE(bf16_function("__int2bfloat16_rd", 80)->ptx.find("or.b32"), std::string::npos);
  EXPECT_EQ(bf16_function("__short2bfloat16_ru", 80)->ptx.find("or.b32"), std::string::npos);
}

TEST(Bf16Functions, OperatorsMathAndCastsNameTheirBindings) {
  EXPECT_EQ(bf16_operator_function("!="), "__hneu");  // cuda_bf16's operator!= is unordered
  EXPECT_EQ(bf16_operator_function("=="), "__heq");
  EXPECT_EQ(bf16_operator_function("/"), "__hdiv");
  EXPECT_EQ(bf16_math_function("exp2"), "hexp2");
  EXPECT_EQ(bf16_math_function("fabs"), "");
  EXPECT_EQ(bf16_cast_function('s', true), "__short2bfloat16_rn");
  EXPECT_EQ(bf16_cast_function('L', false), "__bfloat162ull_rz");
  EXPECT_EQ(bf16_cast_function('h', true), "");
}
