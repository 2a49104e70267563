// The tables behind NumPy, libdevice and fp16 calls in kernels (src/compiler/kernel_library/numpy_ufuncs.cpp,
// libdevice_functions.cpp, fp16_functions.cpp): numba's ufunc loop choice on facts measured with numba-cuda
// 0.30.4, libdevice signatures with output pointers, and the fp16 rows the typer and emitter share.
#include <gtest/gtest.h>

#include <vector>

#include "compiler/kernel_library/fp16_functions.hpp"
#include "compiler/kernel_library/libdevice_functions.hpp"
#include "compiler/kernel_library/numpy_ufuncs.hpp"
#include "cubridge/types/signature.hpp"

using namespace cubridge::compiler;
using cubridge::parse_signature;  // the types floor (include/cubridge/types/)
using cubridge::parse_type_name;
using cubridge::Signature;
using cubridge::Type;
using cubridge::TypeKind;

namespace {

Type i(int bits, bool is_signed = true) { return Type::integer(bits, is_signed); }
Type f(int bits) { return Type::floating(bits); }

std::string loop_of(std::string_view ufunc, std::vector<Type> args) {
  auto r = resolve_ufunc(ufunc, args);
  return r ? r->signature : "none";
}

}  // namespace

TEST(NumpyUfuncs, FirstLoopEveryArgumentCastsToSafely) {
  EXPECT_EQ(loop_of("sin", {i(16)}), "f->f");
  EXPECT_EQ(loop_of("sin", {i(32)}), "d->d");
  EXPECT_EQ(loop_of("sin", {Type::boolean()}), "f->f");
  EXPECT_EQ(loop_of("sin", {Type::complex(64)}), "F->F");
  EXPECT_EQ(loop_of("maximum", {i(8), i(8, false)}), "hh->h");
  EXPECT_EQ(loop_of("maximum", {i(64), i(64, false)}), "dd->d");
  EXPECT_EQ(loop_of("greater", {i(64), i(64, false)}), "qQ->?");
  EXPECT_EQ(loop_of("left_shift", {Type::boolean(), Type::boolean()}), "bb->b");
  EXPECT_EQ(loop_of("invert", {f(32)}), "none");
  EXPECT_EQ(loop_of("arctan2", {Type::complex(64), f(32)}), "none");
}

TEST(NumpyUfuncs, MixedIntegersAndFloatsTakeTheFloatsLoop) {
  // numba's ufunc_can_cast: with mixed kinds, any integer casts to any float (NumPy would widen).
  EXPECT_EQ(loop_of("maximum", {i(32), f(32)}), "ff->f");
  EXPECT_EQ(loop_of("arctan2", {i(64), f(32)}), "ff->f");
  EXPECT_EQ(loop_of("divide", {i(32), i(32)}), "dd->d");
  EXPECT_EQ(loop_of("divide", {i(8), i(8)}), "ff->f");
}

TEST(NumpyUfuncs, NamesAliasesAndLoopLists) {
  EXPECT_EQ(numpy_ufunc("asin"), "arcsin");
  EXPECT_EQ(numpy_ufunc("true_divide"), "divide");
  EXPECT_EQ(numpy_ufunc("sqrt"), std::nullopt);  // numba-cuda has no GPU code for it
  EXPECT_EQ(numpy_ufunc_inputs("hypot"), 2);
  EXPECT_EQ(ufunc_loop_list("arctan2"), "ff->f, dd->d");
  EXPECT_EQ(ufunc_loop_list("invert"), "?->?, b->b, B->B, h->h, H->H, i->i, I->I, q->q, Q->Q");
}

TEST(LibdeviceFunctions, OutputPointersFollowTheResult) {
  auto sincos = libdevice_function("sincos");
  ASSERT_TRUE(sincos);
  EXPECT_EQ(sincos->symbol, "__nv_sincos");
  EXPECT_FALSE(sincos->result);
  EXPECT_EQ(sincos->inputs(), std::vector<Type>{f(64)});
  EXPECT_EQ(sincos->returned().name(), "UniTuple(float64 x 2)");
  auto frexpf = libdevice_function("frexpf");
  ASSERT_TRUE(frexpf);
  EXPECT_EQ(frexpf->returned().name(), "Tuple(float32, int32)");
  auto remquo = libdevice_function("remquo");
  ASSERT_TRUE(remquo);
  EXPECT_EQ(remquo->inputs().size(), 2u);
  EXPECT_EQ(libdevice_function("popcll")->returned().name(), "int32");
  EXPECT_FALSE(libdevice_function("sine"));
}

TEST(Fp16Functions, RowsSayArityResultAndInstructions) {
  auto hfma = fp16_function("hfma");
  ASSERT_TRUE(hfma);
  EXPECT_EQ(hfma->arity, 3);
  EXPECT_FALSE(hfma->predicate);
  EXPECT_NE(hfma->ptx.find("fma.rn.f16"), std::string_view::npos);
  EXPECT_TRUE(fp16_function("hle")->predicate);
  EXPECT_NE(fp16_function("hsin")->ptx.find("0f3F22F983"), std::string_view::npos);  // 2/pi: the reduction
  EXPECT_NE(fp16_function("hcos")->ptx.find("0x2B7C"), std::string_view::npos);      // its one-ulp fix
  EXPECT_TRUE(fp16_function("htanh")->ptx.empty());  // tanhf through libdevice, not instructions
  EXPECT_TRUE(fp16_function("__hneu")->predicate);
  EXPECT_FALSE(fp16_function("hpow"));
}
