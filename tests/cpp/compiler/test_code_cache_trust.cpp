// What the on-disk code cache trusts (docs/code-cache.md): only regular files of this user under the size
// cap, in a directory of this user closed to others, carrying a MAC under the per-user secret. Reading a
// FIFO or a device must neither block nor run out of memory: those tests run the read in a child process
// with a time limit, so a regression fails the test instead of hanging the suite.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cubridge/compiler/code_cache.hpp"
#include "in_child.hpp"

namespace {

namespace fs = std::filesystem;
using cubridge::CodeCache;
using cubridge::testing::finishes_within;

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "cubridge-cache-trust-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, ec);
    fs::remove_all(path, ec);
  }
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

// The warnings the cache issues while one of these is alive.
std::vector<std::string>* g_warnings = nullptr;
struct CapturedWarnings {
  std::vector<std::string> messages;
  CapturedWarnings() {
    g_warnings = &messages;
    CodeCache::set_warning_handler([](const std::string& m) { g_warnings->push_back(m); });
  }
  ~CapturedWarnings() {
    CodeCache::set_warning_handler(nullptr);
    g_warnings = nullptr;
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void write(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary | std::ios::trunc) << s; }

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  ::lstat(p.c_str(), &st);
  return st.st_mode & 07777;
}

TEST(CodeCacheTrust, AFifoInPlaceOfAnEntryIsAMissWithoutBlocking) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path);
  ASSERT_TRUE(cache.put("key", "code"));
  fs::remove(cache.path_for("key"));
  ASSERT_EQ(::mkfifo(cache.path_for("key").c_str(), 0600), 0);
  EXPECT_TRUE(finishes_within(10, [&] { return !cache.get("key").has_value(); }));
}

TEST(CodeCacheTrust, ALinkToADeviceIsAMissWithoutReadingIt) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path);
  ASSERT_TRUE(cache.put("key", "code"));
  fs::remove(cache.path_for("key"));
  fs::create_symlink("/dev/zero", cache.path_for("key"));
  EXPECT_TRUE(finishes_within(10, [&] { return !cache.get("key").has_value(); }));
  // a link to a good entry of the same cache is refused too: entries are files, not links
  ASSERT_TRUE(cache.put("other", "code"));
  fs::remove(cache.path_for("key"));
  fs::create_symlink(cache.path_for("other"), cache.path_for("key"));
  EXPECT_FALSE(cache.get("key").has_value());
}

TEST(CodeCacheTrust, AnEntryPastTheSizeCapIsNotRead) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path);
  ASSERT_TRUE(cache.put("key", "code"));
  // a sparse file larger than the cap: reading it whole would take the cap's worth of memory
  ASSERT_EQ(::truncate(cache.path_for("key").c_str(), static_cast<off_t>(CodeCache::max_entry_bytes) + 4096), 0);
  EXPECT_TRUE(finishes_within(10, [&] { return !cache.get("key").has_value(); }));
  EXPECT_FALSE(cache.put("big", std::string(CodeCache::max_entry_bytes, 'x')));
}

// The layout an entry has on disk: magic, key size, payload size (little-endian), 32 bytes of MAC, key,
// payload. A forger knows all of it; what he lacks is the secret.
std::string forged_entry(const std::string& key, const std::string& payload, const std::string& mac) {
  std::string file("cubridge-cache2\n");
  for (std::uint64_t v : {std::uint64_t{key.size()}, std::uint64_t{payload.size()}})
    for (int i = 0; i < 8; ++i) file.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return file + mac + key + payload;
}

TEST(CodeCacheTrust, AForgedEntryIsAMiss) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path);
  ASSERT_TRUE(cache.put("key", "the real PTX"));
  std::string good = read(cache.path_for("key"));
  // the payload replaced, every length right, the MAC kept or recomputed without the secret
  write(cache.path_for("key"), forged_entry("key", "evil PTX!!!!", good.substr(32, 32)));
  EXPECT_FALSE(cache.get("key").has_value());
  write(cache.path_for("key"), forged_entry("key", "evil PTX!!!!", std::string(32, '\0')));
  EXPECT_FALSE(cache.get("key").has_value());
  // an entry of another cache (another secret) is not this one's
  ScratchDir other_dir;
  CodeCache other(other_dir.path);
  ASSERT_TRUE(other.put("key", "other PTX"));
  fs::copy_file(other.path_for("key"), cache.path_for("key"), fs::copy_options::overwrite_existing);
  EXPECT_FALSE(cache.get("key").has_value());
  write(cache.path_for("key"), good);
  EXPECT_EQ(cache.get("key"), std::optional<std::string>("the real PTX"));
}

TEST(CodeCacheTrust, TheDirectoryAndSecretAreCreatedPrivate) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path / "a" / "cache");
  ASSERT_TRUE(cache.put("k", "v"));
  EXPECT_EQ(mode_of(dir.path / "a" / "cache"), 0700u);
  EXPECT_EQ(mode_of(dir.path / "a" / "cache" / "secret") & 077, 0u);
  EXPECT_EQ(fs::file_size(dir.path / "a" / "cache" / "secret"), 32u);
  EXPECT_EQ(mode_of(cache.path_for("k")) & 077, 0u);
  EXPECT_EQ(cache.problem(), "");
}

TEST(CodeCacheTrust, ADirectoryOthersMayWriteIsRefusedWithOneWarning) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path);
  ASSERT_TRUE(cache.put("k", "v"));
  ASSERT_EQ(::chmod(dir.path.c_str(), 0777), 0);
  CapturedWarnings warnings;
  EXPECT_FALSE(cache.get("k").has_value());
  EXPECT_FALSE(cache.put("k", "w"));
  EXPECT_FALSE(cache.get("k").has_value());
  ASSERT_EQ(warnings.messages.size(), 1u);  // once per directory, not once per call
  EXPECT_NE(warnings.messages[0].find(dir.path.string()), std::string::npos) << warnings.messages[0];
  EXPECT_NE(warnings.messages[0].find("writable by group or others (mode 0777"), std::string::npos)
      << warnings.messages[0];
  EXPECT_NE(warnings.messages[0].find("compiling without the on-disk cache"), std::string::npos);
  EXPECT_NE(cache.problem().find("mode 0777"), std::string::npos);
  const std::string entry = read(cache.path_for("k"));  // nothing written: still the entry of "v"
  ASSERT_FALSE(entry.empty());
  EXPECT_EQ(entry.back(), 'v');
}

TEST(CodeCacheTrust, ADirectoryOthersMayOnlyReadIsNarrowed) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  ASSERT_EQ(::chmod(dir.path.c_str(), 0755), 0);  // as releases before 0.x created it
  CapturedWarnings warnings;
  CodeCache cache(dir.path);
  EXPECT_TRUE(cache.put("k", "v"));
  EXPECT_EQ(mode_of(dir.path), 0700u);
  EXPECT_TRUE(warnings.messages.empty());
}

TEST(CodeCacheTrust, ADirectoryOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another user";
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  fs::path theirs = dir.path / "theirs";
  ASSERT_EQ(::mkdir(theirs.c_str(), 0700), 0);
  ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
  CapturedWarnings warnings;
  CodeCache cache(theirs);
  EXPECT_FALSE(cache.put("k", "v"));
  EXPECT_FALSE(cache.get("k").has_value());
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_NE(warnings.messages[0].find("is owned by uid 65534, not by this user (uid 0)"), std::string::npos)
      << warnings.messages[0];
}

TEST(CodeCacheTrust, ALinkedDirectoryIsRefused) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  fs::create_directory(dir.path / "real");
  fs::create_directory_symlink(dir.path / "real", dir.path / "link");
  CapturedWarnings warnings;
  CodeCache cache(dir.path / "link");
  EXPECT_FALSE(cache.put("k", "v"));
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_NE(warnings.messages[0].find("is a symbolic link or not a directory"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(dir.path / "real"));
}

TEST(CodeCacheTrust, ASecretOthersMayReadIsRefused) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path);
  ASSERT_TRUE(cache.put("k", "v"));
  ASSERT_EQ(::chmod((dir.path / "secret").c_str(), 0644), 0);
  CapturedWarnings warnings;
  EXPECT_FALSE(cache.get("k").has_value());
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_NE(warnings.messages[0].find("holds a file 'secret' that is not this user's 0600 key"), std::string::npos)
      << warnings.messages[0];
}

TEST(CodeCacheTrust, TemporaryNamesAreNotPredictable) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir dir;
  CodeCache cache(dir.path);
  ASSERT_TRUE(cache.put("warm", "v"));  // the secret exists
  // Releases before this one wrote <entry>.tmp.<pid>.<counter>: a link planted at each such name for
  // this process sent the entry's bytes into the linked file.
  fs::path victim = dir.path / "victim";
  write(victim, "untouched");
  for (int counter = 0; counter < 8; ++counter) {
    fs::path planted = cache.path_for("k");
    planted += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter);
    fs::create_symlink(victim, planted);
  }
  EXPECT_TRUE(cache.put("k", "v"));
  EXPECT_EQ(read(victim), "untouched");
  EXPECT_EQ(cache.get("k"), std::optional<std::string>("v"));
}

TEST(CodeCacheTrust, WithoutHomeTheCacheIsInThePasswdHome) {
  ScopedEnv a("CUBRIDGE_CACHE_DIR", nullptr), b("XDG_CACHE_HOME", nullptr), c("HOME", nullptr);
  struct passwd* pw = ::getpwuid(::getuid());
  if (pw == nullptr || pw->pw_dir == nullptr || std::string(pw->pw_dir) == "/")
    GTEST_SKIP() << "this user has no home directory in passwd";
  EXPECT_EQ(CodeCache::default_directory(), fs::path(pw->pw_dir) / ".cache" / "cubridge");
}

// Entries outside the cache's directory (numba-cuda's __pycache__ layout, put_at/get_at): the caller's file
// name, this cache's format and MAC, the secret kept in the cache's own directory; the source-tree directory
// is created 0755 and left as Python makes it, but refused when others may write to it.
TEST(CodeCacheTrust, EntriesAtAChosenNameUseTheCachesSecretAndFormat) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir root;
  CodeCache cache(root.path / "private");
  fs::path tree = root.path / "src" / "__pycache__";
  ASSERT_TRUE(cache.put_at(tree, "f-3.py312.1.nbc", "key", "code"));
  EXPECT_TRUE(fs::is_regular_file(tree / "f-3.py312.1.nbc"));
  EXPECT_FALSE(fs::exists(tree / "secret"));
  EXPECT_TRUE(fs::is_regular_file(root.path / "private" / "secret"));
  EXPECT_EQ(mode_of(tree) & 022, 0u);  // made 0755 (less what the umask takes): nobody else writes there
  EXPECT_EQ(cache.get_at(tree, "f-3.py312.1.nbc", "key"), std::optional<std::string>("code"));
  EXPECT_EQ(cache.get_at(tree, "f-3.py312.1.nbc", "another key"), std::nullopt);
  EXPECT_EQ(cache.get_at(tree, "missing.nbc", "key"), std::nullopt);
  CodeCache other(root.path / "someone else");  // another secret: the entry does not verify
  ASSERT_TRUE(other.put("warm", "v"));
  EXPECT_EQ(other.get_at(tree, "f-3.py312.1.nbc", "key"), std::nullopt);
  EXPECT_TRUE(CodeCache::remove_at(tree, "f-3.py312.1.nbc"));
  EXPECT_EQ(cache.get_at(tree, "f-3.py312.1.nbc", "key"), std::nullopt);
}

TEST(CodeCacheTrust, AnEditedEntryAtAChosenNameIsAMiss) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  ScratchDir root;
  CodeCache cache(root.path / "private");
  fs::path tree = root.path / "__pycache__";
  ASSERT_TRUE(cache.put_at(tree, "f.nbi", "key", "index"));
  std::string bytes = read(tree / "f.nbi");
  bytes.back() ^= 1;
  write(tree / "f.nbi", bytes);
  EXPECT_EQ(cache.get_at(tree, "f.nbi", "key"), std::nullopt);
}

TEST(CodeCacheTrust, ASourceTreeDirectoryOthersMayWriteToIsRefused) {
  ScopedEnv no_disable("CUBRIDGE_DISABLE_CACHE", nullptr);
  CapturedWarnings warnings;
  ScratchDir root;
  CodeCache cache(root.path / "private");
  fs::path tree = root.path / "__pycache__";
  fs::create_directory(tree);
  ::chmod(tree.c_str(), 0777);
  EXPECT_FALSE(cache.put_at(tree, "f.nbi", "key", "index"));
  EXPECT_EQ(cache.get_at(tree, "f.nbi", "key"), std::nullopt);
  EXPECT_EQ(mode_of(tree), 0777u);  // reported, not changed
  ASSERT_FALSE(warnings.messages.empty());
  EXPECT_NE(warnings.messages[0].find("writable by group or others"), std::string::npos) << warnings.messages[0];
  ::chmod(tree.c_str(), 0755);
  EXPECT_TRUE(cache.put_at(tree, "f.nbi", "key", "index"));
  EXPECT_EQ(mode_of(tree), 0755u);  // readable by others, as Python leaves __pycache__: kept
}

}  // namespace
