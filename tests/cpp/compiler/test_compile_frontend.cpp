// The compiler front end and driver: exact C-ABI and Numba-ABI prototypes, both outputs, ptxas
// assembly of the PTX, return-type inference, and error messages naming file, line and column.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "cubridge/compiler/compile.hpp"
#include "cubridge/compiler/toolkit.hpp"
#include "cubridge/types/signature.hpp"

using namespace cubridge;
using namespace cubridge::compiler;
using cubridge::parse_signature;  // the types floor (include/cubridge/types/)
using cubridge::parse_type_name;
using cubridge::Signature;
using cubridge::Type;
using cubridge::TypeKind;

namespace {

const char* kSource = R"PY(import math

SCALE = 2.5

def add(x, y):
    return x + y

def helper(a):
    return a * SCALE

def uses_helper(x):
    return helper(x) + 1

def loops(n):
    s = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        s += i
    else:
        s -= 1
    return s

def trig(x):
    return math.sin(x) * math.cos(x)

def rec(n):
    return rec(n - 1)
)PY";

// Whitespace-insensitive form of PTX: runs of blanks become one space, none next to ( ) or before ,.
std::string squash(const std::string& s) {
  std::string t;
  for (char c : s) {
    bool blank = c == ' ' || c == '\t' || c == '\n';
    if (blank) {
      if (!t.empty() && t.back() != ' ') t += ' ';
      continue;
    }
    if ((c == ')' || c == ',') && !t.empty() && t.back() == ' ') t.pop_back();
    if (!t.empty() && t.back() == ' ' && t.size() > 1 && t[t.size() - 2] == '(') t.pop_back();
    t += c;
  }
  return t;
}

CompileOptions opts() {
  CompileOptions o;
  o.filename = "kernels.py";
  return o;
}

}  // namespace

TEST(CompileFrontend, CAbiPrototypeIsExact) {
  CompileResult r = compile(kSource, "add", "int32(int32, int32)", opts());
  EXPECT_NE(squash(r.code).find(
                ".visible .func (.param .b32 func_retval0) add(.param .b32 add_param_0, .param .b32 add_param_1)"),
            std::string::npos)
      << r.code;
  EXPECT_EQ(r.result_type.name(), "int32");
  EXPECT_FALSE(r.uses_libdevice);
}

TEST(CompileFrontend, AbiNameRenames) {
  CompileOptions o = opts();
  o.abi_name = "add_f32";
  CompileResult r = compile(kSource, "add", "float32(float32, float32)", o);
  EXPECT_NE(squash(r.code).find(".visible .func (.param .b32 func_retval0) add_f32("), std::string::npos);
  EXPECT_EQ(r.code.find(" add("), std::string::npos);
}

TEST(CompileFrontend, NumbaAbiManglesAndReturnsStatus) {
  CompileOptions o = opts();
  o.abi = Abi::numba;
  o.module_name = "kernels";
  CompileResult r = compile(kSource, "add", "(int32, int32)", o);
  EXPECT_EQ(r.name, "_ZN7kernels3addEii");
  EXPECT_EQ(r.result_type.name(), "int64");  // int32 + int32 is int64 under Numba's rules
  EXPECT_NE(squash(r.code).find(".visible .func (.param .b32 func_retval0) _ZN7kernels3addEii(.param .b64 "
                                "_ZN7kernels3addEii_param_0, .param .b32 _ZN7kernels3addEii_param_1, .param .b32 "
                                "_ZN7kernels3addEii_param_2)"),
            std::string::npos)
      << r.code;
  EXPECT_EQ(mangle_numba_abi("a.b", "f", {Type::floating(64), Type::boolean()}), "_ZN1a1b1fEdb");
  // The same spellings as numba.core.itanium_mangler.
  EXPECT_EQ(mangle_numba_abi("mod", "f", {Type::floating(16), Type::complex(64), Type::boolean(),
                                          Type::tuple({Type::integer(64, true), Type::integer(64, true)}),
                                          Type::integer(8, false)}),
            "_ZN3mod1fEDh9complex64b8UniTupleIxLi2EEh");
  EXPECT_EQ(mangle_numba_abi("a", "<locals>.f", {Type::tuple({Type::integer(64, true), Type::floating(64)})}),
            "_ZN1a12_3clocals_3e1fE5TupleIxdE");
}

TEST(CompileFrontend, PtxAssemblesWithPtxas) {
  for (const char* fn : {"add", "uses_helper", "loops", "trig"}) {
    CompileResult r = compile(kSource, fn, fn == std::string("loops") ? "(int64,)" : fn == std::string("add") ? "(float64, int8)" : "(float32,)", opts());
    PtxasResult p = ptxas_check(r.code, ComputeCapability{9, 0});
    EXPECT_TRUE(p.ok) << fn << ": " << p.log << "\n" << r.code;
  }
}

TEST(CompileFrontend, LtoIrOutputAndLibdeviceOnlyWhenUsed) {
  CompileOptions o = opts();
  o.output = Output::ltoir;
  CompileResult plain = compile(kSource, "add", "(float32, float32)", o);
  EXPECT_FALSE(plain.code.empty());
  EXPECT_FALSE(plain.uses_libdevice);
  EXPECT_EQ(plain.code.find(".visible"), std::string::npos);  // not PTX text
  CompileResult math = compile(kSource, "trig", "(float64,)", o);
  EXPECT_TRUE(math.uses_libdevice);
  EXPECT_NE(math.nvvm_ir.find("@__nv_sin("), std::string::npos);
}

TEST(CompileFrontend, InfersReturnTypesWithNumbaRules) {
  EXPECT_EQ(compile_to_nvvm_ir(kSource, "uses_helper", parse_signature("(int32,)"), opts()).result_type.name(), "float64");
  EXPECT_EQ(compile_to_nvvm_ir(kSource, "loops", parse_signature("(int32,)"), opts()).result_type.name(), "int64");
  EXPECT_EQ(compile_to_nvvm_ir(kSource, "add", parse_signature("(float32, float32)"), opts()).result_type.name(), "float32");
  EXPECT_EQ(compile_to_nvvm_ir(kSource, "add", parse_signature("(uint8, uint8)"), opts()).result_type.name(), "uint64");
  EXPECT_EQ(compile_to_nvvm_ir(kSource, "trig", parse_signature("(int32,)"), opts()).result_type.name(), "float64");
}

// numba-cuda's typemap (overloads[sig]._type_annotation): the entry's variables, parameters first, each with the
// inferred type, named as the source names them (loops() has one `i`, its loop's own version).
TEST(CompileFrontend, ReportsEachVariableOfTheEntryWithItsInferredType) {
  CompileResult r = compile_to_nvvm_ir(kSource, "loops", parse_signature("(int32,)"), opts());
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& [name, type] : r.variable_types) got.emplace_back(name, type.name());
  // i: range(int32) iterates int32, as numba's range_state32 does
  const std::vector<std::pair<std::string, std::string>> want = {{"n", "int32"}, {"s", "int64"}, {"i", "int32"}};
  EXPECT_EQ(got, want);
  CompileResult add = compile_to_nvvm_ir(kSource, "add", parse_signature("(float32, float64)"), opts());
  ASSERT_EQ(add.variable_types.size(), 2u);  // the parameters; the helper's variables are not the entry's
  EXPECT_EQ(add.variable_types[1].second.name(), "float64");
}

TEST(CompileFrontend, RunawayRecursionIsAClearError) {
  // rec returns only rec(n - 1): no return gives its type (numba's "cannot type infer runaway recursion").
  try {
    compile_to_nvvm_ir(kSource, "rec", parse_signature("(int64,)"), opts());
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("kernels.py:28:5: cannot type infer runaway recursion"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.line(), 28);
  }
}

TEST(CompileFrontend, UnsupportedConstructsNameFileLineColumn) {
  struct Case {
    const char* src;
    const char* message;
  } cases[] = {
      {"def f(x):\n    return [x]\n", "kernels.py:2:12: a list (only numbers and tuples of numbers are supported values) is not supported"},
      {"def f(x):\n    with x:\n        pass\n", "kernels.py:2:5: the 'with' statement is not supported in compiled functions; supported statements"},
      {"def f(x):\n    return lambda: x\n", "kernels.py:2:12: a lambda is not supported"},
      {"def f(x):\n    for i in x:\n        pass\n", "kernels.py:2:14: cannot iterate over a value of type int32; for loops iterate over range(), arrays, tuples whose items have one type, and enumerate() and zip() of them"},
      {"def f(x):\n    for v in (x, 1.5):\n        pass\n", "kernels.py:2:14: cannot iterate over the heterogeneous tuple Tuple(int32, float64)"},
      {"def f(x):\n    t = (x, 1.5)\n    return t[x]\n", "kernels.py:3:14: the heterogeneous tuple Tuple(int32, float64) can only be indexed with an integer constant"},
      {"def f(x):\n    for i in reversed(range(x)):\n        pass\n", "kernels.py:2:14: reversed() is not supported"},
      {"def f(x):\n    return y\n", "kernels.py:2:12: name 'y' is not defined"},
      {"def f(x):\n    return x.foo\n", "kernels.py:2:12: attribute 'foo' of a value of type int32 is not supported"},
      {"def f(x):\n    return math.nope(x)\n", "kernels.py:2:12: math.nope is not supported; the math module offers"},
      {"def f(x):\n    return x < 1j\n", "kernels.py:2:12: cannot compare int32 with complex128 using an ordering operator"},
      {"def f(x):\n    if x:\n        return 1\n", "kernels.py:1:1: 'f' returns OptionalType(int64): only the functions it calls may return an Optional"},
      {"def f(x):\n    return x if x else (x, x)\n", "kernels.py:2:12: the branches of the conditional expression have types int32 and UniTuple(int32 x 2)"},
      {"def f(x):\n    if x:\n        x = (1, 2)\n    return x\n", "kernels.py:3:9: cannot unify the types of variable 'x': int32 and UniTuple(int64 x 2)"},
      {"def f(x):\n  return x +\n", "kernels.py:2:13: unexpected end of line"},
      {"def f(x):\n    return 99999999999999999999\n", "does not fit in 64 bits"},
  };
  for (const Case& c : cases) {
    try {
      compile_to_nvvm_ir(c.src, "f", parse_signature("(int32,)"), opts());
      ADD_FAILURE() << "no error for: " << c.src;
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << "got: " << e.what() << "\nwanted: " << c.message;
    }
  }
}

TEST(CompileFrontend, BadSignaturesAndOptions) {
  try {
    parse_signature("int33(int32)");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown return type 'int33': 'int33' is not a type; accepted: bool, int8"), std::string::npos) << e.what();
  }
  try {
    compile_to_nvvm_ir(kSource, "add", parse_signature("(int32,)"), opts());
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("function 'add' takes 2 argument(s) but the signature gives 1"), std::string::npos);
  }
  try {
    compile_to_nvvm_ir(kSource, "missing", parse_signature("(int32,)"), opts());
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("function 'missing' is not defined in kernels.py (functions found: add"), std::string::npos);
  }
  CompileOptions o = opts();
  o.cc = ComputeCapability{5, 0};
  try {
    compile(kSource, "add", "(int32, int32)", o);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cc 5.0 cannot be targeted by this toolkit's libNVVM; it accepts compute capabilities 7.5 to"), std::string::npos)
        << e.what();
  }
}

TEST(CompileFrontend, OptionsReachLibnvvm) {
  CompileOptions o = opts();
  o.fastmath = true;
  // x /= y is an fdiv, which libNVVM's prec-div=0 makes div.full; x / y on float32 is numba-cuda's
  // __nv_fast_fdividef under fastmath (div.approx).
  CompileResult fast = compile("def f(x, y):\n    x /= y\n    return x\n", "f", "(float32, float32)", o);
  EXPECT_NE(fast.code.find("div.full.ftz.f32"), std::string::npos) << fast.code;
  CompileResult fast_operator = compile("def f(x, y):\n    return x / y\n", "f", "(float32, float32)", o);
  EXPECT_NE(fast_operator.code.find("div.approx.ftz.f32"), std::string::npos) << fast_operator.code;
  o.fastmath = false;
  o.opt = false;
  CompileResult slow = compile("def f(x, y):\n    return x / y\n", "f", "(float32, float32)", o);
  EXPECT_NE(slow.code.find("div.rn.f32"), std::string::npos);
  CompileOptions li = opts();
  li.lineinfo = true;
  li.filename = "/src/kernels.py";
  CompileResult lines = compile(kSource, "loops", "(int64,)", li);
  EXPECT_NE(lines.code.find(".file\t1 \"/src/kernels.py\""), std::string::npos) << lines.code;
  EXPECT_NE(lines.code.find(".loc\t1 19 "), std::string::npos) << lines.code;
  li.abi = Abi::numba;
  li.debug = true;
  EXPECT_NE(compile(kSource, "loops", "(int64,)", li).code.find(".section\t.debug_info"), std::string::npos);
  CompileOptions k = opts();
  k.device = false;
  k.abi = Abi::numba;
  k.abi_name = "k";
  CompileResult kern = compile("def k(x):\n    y = x + 1\n", "k", "(int32,)", k);
  EXPECT_NE(kern.code.find(".entry k("), std::string::npos) << kern.code;
}

TEST(CompileFrontend, ModuleConstantsFoldAndCyclesAreErrors) {
  const char* src = "A = 3\nB = -A\nC = (A, 2.5)\nX = Y\nY = X\ndef f(x):\n    return x * B + C[1]\ndef g(x):\n    return X\n";
  EXPECT_EQ(compile_to_nvvm_ir(src, "f", parse_signature("(int32,)"), opts()).result_type.name(), "float64");
  try {
    compile_to_nvvm_ir(src, "g", parse_signature("(int32,)"), opts());
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("' is not a constant this compiler can fold (numbers and tuples of numbers are)"), std::string::npos)
        << e.what();
  }
}
