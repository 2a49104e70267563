// The NVVM IR of builtins and math functions where the differential corpus test (tests/python/
// compiler/test_compile_corpus.py) found our results differing from numba-cuda: min/max follow CPython's
// algorithm except for two float32/float64 arguments (numba-cuda's fmin/fmax), math.fmod is libdevice's
// C fmod, and two-argument math on integers converts them to the float result type first.
#include <gtest/gtest.h>

#include <string>

#include "cubridge/compiler/compile.hpp"
#include "cubridge/types/signature.hpp"

using namespace cubridge;
using namespace cubridge::compiler;
using cubridge::parse_signature;  // the types floor (include/cubridge/types/)
using cubridge::parse_type_name;
using cubridge::Signature;
using cubridge::Type;
using cubridge::TypeKind;

namespace {
std::string ir(const char* src, const char* sig) {
  CompileOptions o;
  o.module_name = "m";
  return compile_to_nvvm_ir(src, "f", parse_signature(sig), o).nvvm_ir;
}
bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }
}  // namespace

TEST(EmitBuiltins, MinMaxOfTwoFloat32Or64AreFminFmaxAsNumbaCuda) {
  std::string s = ir("def f(a, b):\n    return max(a, b)\n", "(float64, float64)");
  EXPECT_TRUE(has(s, "call double @llvm.maxnum.f64(")) << s;
  std::string m = ir("def f(a, b):\n    return min(a, b)\n", "(float32, float64)");
  EXPECT_TRUE(has(m, "call double @llvm.minnum.f64(")) << m;
}

TEST(EmitBuiltins, OtherMinMaxKeepTheFirstOfEqualItemsAsCPython) {
  // max(-0.0, 0.0) is -0.0 in CPython: a later item replaces the running result only if strictly greater.
  std::string h = ir("def f(a, b):\n    return max(a, b)\n", "(float16, float16)");
  EXPECT_FALSE(has(h, "maxnum")) << h;
  EXPECT_TRUE(has(h, "fcmp ogt float")) << h;  // float16 compares exactly in float32
  // min(0, 0, -0.0) is 0 in CPython; the three-argument form never takes minnum's -0.0 < 0.0.
  std::string m = ir("def f(a, b, c):\n    return min(a, b, c)\n", "(int32, int32, float32)");
  EXPECT_FALSE(has(m, "minnum")) << m;
  EXPECT_TRUE(has(m, "fcmp olt double")) << m;
  std::string i = ir("def f(a, b):\n    return max(a, b)\n", "(uint8, uint8)");
  EXPECT_TRUE(has(i, "icmp ugt i8")) << i;
}

TEST(EmitBuiltins, FmodIsLibdevicesCFmodNotFrem) {
  // NVPTX lowers frem to x - trunc(x / y) * y, which gives nan for fmod(0.0, inf) where C gives 0.0.
  std::string d = ir("import math\ndef f(x, y):\n    return math.fmod(x, y)\n", "(float64, float64)");
  EXPECT_TRUE(has(d, "call double @__nv_fmod(double")) << d;
  EXPECT_FALSE(has(d, "frem")) << d;
  std::string s = ir("import math\ndef f(x, y):\n    return math.fmod(x, y)\n", "(float32, float32)");
  EXPECT_TRUE(has(s, "call float @__nv_fmodf(float")) << s;
}

TEST(EmitBuiltins, TwoArgumentMathConvertsIntegersToTheFloatResult) {
  // atan2(int32, int32) types as Numba's (int64, int64) -> float64; the integers must be converted, not
  // passed to libdevice as i64 bit patterns.
  std::string a = ir("import math\ndef f(y, x):\n    return math.atan2(y, x)\n", "(int32, int32)");
  EXPECT_TRUE(has(a, "declare double @__nv_atan2(double, double)")) << a;
  EXPECT_TRUE(has(a, "sitofp i64")) << a;
  EXPECT_FALSE(has(a, "@__nv_atan2(i64")) << a;
  std::string h = ir("import math\ndef f(y, x):\n    return math.hypot(y, x)\n", "(uint64, uint64)");
  EXPECT_TRUE(has(h, "uitofp i64")) << h;
  EXPECT_TRUE(has(h, "call double @__nv_hypot(double")) << h;
}
