// The on-disk code cache. One file per entry, named by a 64-bit hash of the key; the file holds the
// whole key too, so a hash collision reads as a miss rather than as someone else's code. Integrity is a
// keyed MAC, HMAC-SHA256 under a per-user secret in the cache directory (hmac_sha256.hpp), over the header,
// key and payload: torn, edited or forged files are misses, and a forger who can recompute a checksum
// cannot recompute the MAC without the secret. The directory and file checks are cache_directory.hpp's.
#include "cubridge/compiler/code_cache.hpp"

#include <pwd.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <system_error>

#include "cache_directory.hpp"
#include "hmac_sha256.hpp"
#include "cubridge/compiler/linker.hpp"
#include "cubridge/compiler/nvrtc.hpp"
#include "cubridge/compiler/nvvm.hpp"

namespace cubridge {
namespace {

namespace fs = std::filesystem;
using compiler_detail::CacheDirectory;

// "2": entries carry HMAC-SHA256 (version 1 carried FNV-1a, which anyone could recompute).
constexpr char kMagic[16] = {'c', 'u', 'b', 'r', 'i', 'd', 'g', 'e', '-', 'c', 'a', 'c', 'h', 'e', '2', '\n'};
constexpr const char* kSuffix = ".cbc";
constexpr std::size_t kMacSize = 32;
constexpr std::size_t kHeaderSize = sizeof(kMagic) + 2 * sizeof(std::uint64_t) + kMacSize;

std::uint64_t fnv1a(std::string_view data, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hex(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<size_t>(i)] = digits[v & 15];
  return s;
}

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::string passwd_home() {
  struct passwd entry {};
  struct passwd* found = nullptr;
  std::string buf(16384, '\0');
  if (::getpwuid_r(::getuid(), &entry, buf.data(), buf.size(), &found) != 0 || found == nullptr ||
      found->pw_dir == nullptr)
    return {};
  return found->pw_dir;
}

void write_to_stderr(const std::string& message) { std::fprintf(stderr, "cubridge: warning: %s\n", message.c_str()); }

std::atomic<CodeCache::WarningHandler> g_warning_handler{&write_to_stderr};

// Each refused directory is reported once per process (a compile loop must not print a line per call).
void warn_once(const CacheDirectory& dir, const fs::path& path) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!warned.insert(path.string()).second) return;
  }
  g_warning_handler.load()(dir.problem() + "; compiling without the on-disk cache");
}

std::string entry_name(std::string_view key) { return hex(fnv1a(key)) + kSuffix; }

std::string mac_of(std::string_view secret, std::string_view header, std::string_view key, std::string_view data) {
  compiler_detail::Digest256 d = compiler_detail::hmac_sha256(secret, {header, key, data});
  return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}

// The bytes of an entry file if its MAC (under `secret`) and stored key check out.
std::optional<std::string> decode_entry(const std::string& file, std::string_view secret, std::string_view key) {
  if (file.size() < kHeaderSize || std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0) return std::nullopt;
  const char* p = file.data() + sizeof(kMagic);
  std::uint64_t key_size = get_u64(p), data_size = get_u64(p + 8);
  if (key_size > file.size() || data_size > file.size() || kHeaderSize + key_size + data_size != file.size())
    return std::nullopt;
  std::string_view header(file.data(), sizeof(kMagic) + 16);
  std::string_view stored_mac(file.data() + sizeof(kMagic) + 16, kMacSize);
  std::string_view stored_key(file.data() + kHeaderSize, key_size);
  std::string_view data(file.data() + kHeaderSize + key_size, data_size);
  compiler_detail::Digest256 mac = compiler_detail::hmac_sha256(secret, {header, stored_key, data});
  if (!compiler_detail::same_digest(mac, stored_mac) || stored_key != key) return std::nullopt;
  return std::string(data);
}

std::string encode_entry(std::string_view secret, std::string_view key, std::string_view bytes) {
  std::string file(kMagic, sizeof(kMagic));
  put_u64(file, key.size());
  put_u64(file, bytes.size());
  file += mac_of(secret, file, key, bytes);
  file += key;
  file += bytes;
  return file;
}

}  // namespace

fs::path CodeCache::default_directory() {
  if (std::string dir = env("CUBRIDGE_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty()) return fs::path(xdg) / "cubridge";
  if (std::string home = env("HOME"); !home.empty()) return fs::path(home) / ".cache" / "cubridge";
  if (std::string home = passwd_home(); !home.empty() && home != "/") return fs::path(home) / ".cache" / "cubridge";
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  return tmp / ("cubridge-cache-" + std::to_string(::getuid()));
}

void CodeCache::set_warning_handler(WarningHandler handler) noexcept {
  g_warning_handler.store(handler != nullptr ? handler : &write_to_stderr);
}

bool CodeCache::enabled_by_environment() {
  std::string v = env("CUBRIDGE_DISABLE_CACHE");
  return v.empty() || v == "0";
}

CodeCache::CodeCache() : CodeCache(default_directory()) {}

CodeCache::CodeCache(fs::path directory)
    : directory_(std::move(directory)), enabled_(enabled_by_environment()) {}

std::string CodeCache::make_key(std::initializer_list<std::string_view> parts, CacheKeyTools tools) {
  std::vector<std::string> copies(parts.begin(), parts.end());
  return make_key(std::span<const std::string>(copies), tools);
}

std::string CodeCache::make_key(std::span<const std::string> parts, CacheKeyTools tools) {
  std::string key;
  auto add = [&key](std::string_view part) {
    key += std::to_string(part.size());
    key += ':';
    key += part;
    key += ';';
  };
  for (const std::string& p : parts) add(p);
  add(std::string("cubridge ") + CUBRIDGE_VERSION);
  if (tools.nvvm) {
    auto [major, minor] = nvvm::version();
    std::string v = "libNVVM " + std::to_string(major) + "." + std::to_string(minor) + " IR";
    for (int x : nvvm::ir_version()) v += " " + std::to_string(x);
    add(v);
  }
  if (tools.nvjitlink) {
    auto [major, minor] = nvjitlink_version();
    add("nvJitLink " + std::to_string(major) + "." + std::to_string(minor));
  }
  if (tools.nvrtc) {
    auto [major, minor] = nvrtc::version();
    add("NVRTC " + std::to_string(major) + "." + std::to_string(minor));
  }
  return key;
}

fs::path CodeCache::path_for(std::string_view key) const { return directory_ / entry_name(key); }

std::string CodeCache::problem() const {
  CacheDirectory dir(directory_, false);
  return dir.usable() || dir.missing() ? std::string() : dir.problem();
}

std::optional<std::string> CodeCache::secret(bool create) const {
  CacheDirectory dir(directory_, create);
  if (!dir.usable()) {
    if (!dir.missing()) warn_once(dir, directory_);
    return std::nullopt;
  }
  std::optional<std::string> secret = dir.secret(create);
  if (!secret && !dir.problem().empty()) warn_once(dir, directory_);
  return secret;
}

std::optional<std::string> CodeCache::get(std::string_view key) const {
  if (!enabled_) return std::nullopt;
  CacheDirectory dir(directory_, false);
  if (!dir.usable()) {
    if (!dir.missing()) warn_once(dir, directory_);
    return std::nullopt;
  }
  std::optional<std::string> secret = dir.secret(false);
  if (!secret) {
    if (!dir.usable()) warn_once(dir, directory_);
    return std::nullopt;
  }
  std::optional<std::string> read = dir.read(entry_name(key), max_entry_bytes);
  if (!read) return std::nullopt;
  return decode_entry(*read, *secret, key);
}

bool CodeCache::put(std::string_view key, std::string_view bytes) const {
  if (!enabled_ || key.size() + bytes.size() + kHeaderSize > max_entry_bytes) return false;
  CacheDirectory dir(directory_, true);
  std::optional<std::string> secret = dir.secret(true);
  if (!secret) {
    if (!dir.problem().empty()) warn_once(dir, directory_);
    return false;
  }
  return dir.write(entry_name(key), encode_entry(*secret, key, bytes));
}

std::optional<std::string> CodeCache::get_at(const fs::path& directory, std::string_view file,
                                             std::string_view key) const {
  if (!enabled_) return std::nullopt;
  CacheDirectory dir(directory, false, CacheDirectory::Access::source_tree);
  if (!dir.usable()) {
    if (!dir.missing()) warn_once(dir, directory);
    return std::nullopt;
  }
  std::optional<std::string> read = dir.read(file, max_entry_bytes);
  if (!read) return std::nullopt;
  std::optional<std::string> key_secret = secret(false);
  if (!key_secret) return std::nullopt;
  return decode_entry(*read, *key_secret, key);
}

bool CodeCache::put_at(const fs::path& directory, std::string_view file, std::string_view key,
                       std::string_view bytes) const {
  if (!enabled_ || key.size() + bytes.size() + kHeaderSize > max_entry_bytes) return false;
  std::optional<std::string> key_secret = secret(true);
  if (!key_secret) return false;
  CacheDirectory dir(directory, true, CacheDirectory::Access::source_tree);
  if (!dir.usable()) {
    warn_once(dir, directory);
    return false;
  }
  return dir.write(file, encode_entry(*key_secret, key, bytes));
}

bool CodeCache::remove_at(const fs::path& directory, std::string_view file) {
  CacheDirectory dir(directory, false, CacheDirectory::Access::source_tree);
  return dir.remove(file);
}

bool CodeCache::remove(std::string_view key) const {
  CacheDirectory dir(directory_, false);
  return dir.remove(entry_name(key));
}

std::size_t CodeCache::clear() const {
  CacheDirectory dir(directory_, false);
  if (!dir.usable()) return 0;
  std::size_t n = 0;
  std::error_code ec;
  std::vector<std::string> ours;
  for (fs::directory_iterator it(directory_, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    // Our entries: 16 hex digits + suffix, and leftover temporaries of interrupted writes (the secret
    // stays: entries written by other processes from now on use it).
    bool entry = name.size() == 16 + std::strlen(kSuffix) && name.ends_with(kSuffix);
    bool temp = name.find(std::string(kSuffix) + ".tmp.") == 16 || name.starts_with("secret.tmp.");
    if (entry || temp) ours.push_back(name);
  }
  for (const std::string& name : ours)
    if (dir.remove(name)) ++n;
  return n;
}

}  // namespace cubridge
