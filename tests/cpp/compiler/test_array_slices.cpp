// Slices of arrays in kernels (no GPU): the parser's subscript lists, the view types the typer gives
// (Numba's names and layout rule: a[1:] of a C array stays C, any step or a leading slice makes 'A'),
// the IR the emitter writes, and the rejections. The values are checked by running the IR on the host
// (tests/python/language/test_jit_slices.py) and on the GPU (the kernel corpus).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "compiler/typing/typer.hpp"
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
using cubridge::testing::kernel_options;

// The type name of each local variable of kernel `k` in `source` for `signature`.
std::map<std::string, std::string> local_types(const std::string& source, const std::string& signature) {
  SourceSet sources;
  sources.units.push_back(parse_module(source, "<test>"));
  CompileOptions o = kernel_options();
  TypedModule typed = type_program(sources, "k", parse_signature(signature), o);
  std::map<std::string, std::string> out;
  const TypedFunction& f = *typed.functions[0];
  for (std::size_t i = 0; i < f.local_names.size(); ++i) out[f.local_names[i]] = f.local_types[i].name();
  return out;
}

std::string error_of(const std::string& source, const std::string& signature) {
  try {
    compile_to_nvvm_ir(source, "k", parse_signature(signature), kernel_options());
  } catch (const CompileError& e) {
    return e.what();
  }
  return "accepted";
}
}  // namespace

TEST(ArraySlices, ViewTypesFollowNumba) {
  auto t = local_types(
      "def k(a, b, f, i, j):\n"
      "    v1 = a[1:]\n"
      "    v2 = a[::2]\n"
      "    v3 = a[:-1]\n"
      "    v4 = b[i, :]\n"
      "    v5 = b[:, j]\n"
      "    v6 = b[1:4, ::2]\n"
      "    v7 = b[1:3]\n"
      "    v8 = b[i, 2:]\n"
      "    v9 = f[:, j]\n"
      "    v10 = f[1:, j]\n"
      "    v11 = f[i]\n"
      "    v12 = a[::-1]\n"
      "    v13 = a[1::]\n"
      "    v16 = a[1::1]\n"
      "    v14 = a[None:i]\n"
      "    v15 = b[1:, :]\n"
      "    n = len(v6) + v6.shape[1] + v1[0]\n",
      "void(float32[::1], const float64[:, ::1], int16[::1, :], int64, int32)");
  EXPECT_EQ(t["v1"], "array(float32, 1d, C)");
  EXPECT_EQ(t["v2"], "array(float32, 1d, A)");
  EXPECT_EQ(t["v3"], "array(float32, 1d, C)");
  EXPECT_EQ(t["v4"], "readonly array(float64, 1d, C)");
  EXPECT_EQ(t["v5"], "readonly array(float64, 1d, A)");
  EXPECT_EQ(t["v6"], "readonly array(float64, 2d, A)");
  EXPECT_EQ(t["v7"], "readonly array(float64, 2d, C)");
  EXPECT_EQ(t["v8"], "readonly array(float64, 1d, C)");
  // F: integers on the right, one unstepped slice on the left; a contiguous 1-d array is named C.
  EXPECT_EQ(t["v9"], "array(int16, 1d, C)");
  EXPECT_EQ(t["v10"], "array(int16, 1d, C)");
  EXPECT_EQ(t["v11"], "array(int16, 1d, A)");  // an F array indexed on the left only
  EXPECT_EQ(t["v12"], "array(float32, 1d, A)");
  EXPECT_EQ(t["v13"], "array(float32, 1d, C)");  // no step written: Python's ast has none, Numba's slice2
  EXPECT_EQ(t["v14"], "array(float32, 1d, C)");
  EXPECT_EQ(t["v15"], "readonly array(float64, 2d, A)");
  EXPECT_EQ(t["v16"], "array(float32, 1d, A)");  // a written step, even 1, is Numba's slice3: 'A'
  EXPECT_EQ(t["n"], "float64");
}

TEST(ArraySlices, ParserAcceptsPythonSubscriptLists) {
  auto t = local_types("def k(b):\n    x = b[:, :]\n    y = b[::, 0,]\n    z = b[0:2:1, -1]\n",
                       "void(int32[:, :])");
  EXPECT_EQ(t["x"], "array(int32, 2d, A)");
  EXPECT_EQ(t["y"], "array(int32, 1d, A)");
  EXPECT_EQ(t["z"], "array(int32, 1d, A)");
}

TEST(ArraySlices, ViewsLoadThroughTheirOwnStrides) {
  std::string ir = compile_to_nvvm_ir("def k(a, out):\n    v = a[2::3]\n    out[0] = v[1]\n", "k",
                                      parse_signature("void(float32[::1], float32[::1])"), kernel_options())
                       .nvvm_ir;
  EXPECT_NE(ir.find("sdiv i64"), std::string::npos) << ir;  // the view's length: ceil(span / step)
  EXPECT_NE(ir.find("mul i64 4, 3"), std::string::npos) << ir;  // stride: item size times the step
}

TEST(ArraySlices, Rejections) {
  struct Bad {
    const char* src;
    const char* sig;
    const char* message;
  } cases[] = {
      {"def k(a):\n    v = a[::0]\n", "void(int32[:])", "<string>:2:13: slice step cannot be zero (use a positive or negative step)"},
      {"N = 0\ndef k(a):\n    v = a[1:5:N]\n", "void(int32[:])", "slice step cannot be zero"},
      {"def k(a):\n    a[1:] = 1j\n", "void(int32[:])", "<string>:2:6: cannot store a value of type complex128 into a slice of 'a' (array(int32, 1d, A)): complex128 does not convert to int32"},
      {"def k(a):\n    a[0, :] = (1, 2.5)\n", "void(int32[:, :])", "its items have different types; a slice takes a number, an array (broadcast to the slice's shape) or, in 1-d, a tuple of numbers"},
      {"def k(a, b):\n    a[0, :] = b\n", "void(float32[:, :], complex64[:])", "its dtype complex64 does not convert to float32"},
      {"def k(a):\n    a[:, 0] = (1, 2)\n", "void(int32[:, :, :])", "a tuple fills a 1-d slice only"},
      {"def k(a, x):\n    v = a[x:]\n", "void(int32[:], float64)", "a slice start must be an integer or None, got float64"},
      {"def k(a, x):\n    v = a[:2:x]\n", "void(int32[:], float32)", "a slice step must be an integer or None, got float32"},
      {"def k(a):\n    t = (1, 2, 3)\n    a[0] = t[1:][0]\n", "void(int64[:])", "slicing tuples is not supported; index them with a constant"},
      {"def k(a):\n    v = a[1:, 2]\n", "void(int32[:])", "too many indices for array(int32, 1d, A): 2 given, the array has 1 dimension(s)"},
      {"def k(a):\n    v = a[...]\n", "void(int32[:])", "Ellipsis ('...') of an array is not supported; index arrays with integers and slices"},
      // (`v = a[1:]; v = 1.0` in a row compiles: each definition is a version of its own, as numba's SSA
      // makes them; a definition under a condition meets the other one at the read after the if.)
      {"def k(a, c):\n    v = a[1:]\n    if c:\n        v = 1.0\n    w = v\n", "void(int32[::1], boolean)",
       "cannot unify the types of variable 'v': array(int32, 1d, C) and float64"},
  };
  for (const Bad& b : cases) EXPECT_NE(error_of(b.src, b.sig).find(b.message), std::string::npos) << error_of(b.src, b.sig);
}
