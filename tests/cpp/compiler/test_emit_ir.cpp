// The NVVM IR the emitter writes (no libNVVM): ABI shapes, libdevice declared only when used, helpers
// emitted once, Python semantics of // and % in the IR, float16 constants, version metadata.
#include <gtest/gtest.h>

#include <string>

#include "cubridge/compiler/compile.hpp"
#include "test_kernel_helpers.hpp"
#include "cubridge/types/signature.hpp"

using namespace cubridge;
using namespace cubridge::compiler;
using cubridge::parse_signature;  // the types floor (include/cubridge/types/)
using cubridge::parse_type_name;
using cubridge::Signature;
using cubridge::Type;
using cubridge::TypeKind;

namespace {
using cubridge::testing::count;
std::string ir(const char* src, const char* fn, const char* sig, Abi abi = Abi::c) {
  CompileOptions o;
  o.abi = abi;
  o.module_name = "m";
  return compile_to_nvvm_ir(src, fn, parse_signature(sig), o).nvvm_ir;
}
}  // namespace

TEST(EmitIr, ModuleHasNvvmIrVersionAndTypedPointers) {
  std::string s = ir("def f(x):\n    return x\n", "f", "(float32,)");
  EXPECT_NE(s.find("!nvvmir.version = !{!0}\n!0 = !{i32 2, i32 0, i32 3, i32 2}"), std::string::npos);
  EXPECT_NE(s.find("target triple = \"nvptx64-nvidia-cuda\""), std::string::npos);
  EXPECT_NE(s.find("define float @f(float %\"x\")"), std::string::npos) << s;
  EXPECT_NE(s.find("float* noalias nocapture %retptr"), std::string::npos);
  EXPECT_EQ(s.find(" ptr "), std::string::npos);
}

TEST(EmitIr, NumbaAbiFlattensComplexAndTupleArguments) {
  std::string s = ir("def f(z, b):\n    return z.real + b\n", "f", "(complex64, bool)", Abi::numba);  // float32 + bool stays float32
  EXPECT_NE(s.find("define i32 @_ZN1m1fE9complex64b(float* noalias nocapture %retptr, float %p0, float %p1, i8 %p2)"),
            std::string::npos)
      << s;
  std::string c = ir("def f(z):\n    return z\n", "f", "(complex128,)");
  // The C ABI flattens arguments as Numba's does (two doubles) and returns the struct by value.
  EXPECT_NE(c.find("define {double, double} @f(double %\"z.0\", double %\"z.1\")"), std::string::npos) << c;
}

TEST(EmitIr, LibdeviceDeclaredOnlyWhenUsed) {
  std::string plain = ir("import math\ndef f(x):\n    return math.floor(x) + math.sqrt(x) + abs(x)\n", "f", "(float64,)");
  EXPECT_EQ(plain.find("__nv_"), std::string::npos) << plain;  // intrinsics, no libdevice
  std::string m = ir("import math\ndef f(x):\n    return math.sin(x) + math.sin(x * 2)\n", "f", "(float32,)");
  EXPECT_EQ(count(m, "declare float @__nv_sinf(float)"), 1u);
}

TEST(EmitIr, HelpersAreEmittedOnce) {
  std::string s = ir("def f(x, y):\n    return x // y + x % y + (x + 1) // y\n", "f", "(float64, float64)");
  EXPECT_EQ(count(s, "define internal double @__cb_floordiv64("), 1u);
  EXPECT_EQ(count(s, "define internal double @__cb_pymod64("), 1u);
  std::string p = ir("def f(x, y):\n    return x ** y + y ** x\n", "f", "(int64, int64)");
  EXPECT_EQ(count(p, "define internal i64 @__cb_ipow_s("), 1u);
}

TEST(EmitIr, IntegerFloorDivisionGuardsZeroAndOverflow) {
  std::string s = ir("def f(x, y):\n    return x // y\n", "f", "(int64, int64)");
  EXPECT_NE(s.find("icmp eq i64 %"), std::string::npos);
  EXPECT_NE(s.find("-9223372036854775808"), std::string::npos);  // INT64_MIN // -1 is guarded
  EXPECT_NE(s.find("sdiv i64"), std::string::npos);
  std::string u = ir("def f(x, y):\n    return x % y\n", "f", "(uint64, uint64)");
  EXPECT_NE(u.find("urem i64"), std::string::npos);
}

TEST(EmitIr, Float16ConstantsAndArithmetic) {
  std::string s = ir("def f(x):\n    return x * x + x\n", "f", "(float16,)");
  EXPECT_NE(s.find("fmul half"), std::string::npos);
  EXPECT_NE(s.find("define i16 @f(half %\"x\")"), std::string::npos);  // float16 results return as bits
  // numba-cuda negates a float16 with cuda_fp16.hpp's __hneg: neg.f16 (which also flips a NaN's sign)
  std::string c = ir("def f(x):\n    return -x\n", "f", "(float16,)");
  EXPECT_NE(c.find("call i16 asm \"neg.f16 $0, $1;\""), std::string::npos) << c;
}

TEST(EmitIr, ModuleFunctionsAreInternalAndSpecialisedPerArgumentTypes) {
  const char* src = "def sq(v):\n    return v * v\n\ndef f(a, b):\n    return sq(a) + sq(b)\n";
  std::string s = ir(src, "f", "(int32, float64)");
  EXPECT_EQ(count(s, "define internal i32 @__cb_fn"), 3u) << s;  // f's core, sq(int32), sq(float64)
  EXPECT_NE(s.find("define i64 @f(") == std::string::npos ? s.find("define double @f(") : 0, std::string::npos);
}

TEST(EmitIr, KernelsGetTheNvvmAnnotation) {
  CompileOptions o;
  o.device = false;
  o.abi = Abi::numba;
  o.abi_name = "k";
  std::string s = compile_to_nvvm_ir("def k(x):\n    pass\n", "k", parse_signature("(int32,)"), o).nvvm_ir;
  EXPECT_NE(s.find("!nvvm.annotations = !{!1}\n!1 = !{void (i32)* @k, !\"kernel\", i32 1}"), std::string::npos) << s;
}

TEST(EmitIr, DebugUnderTheNumbaAbiRaisesOnDivisionByZero) {
  CompileOptions o;
  o.abi = Abi::numba;
  const char* src = "def f(x, y):\n    return x // y\n\ndef g(x, y):\n    return f(x, y) + 1\n";
  std::string plain = compile_to_nvvm_ir(src, "g", parse_signature("(int64, int64)"), o).nvvm_ir;
  EXPECT_EQ(plain.find("div_by_zero"), std::string::npos);
  o.debug = true;
  std::string dbg = compile_to_nvvm_ir(src, "g", parse_signature("(int64, int64)"), o).nvvm_ir;
  EXPECT_NE(dbg.find("div_by_zero"), std::string::npos);
  EXPECT_NE(dbg.find("ret i32 1"), std::string::npos);
  EXPECT_NE(dbg.find("call_raised"), std::string::npos);  // g passes f's status on
}

TEST(EmitIr, CAbiReturnsFloat16AsItsBits) {
  // libNVVM compiles a function that returns `half` to an empty body; the bits go back as i16 instead.
  std::string s = ir("def f(a, b):\n    return a * b\n", "f", "(float16, float16)");
  EXPECT_NE(s.find("define i16 @f(half %\"a\", half %\"b\")"), std::string::npos) << s;
  EXPECT_NE(s.find("bitcast half %.v to i16"), std::string::npos) << s;
}
