// The on-disk code cache: round trip, keys, atomic replacement, corrupt and foreign entries as misses.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "cubridge/compiler/code_cache.hpp"

namespace {

namespace fs = std::filesystem;
using cubridge::CacheKeyTools;
using cubridge::CodeCache;

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "cubridge-cache-test-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~ScratchDir() { fs::remove_all(path); }
};

struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const char* value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) old = v;
    if (value) ::setenv(name.c_str(), value, 1);
    else ::unsetenv(name.c_str());
  }
  ~ScopedEnv() {
    if (old) ::setenv(name.c_str(), old->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void write(const fs::path& p, const std::string& s) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << s;
}

TEST(CodeCache, RoundTripOfBinaryData) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path / "sub");  // created on the first put
  std::string bytes("\0\x01ltoir\xff\0", 9);
  EXPECT_FALSE(cache.get("k").has_value());
  EXPECT_TRUE(cache.put("k", bytes));
  ASSERT_TRUE(cache.get("k").has_value());
  EXPECT_EQ(*cache.get("k"), bytes);
  EXPECT_TRUE(cache.put("k", "newer"));  // replaces
  EXPECT_EQ(*cache.get("k"), "newer");
  EXPECT_TRUE(cache.put("empty", ""));
  EXPECT_EQ(*cache.get("empty"), "");
  EXPECT_TRUE(cache.remove("k"));
  EXPECT_FALSE(cache.remove("k"));
  EXPECT_FALSE(cache.get("k").has_value());
}

TEST(CodeCache, CorruptEntriesAreMisses) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path);
  ASSERT_TRUE(cache.put("key", "some PTX text"));
  fs::path p = cache.path_for("key");
  std::string good = read(p);
  write(p, good.substr(0, good.size() - 3));  // truncated
  EXPECT_FALSE(cache.get("key").has_value());
  std::string flipped = good;
  flipped.back() ^= 1;  // payload edited
  write(p, flipped);
  EXPECT_FALSE(cache.get("key").has_value());
  write(p, "garbage");
  EXPECT_FALSE(cache.get("key").has_value());
  write(p, "");
  EXPECT_FALSE(cache.get("key").has_value());
  std::string huge = good;
  huge[16] = '\xff';  // key size field absurd
  write(p, huge);
  EXPECT_FALSE(cache.get("key").has_value());
  write(p, good);
  EXPECT_EQ(*cache.get("key"), "some PTX text");
}

TEST(CodeCache, AnEntryForAnotherKeyIsAMiss) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path);
  ASSERT_TRUE(cache.put("a", "code of a"));
  fs::copy_file(cache.path_for("a"), cache.path_for("b"));  // as a hash collision would leave it
  EXPECT_FALSE(cache.get("b").has_value());
}

TEST(CodeCache, KeysSeparatePartsAndIncludeVersions) {
  std::string k1 = CodeCache::make_key({"ab", "c"}), k2 = CodeCache::make_key({"a", "bc"});
  EXPECT_NE(k1, k2);
  EXPECT_NE(k1.find("cubridge "), std::string::npos);
  EXPECT_NE(k1.find("libNVVM "), std::string::npos);
  EXPECT_EQ(k1.find("NVRTC"), std::string::npos);
  std::string all = CodeCache::make_key({"x"}, CacheKeyTools{true, true, true});
  EXPECT_NE(all.find("nvJitLink "), std::string::npos);
  EXPECT_NE(all.find("NVRTC "), std::string::npos);
  EXPECT_EQ(CodeCache::make_key({"ab", "c"}), k1);  // deterministic
}

TEST(CodeCache, DefaultDirectoryFollowsTheEnvironment) {
  ScopedEnv a("CUBRIDGE_CACHE_DIR", "/x/mine");
  EXPECT_EQ(CodeCache::default_directory(), fs::path("/x/mine"));
  ScopedEnv b("CUBRIDGE_CACHE_DIR", nullptr);
  ScopedEnv c("XDG_CACHE_HOME", "/x/xdg");
  EXPECT_EQ(CodeCache::default_directory(), fs::path("/x/xdg/cubridge"));
  ScopedEnv d("XDG_CACHE_HOME", nullptr);
  ScopedEnv e("HOME", "/x/home");
  EXPECT_EQ(CodeCache::default_directory(), fs::path("/x/home/.cache/cubridge"));
  EXPECT_EQ(CodeCache().directory(), fs::path("/x/home/.cache/cubridge"));
}

TEST(CodeCache, DisabledByEnvironment) {
  ScratchDir dir;
  {
    ScopedEnv off("CUBRIDGE_DISABLE_CACHE", "1");
    CodeCache cache(dir.path);
    EXPECT_FALSE(cache.put("k", "v"));
    EXPECT_FALSE(cache.get("k").has_value());
  }
  ScopedEnv zero("CUBRIDGE_DISABLE_CACHE", "0");
  EXPECT_TRUE(CodeCache::enabled_by_environment());
}

TEST(CodeCache, UnwritableDirectoryIsNotAnError) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  CodeCache cache("/dev/null/cubridge");  // cannot be created
  EXPECT_FALSE(cache.put("k", "v"));
  EXPECT_FALSE(cache.get("k").has_value());
  EXPECT_EQ(cache.clear(), 0u);
}

TEST(CodeCache, ClearRemovesOnlyEntries) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path);
  cache.put("a", "1");
  cache.put("b", "2");
  write(dir.path / "README", "not ours");
  EXPECT_EQ(cache.clear(), 2u);
  EXPECT_TRUE(fs::exists(dir.path / "README"));
  EXPECT_FALSE(cache.get("a").has_value());
}

TEST(CodeCache, ConcurrentWritersLeaveAWholeEntry) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path);
  std::string big_a(1 << 18, 'a'), big_b(1 << 18, 'b');
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        cache.put("same", (t % 2) ? big_a : big_b);
        auto got = cache.get("same");
        if (got) {
          EXPECT_TRUE(*got == big_a || *got == big_b);
        }
      }
    });
  for (auto& th : threads) th.join();
  auto got = cache.get("same");
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(*got == big_a || *got == big_b);
  for (const auto& e : fs::directory_iterator(dir.path))  // no temporaries left behind
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos);
}

}  // namespace
