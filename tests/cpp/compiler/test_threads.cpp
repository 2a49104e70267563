// Thread stress (issue 13): 16 threads at once through the compiler's shared state: the lazily loaded
// toolkit libraries (libNVVM, nvJitLink), the on-disk code cache (one directory, the same keys), the cache
// statistics, linkers (one each, and one shared by threads adding and linking) and the spelling parsers.
// Every thread must get the same, correct answers; under ASan+UBSan (scripts/test) this also checks for
// races that corrupt memory.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "cubridge/types/array_spelling.hpp"
#include "cubridge/types/signature.hpp"
#include "cubridge/compiler/cached_compile.hpp"
#include "cubridge/compiler/linker.hpp"
#include "cubridge/kernel/kernel_signature.hpp"
#include "on_threads.hpp"

using namespace cubridge;
using namespace cubridge::compiler;
using cubridge::parse_signature;  // the types floor (include/cubridge/types/)
using cubridge::parse_type_name;
using cubridge::Signature;
using cubridge::Type;
using cubridge::TypeKind;

namespace {
namespace fs = std::filesystem;

using cubridge::testing::on_threads;
constexpr int kThreads = cubridge::testing::kStressThreads;

CompileOptions options(Output output) {
  CompileOptions o;
  o.cc = ComputeCapability{9, 0};
  o.output = output;
  return o;
}

}  // namespace

TEST(Threads, CompileAndLinkFromSixteenThreadsAtOnce) {
  std::vector<std::string> ptx(kThreads);
  auto failures = on_threads([&](int t) {
    const std::string source = "def f(x, y):\n    return x * y + " + std::to_string(t % 4) + ".0\n";
    CompileResult r = compile(source, "f", "float32(float32, float32)", options(Output::ptx));
    ptx[static_cast<std::size_t>(t)] = r.code;
    CompileResult lto = compile(source, "f", "float32(float32, float32)", options(Output::ltoir));
    Linker linker({.cc = ComputeCapability{9, 0}});
    linker.add_ltoir(lto.code, "f.ltoir");
    // f is dropped (nothing calls it): the link itself is what runs on every thread at once.
    if (linker.link_ptx().find(".version") == std::string::npos) throw std::runtime_error("the link gave no PTX");
  });
  EXPECT_TRUE(failures.empty()) << failures.front();
  for (int t = 4; t < kThreads; ++t) EXPECT_EQ(ptx[static_cast<std::size_t>(t)], ptx[static_cast<std::size_t>(t % 4)]);
}

TEST(Threads, OneCodeCacheSharedBySixteenThreads) {
  std::string tmpl = (fs::temp_directory_path() / "cubridge-threads-cache-XXXXXX").string();
  fs::path dir = ::mkdtemp(tmpl.data());
  CodeCache cache(dir);
  std::vector<std::string> code(kThreads);
  auto failures = on_threads([&](int t) {
    const std::string source = "def g(x):\n    return x * " + std::to_string(t % 2 + 2) + "\n";
    for (int round = 0; round < 3; ++round) {  // misses and hits, racing on the same two keys
      CompileResult r = compile_cached(source, "g", "(int64,)", options(Output::ptx), cache);
      if (round > 0 && r.code != code[static_cast<std::size_t>(t)]) throw std::runtime_error("cache gave other code");
      code[static_cast<std::size_t>(t)] = r.code;
    }
  });
  fs::remove_all(dir);
  EXPECT_TRUE(failures.empty()) << failures.front();
  for (int t = 2; t < kThreads; ++t) EXPECT_EQ(code[static_cast<std::size_t>(t)], code[static_cast<std::size_t>(t % 2)]);
}

TEST(Threads, SpellingParsersFromSixteenThreads) {
  auto failures = on_threads([](int t) {
    for (int i = 0; i < 200; ++i) {
      auto sig = KernelSignature::parse("void(float32[:, ::1], const int64[:], float64, Record(x=float32, y=int32)[::1])");
      if (sig.size() != 4) throw std::runtime_error("bad kernel signature");
      auto s = parse_signature("float64(UniTuple(int32 x " + std::to_string(t % 8 + 1) + "), float32)");
      if (s.args.size() != 2) throw std::runtime_error("bad signature");
      if (!parse_array_spelling("float32[:, ::1]")) throw std::runtime_error("bad array spelling");
    }
  });
  EXPECT_TRUE(failures.empty()) << failures.front();
}

// One Linker shared by threads that add inputs and threads that link (the Python binding links without
// the GIL, so other threads reach add() mid-link): every link sees a consistent prefix of the inputs and
// succeeds; the last count is every input added.
TEST(Threads, OneLinkerAddedToAndLinkedFromSixteenThreads) {
  constexpr int kAddsPerThread = 3;
  std::vector<std::string> ltoir;
  for (int i = 0; i < kThreads / 2 * kAddsPerThread; ++i) {
    const std::string name = "h" + std::to_string(i);
    ltoir.push_back(compile("def " + name + "(x):\n    return x + " + std::to_string(i) + "\n", name, "(int64,)",
                            options(Output::ltoir))
                        .code);
  }
  Linker linker({.cc = ComputeCapability{9, 0}});
  linker.add_ltoir(ltoir.back(), "first.ltoir");
  ltoir.pop_back();
  std::atomic<int> links{0};
  auto failures = on_threads([&](int t) {
    if (t % 2 == 0) {
      for (int k = 0; k < kAddsPerThread; ++k) {
        const std::size_t i = static_cast<std::size_t>(t / 2 * kAddsPerThread + k);
        if (i < ltoir.size()) linker.add_ltoir(ltoir[i], "h" + std::to_string(i) + ".ltoir");
      }
    } else {
      for (int k = 0; k < 2; ++k) {
        if (linker.link_ptx().find(".version") == std::string::npos) throw std::runtime_error("the link gave no PTX");
        ++links;
      }
    }
  });
  EXPECT_TRUE(failures.empty()) << failures.front();
  EXPECT_EQ(links.load(), kThreads);
  EXPECT_EQ(linker.input_count(), static_cast<std::size_t>(kThreads / 2 * kAddsPerThread));
  Linker copy = linker;  // a copy taken while nobody adds holds the same inputs and links alone
  EXPECT_EQ(copy.input_count(), linker.input_count());
  EXPECT_NE(copy.link_ptx().find(".version"), std::string::npos);
}
