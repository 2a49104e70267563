// The compiler's recursion has a budget (issue 25, class 11): a chain of calls past kMaxCallDepth, and
// calls made deep inside expressions until the thread's stack is nearly used, end in a CompileError that
// names the limit, on the default stack and on a small thread stack, never in a stack overflow. The
// over-the-limit cases run in a child process with a time limit (in_child.hpp).
#include <gtest/gtest.h>
#include <pthread.h>

#include <string>

#include "compiler/typing/stack_budget.hpp"
#include "cubridge/compiler/compile.hpp"
#include "in_child.hpp"

namespace {

using cubridge::testing::finishes_within;
using namespace cubridge::compiler;
using cubridge::CompileError;
using cubridge::compiler::typer_detail::kMaxCallDepth;

// h0 -> h1 -> ... -> h<calls>, each call `depth` levels inside its function's return expression.
std::string chain(std::size_t calls, int depth = 0) {
  std::string tail;
  for (int k = 0; k < depth; ++k) tail += " + x";
  std::string src;
  for (std::size_t i = 0; i < calls; ++i)
    src += "def h" + std::to_string(i) + "(x):\n    return h" + std::to_string(i + 1) + "(x)" + tail + "\n";
  return src + "def h" + std::to_string(calls) + "(x):\n    return x\n";
}

CompileOptions options() {
  CompileOptions o;
  o.cc = cubridge::ComputeCapability::parse("9.0");
  return o;
}

// True when compiling h0 of `source` throws a CompileError whose message contains `needle`.
bool refused_with(const std::string& source, const std::string& needle) {
  try {
    compile(source, "h0", "(int64,)", options());
  } catch (const CompileError& e) {
    if (std::string(e.what()).find(needle) != std::string::npos) return true;
    ADD_FAILURE() << e.what();
  }
  return false;
}

TEST(CallDepth, AChainAtTheLimitCompiles) {
  CompileResult r = compile(chain(kMaxCallDepth), "h0", "(int64,)", options());
  EXPECT_EQ(r.result_type.name(), "int64");
}

TEST(CallDepth, AChainOneCallPastTheLimitIsRefusedNamingIt) {
  try {
    compile(chain(kMaxCallDepth + 1), "h0", "(int64,)", options());
    FAIL() << "compiled";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("this call of 'h129' nests calls 129 deep: calls of module functions nest "
                                         "at most 128 deep"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.line(), 2 * 128 + 2);  // the call in h128's body
  }
}

TEST(CallDepth, AChainOf3000CallsIsRefusedQuickly) {
  EXPECT_TRUE(finishes_within(60, [] { return refused_with(chain(3000), "nest at most 128 deep"); }));
}

TEST(CallDepth, AnErrorAtTheEndOfALongChainIsReportedOnce) {
  // A failed callee used to be typed again by each of its caller's passes, at each level: time exponential
  // in the chain's depth (60 levels did not finish).
  std::string source = chain(60);
  source.replace(source.rfind("return x"), 8, "return not_defined");
  EXPECT_TRUE(finishes_within(60, [&] { return refused_with(source, "not_defined"); }));
}

TEST(CallDepth, CallsDeepInsideExpressionsStopBeforeTheStackEnds) {
  // each level 280 expressions deep (under the 300 of one function): the levels add up past 8 MiB
  EXPECT_TRUE(finishes_within(60, [] {
    return refused_with(chain(100, 280), "nests too deeply for the compiler");
  }));
  // a few levels of moderately deep expressions are fine (ASan's Debug frames are ~9 KiB per level of a
  // 280-deep expression: four such functions nested already fill its 8 MiB)
  CompileResult r = compile(chain(4, 60), "h0", "(int64,)", options());
  EXPECT_EQ(r.result_type.name(), "int64");
}

TEST(CallDepth, ASmallThreadStackEndsInTheSameError) {
  EXPECT_TRUE(finishes_within(60, [] {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, std::size_t{256} << 10);
    pthread_t thread;
    bool refused = false;
    auto body = [](void* out) -> void* {
      *static_cast<bool*>(out) = refused_with(chain(kMaxCallDepth), "nests too deeply for the compiler");
      return nullptr;
    };
    if (pthread_create(&thread, &attr, body, &refused) != 0) return false;
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attr);
    return refused;
  }));
}

TEST(CallDepth, StackLeftIsMeasuredOnThisThread) {
  const std::size_t left = cubridge::compiler::typer_detail::stack_left();
  EXPECT_GT(left, cubridge::compiler::typer_detail::stack_reserve());
  EXPECT_LT(left, std::size_t{1} << 40);  // read from the thread's bounds, not the "unknown" answer
}

}  // namespace
