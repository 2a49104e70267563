// The front end's extension points for numba-cuda's APIs (issue 21 items 1-3): external device functions
// (CompileOptions::external_functions: cuda.declare_device), @overload calls (CompileOptions::overloads and
// OverloadNeeded) and C pointers (parameters, p[i], carray), checked on the NVVM IR without a GPU; extra NVVM
// modules (CompileOptions::nvvm_modules: numba's lowering of extension calls) compiled through libNVVM.
#include <gtest/gtest.h>

#include <string>

#include "cubridge/compiler/compile.hpp"
#include "cubridge/compiler/nvvm.hpp"
#include "cubridge/types/signature.hpp"

using namespace cubridge;
using namespace cubridge::compiler;

namespace {

const char* kSource = R"PY(
def calls_external(r, x):
    r[0] = times2(x[0] + 1)

def calls_c(x):
    consume(x[0])
    return add2(x[0], 1)

def calls_overloaded(x, y):
    return f(x, k=y)

def impl_int(x, k=5):
    return x * k

def through_pointer(p, i):
    p[i] += p[i + 1]

def as_array(p, n):
    a = carray(p, (n, 2))
    a[1, 1] = 3.0
)PY";

CompileOptions with_externals() {
  CompileOptions o;
  o.device = false;
  o.abi = Abi::numba;
  o.external_functions["times2"] = {"times2", parse_signature("int32(int32)"), Abi::numba};
  o.external_functions["consume"] = {"consume", parse_signature("void(int32)"), Abi::c};
  o.external_functions["add2"] = {"add2", parse_signature("int32(int32, int32)"), Abi::c};
  return o;
}

TEST(ExtensionsFrontend, ExternalFunctionsUnderBothAbis) {
  std::string ir = compile_to_nvvm_ir(kSource, "calls_external", parse_signature("void(int32[::1], int32[::1])"),
                                      with_externals()).nvvm_ir;
  EXPECT_NE(ir.find("declare i32 @times2(i32*, i32)"), std::string::npos) << ir;
  EXPECT_NE(ir.find("trunc i64"), std::string::npos);  // x[0] + 1 is int64, converted to the int32 parameter
  CompileOptions o = with_externals();
  o.device = true;
  std::string c = compile_to_nvvm_ir(kSource, "calls_c", parse_signature("(int32[::1],)"), o).nvvm_ir;
  EXPECT_NE(c.find("declare void @consume(i32)"), std::string::npos) << c;
  EXPECT_NE(c.find("call i32 @add2(i32 "), std::string::npos) << c;
}

TEST(ExtensionsFrontend, ExternalArgumentsAreChecked) {
  CompileOptions o = with_externals();
  o.external_functions["takes_array"] = {"takes_array", parse_signature("int32(float32[:])"), Abi::numba};
  const char* src = "def k(r, x):\n    r[0] = times2(x)\n\ndef a(r, x):\n    r[0] = takes_array(x)\n";
  EXPECT_THROW(compile_to_nvvm_ir(src, "k", parse_signature("void(int32[::1], int32[::1])"), o), CompileError);
  try {
    compile_to_nvvm_ir(src, "a", parse_signature("void(int32[::1], float32[::1])"), o);
    FAIL() << "an array parameter of an external function was accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot pass to an external function"), std::string::npos) << e.what();
  }
}

TEST(ExtensionsFrontend, OverloadCallsAskForTheirImplementation) {
  CompileOptions o;
  o.overloads["f"];  // f is overloaded, nothing resolved yet
  try {
    compile_to_nvvm_ir(kSource, "calls_overloaded", parse_signature("(int64, int64)"), o);
    FAIL() << "an unresolved @overload call compiled";
  } catch (const OverloadNeeded& e) {
    EXPECT_EQ(e.function(), "f");
    ASSERT_EQ(e.args().size(), 2u);
    EXPECT_EQ(e.args()[1].name(), "int64");
    EXPECT_EQ(e.keywords(), std::vector<std::string>{"k"});
  }
  o.overloads["f"].push_back({{Type::integer(64, true), Type::integer(64, true)}, {"k"}, "impl_int"});
  CompileResult r = compile_to_nvvm_ir(kSource, "calls_overloaded", parse_signature("(int64, int64)"), o);
  EXPECT_EQ(r.result_type.name(), "int64");
  EXPECT_NE(r.nvvm_ir.find("mul i64"), std::string::npos);
}

// A function passed to an @overload'ed function (numba types it as a Dispatcher) is reported by its unit name,
// its type None; a resolution holds only for the functions it was made for.
TEST(ExtensionsFrontend, OverloadCallsReportTheFunctionsPassed) {
  const char* src = "def times10(x):\n    return x * 10\n\ndef plus1(x):\n    return x + 1\n\n"
                    "def calls_apply(x):\n    return apply(x, times10) + apply(x, plus1)\n\n"
                    "def apply_impl(x, fn):\n    return fn(x)\n";
  CompileOptions o;
  o.overloads["apply"];
  try {
    compile_to_nvvm_ir(src, "calls_apply", parse_signature("(int64,)"), o);
    FAIL() << "an unresolved @overload call compiled";
  } catch (const OverloadNeeded& e) {
    EXPECT_EQ(e.functions(), (std::vector<std::string>{"", "times10"}));
    EXPECT_TRUE(e.args()[1].is_none());
    EXPECT_NE(std::string(e.what()).find("(int64, function times10)"), std::string::npos) << e.what();
  }
  const Type i64 = Type::integer(64, true);
  o.overloads["apply"].push_back({{i64, Type::none()}, {}, "apply_impl", {}, {"", "times10"}});
  try {  // the resolution for times10 does not serve plus1
    compile_to_nvvm_ir(src, "calls_apply", parse_signature("(int64,)"), o);
    FAIL() << "a resolution for one function served another";
  } catch (const OverloadNeeded& e) {
    EXPECT_EQ(e.functions(), (std::vector<std::string>{"", "plus1"}));
  }
  o.overloads["apply"].push_back({{i64, Type::none()}, {}, "apply_impl", {}, {"", "plus1"}});
  CompileResult r = compile_to_nvvm_ir(src, "calls_apply", parse_signature("(int64,)"), o);
  EXPECT_EQ(r.result_type.name(), "int64");
}

// numba's SSA warning: the reads some path reaches with the variable unassigned, by name and line.
TEST(ExtensionsFrontend, UninitializedReadsAreReported) {
  const char* src = "def f(r, n):\n    if n > 0:\n        c = 0\n    r[0] = c\n    d = 1\n    r[0] = d\n";
  CompileOptions o;
  CompileResult r = compile_to_nvvm_ir(src, "f", parse_signature("void(int64[::1], int64)"), o);
  ASSERT_EQ(r.uninitialized_reads.size(), 1u);
  EXPECT_EQ(r.uninitialized_reads[0].variable, "c");
  EXPECT_EQ(r.uninitialized_reads[0].function, "f");
  EXPECT_EQ(r.uninitialized_reads[0].line, 4);
}

TEST(ExtensionsFrontend, PointersLoadStoreAndMakeArrays) {
  CompileOptions o;
  o.device = false;
  o.abi = Abi::numba;
  std::string ir = compile_to_nvvm_ir(kSource, "through_pointer", parse_signature("void(float32*, int64)"), o).nvvm_ir;
  EXPECT_NE(ir.find("getelementptr inbounds float, float* "), std::string::npos) << ir;
  std::string arr = compile_to_nvvm_ir("import numba.carray as carray\n" + std::string(kSource), "as_array",
                                       parse_signature("void(float64*, int64)"), o).nvvm_ir;
  EXPECT_NE(arr.find("store double "), std::string::npos) << arr;  // a[1, 1] = 3.0 through the new array
}

// An external function defined by an extra NVVM module (how numba's lowering of an @intrinsic reaches the
// code) is compiled in the same libNVVM program: the PTX defines it (or inlined it) instead of declaring it.
TEST(ExtensionsFrontend, NvvmModulesDefineExternalFunctions) {
  CompileOptions o = with_externals();
  o.device = true;
  o.abi = Abi::c;
  const Signature sig = parse_signature("(int32[::1],)");
  std::string declared = compile(kSource, "calls_c", sig, o).code;
  EXPECT_NE(declared.find(".extern .func"), std::string::npos) << declared;  // add2, consume: declared only
  o.nvvm_modules.push_back(
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "define linkonce_odr i32 @add2(i32 %a, i32 %b) alwaysinline {\n  %r = xor i32 %a, 12345\n  ret i32 %r\n}\n"
      "define linkonce_odr void @consume(i32 %a) alwaysinline {\n  ret void\n}\n" + nvvm::ir_version_metadata());
  std::string defined = compile(kSource, "calls_c", sig, o).code;
  EXPECT_EQ(defined.find(".extern .func"), std::string::npos) << defined;
  EXPECT_NE(defined.find("xor.b32"), std::string::npos) << defined;  // the module's body, inlined
  o.nvvm_modules.push_back("this is not LLVM IR\n");
  EXPECT_THROW(compile(kSource, "calls_c", sig, o), std::exception);  // libNVVM's own error, naming the module
}

}  // namespace
