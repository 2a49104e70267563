// compile() through the on-disk code cache (compile_cache.hpp): a second compilation of the same input
// reads the stored code, symbol and result type back; each input that changes the code changes the key.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "cubridge/compiler/cached_compile.hpp"
#include "cubridge/types/signature.hpp"

using namespace cubridge;
using namespace cubridge::compiler;
using cubridge::parse_signature;  // the types floor (include/cubridge/types/)
using cubridge::parse_type_name;
using cubridge::Signature;
using cubridge::Type;
using cubridge::TypeKind;

namespace {
namespace fs = std::filesystem;

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "cubridge-compile-cache-test-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~ScratchDir() { fs::remove_all(path); }
};

const char* kSource = "def f(x, y):\n    return x * y + 1\n";

CompileOptions options() {
  CompileOptions o;
  o.cc = ComputeCapability{9, 0};
  return o;
}
}  // namespace

TEST(CompileCache, SecondCompilationIsReadBack) {
  ScratchDir dir;
  CodeCache cache(dir.path);
  CompileCacheStats s0 = compile_cache_stats();
  CompileResult first = compile_cached(kSource, "f", "(float32, float32)", options(), cache);
  EXPECT_FALSE(first.from_cache);
  CompileResult second = compile_cached(kSource, "f", "(float32, float32)", options(), cache);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.code, first.code);
  EXPECT_EQ(second.name, first.name);
  EXPECT_EQ(second.result_type.name(), "float64");  // float32 * float32 + int64, by Numba's rules
  EXPECT_EQ(first.result_type.name(), "float64");
  CompileCacheStats s1 = compile_cache_stats();
  EXPECT_EQ(s1.hits - s0.hits, 1u);
  EXPECT_EQ(s1.misses - s0.misses, 1u);
  EXPECT_EQ(s1.stores - s0.stores, 1u);
}

TEST(CompileCache, EveryInputIsPartOfTheKey) {
  std::string base = compile_cache_key(kSource, "f", "(float32, float32)", options());
  EXPECT_EQ(compile_cache_key(kSource, "f", "(float32, float32)", options()), base);
  std::vector<std::string> others = {
      compile_cache_key("def f(x, y):\n    return x * y + 2\n", "f", "(float32, float32)", options()),
      compile_cache_key(kSource, "f", "(float64, float32)", options()),
  };
  auto with = [&](auto change) {
    CompileOptions o = options();
    change(o);
    others.push_back(compile_cache_key(kSource, "f", "(float32, float32)", o));
  };
  with([](CompileOptions& o) { o.cc = ComputeCapability{8, 0}; });
  with([](CompileOptions& o) { o.cc.reset(); });
  with([](CompileOptions& o) { o.fastmath = true; });
  with([](CompileOptions& o) { o.debug = true; });
  with([](CompileOptions& o) { o.lineinfo = true; });
  with([](CompileOptions& o) { o.opt = false; });
  with([](CompileOptions& o) { o.abi = Abi::numba; });
  with([](CompileOptions& o) { o.output = Output::ltoir; });
  with([](CompileOptions& o) { o.abi_name = "g"; });
  with([](CompileOptions& o) { o.first_line = 7; });
  with([](CompileOptions& o) { o.module_name = "m"; });
  with([](CompileOptions& o) { o.constants["K"] = constant_from_text("float64", "1.5"); });
  with([](CompileOptions& o) { o.constants["K"] = constant_from_text("float64", "2.5"); });
  with([](CompileOptions& o) { o.extra_units.push_back({"def g():\n    return 1\n", "<g>", 1}); });
  with([](CompileOptions& o) { o.exception_classes["E"] = "m.E"; });  // raise E names another class
  for (std::size_t i = 0; i < others.size(); ++i) {
    EXPECT_NE(others[i], base) << "variant " << i;
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(others[i], others[j]) << "variants " << j << " and " << i;
  }
}

TEST(CompileCache, ErrorsAreNotCached) {
  ScratchDir dir;
  CodeCache cache(dir.path);
  for (int i = 0; i < 2; ++i)
    EXPECT_THROW(compile_cached("def f(x):\n    return y\n", "f", "(int32,)", options(), cache), CompileError);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++files;
  EXPECT_EQ(files, 0u);
}
