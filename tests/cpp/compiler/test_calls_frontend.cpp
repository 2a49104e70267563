// How calls reach module functions (issue 12, item 3): keyword arguments and defaults bound as Python
// binds them, the callee under another name (CompileOptions::function_aliases), inline='never'
// (CompileOptions::inline_never), `x is None` folding with branch pruning, and numba's Optional results.
#include <gtest/gtest.h>

#include <string>

#include "compiler/typing/typing_rules.hpp"
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

const char* kSource = R"PY(
def scaled(x, scale=2.0, offset=None):
    if offset is None:
        return x * scale
    return x * scale + offset

def keywords(a, b):
    return scaled(a, offset=b) + scaled(x=b, scale=3) + scaled(a)

def positive(x):
    if x > 0:
        return x
    return None

def checked(x):
    r = positive(x)
    if r is not None:
        return r + 1
    return x

def unwrapped(x):
    return positive(x) * 2

def by_alias(x):
    return op(x) + ops[1](x) + mod.sub.fn(x)

def twice(x):
    return 2 * x
)PY";

CompileOptions opts() {
  CompileOptions o;
  o.filename = "calls.py";
  return o;
}

std::string error_of(const std::string& src, const char* entry, const char* sig, const CompileOptions& o = opts()) {
  try {
    compile_to_nvvm_ir(src, entry, parse_signature(sig), o);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(CallsFrontend, KeywordsAndDefaultsTypeAsNumba) {
  EXPECT_EQ(compile_to_nvvm_ir(kSource, "keywords", parse_signature("(float32, float32)"), opts()).result_type.name(),
            "float64");
}

TEST(CallsFrontend, ArgumentErrorsArePythonsAtTheCall) {
  std::string base = kSource;
  struct Case {
    const char* body;
    const char* message;
  } cases[] = {
      {"def f(a):\n    return scaled(a, 1.0, 2.0, 3.0)\n", "calls.py:30:12: scaled() takes 3 positional arguments but 4 were given"},
      {"def f(a):\n    return scaled(a, scal=2.0)\n", "scaled() got an unexpected keyword argument 'scal' (its parameters: x, scale, offset)"},
      {"def f(a):\n    return scaled(a, x=a)\n", "scaled() got multiple values for argument 'x'"},
      {"def f(a):\n    return scaled(scale=a)\n", "scaled() missing 1 required positional argument: 'x'"},
      {"def f(a):\n    return twice()\n", "twice() missing 1 required positional argument: 'x'"},
      {"def f(a, b=1, c):\n    return a\n", "calls.py:29:15: parameter 'c' without a default follows a parameter with a default"},
      {"def f(a):\n    return a is a is a\n", "the 'is' operator is supported alone with None only"},
  };
  for (const Case& c : cases) {
    std::string got = error_of(base + c.body, "f", "(float64,)");
    EXPECT_NE(got.find(c.message), std::string::npos) << "got: " << got << "\nwanted: " << c.message;
  }
}

TEST(CallsFrontend, OptionalResultsAsNumba) {
  EXPECT_EQ(compile_to_nvvm_ir(kSource, "checked", parse_signature("(float64,)"), opts()).result_type.name(), "float64");
  CompileResult r = compile_to_nvvm_ir(kSource, "unwrapped", parse_signature("(float64,)"), opts());
  EXPECT_EQ(r.result_type.name(), "float64");
  EXPECT_NE(r.nvvm_ir.find("{double, i1}"), std::string::npos);
  EXPECT_NE(error_of(kSource, "positive", "(float64,)").find("'positive' returns OptionalType(float64)"), std::string::npos);
  EXPECT_EQ(unify(Type::floating(64), Type::none())->name(), "OptionalType(float64)");
  EXPECT_EQ(unify(Type::optional(Type::integer(32, true)), Type::floating(64))->name(), "OptionalType(float64)");
  EXPECT_EQ(can_convert(Type::none(), Type::optional(Type::floating(32))), Conversion::Safe);
  EXPECT_EQ(can_convert(Type::optional(Type::floating(64)), Type::floating(64)), Conversion::Unsafe);
}

TEST(CallsFrontend, InlineIrWritesTheBodyIntoEachCaller) {
  // numba-cuda's inline='always': the callee's body (default and keyword arguments, two returns) is emitted
  // into the caller at each call, so no call of it remains (nor its definition); with debug info it stays a
  // call of an alwaysinline function.
  CompileOptions o = opts();
  o.inline_ir.insert("scaled");
  CompileResult r = compile_to_nvvm_ir(kSource, "keywords", parse_signature("(float32, float32)"), o);
  EXPECT_EQ(r.result_type.name(), "float64");
  EXPECT_EQ(r.nvvm_ir.find("scaled"), std::string::npos) << r.nvvm_ir;
  o.debug = true;
  o.opt = false;
  CompileResult d = compile_to_nvvm_ir(kSource, "keywords", parse_signature("(float32, float32)"), o);
  EXPECT_NE(d.nvvm_ir.find("_6scaled(double* %a"), std::string::npos) << d.nvvm_ir;  // a call (a definition's is noalias)
  EXPECT_NE(d.nvvm_ir.find("_6scaled(double* noalias nocapture %retptr, float %p0, double %p1, float %p2) alwaysinline"),
            std::string::npos) << d.nvvm_ir;
}

TEST(CallsFrontend, AliasesAndInlineNever) {
  CompileOptions o = opts();
  o.function_aliases = {{"op", "twice"}, {"ops[1]", "scaled"}, {"pkg.mod.sub.fn", "twice"}};
  o.extra_units.push_back({"import pkg.mod as mod\n", "<imports>", 1});
  o.inline_never.insert("twice");
  CompileResult r = compile_to_nvvm_ir(kSource, "by_alias", parse_signature("(int64,)"), o);
  EXPECT_EQ(r.result_type.name(), "float64");
  std::size_t def = r.nvvm_ir.find("define internal i32 @");
  ASSERT_NE(def, std::string::npos);
  bool twice_plain = false;
  for (std::size_t at = def; at != std::string::npos; at = r.nvvm_ir.find("define internal i32 @", at + 1)) {
    std::string line = r.nvvm_ir.substr(at, r.nvvm_ir.find('\n', at) - at);
    if (line.find("twice") != std::string::npos) twice_plain = line.find("alwaysinline") == std::string::npos;
  }
  EXPECT_TRUE(twice_plain) << r.nvvm_ir;
  EXPECT_NE(error_of(kSource, "by_alias", "(int64,)").find("name 'op' is not defined"), std::string::npos);
}
