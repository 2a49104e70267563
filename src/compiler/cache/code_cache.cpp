// The on-disk code cache. One file per entry, named by a 64-bit hash of the key; the file holds the
// whole key too, so a hash collision reads as a miss rather than as someone else's code, and a checksum
// over key and payload turns torn or edited files into misses.
#include "cubridge/compiler/code_cache.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "support/file_bytes.hpp"
#include "cubridge/compiler/linker.hpp"
#include "cubridge/compiler/nvrtc.hpp"
#include "cubridge/compiler/nvvm.hpp"

namespace cubridge {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[16] = {'c', 'u', 'b', 'r', 'i', 'd', 'g', 'e', '-', 'c', 'a', 'c', 'h', 'e', '1', '\n'};
constexpr const char* kSuffix = ".cbc";
constexpr std::size_t kHeaderSize = sizeof(kMagic) + 3 * sizeof(std::uint64_t);

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

}  // namespace

fs::path CodeCache::default_directory() {
  if (std::string dir = env("CUBRIDGE_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty()) return fs::path(xdg) / "cubridge";
  if (std::string home = env("HOME"); !home.empty()) return fs::path(home) / ".cache" / "cubridge";
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  return tmp / ("cubridge-cache-" + std::to_string(::getuid()));
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

fs::path CodeCache::path_for(std::string_view key) const {
  return directory_ / (hex(fnv1a(key)) + kSuffix);
}

std::optional<std::string> CodeCache::get(std::string_view key) const {
  if (!enabled_) return std::nullopt;
  std::optional<std::string> read = compiler_detail::read_file_bytes(path_for(key).string());
  if (!read) return std::nullopt;
  const std::string& file = *read;
  if (file.size() < kHeaderSize || std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0)
    return std::nullopt;
  const char* p = file.data() + sizeof(kMagic);
  std::uint64_t key_size = get_u64(p), data_size = get_u64(p + 8), checksum = get_u64(p + 16);
  if (key_size > file.size() || data_size > file.size() ||
      kHeaderSize + key_size + data_size != file.size())
    return std::nullopt;
  std::string_view stored_key(file.data() + kHeaderSize, key_size);
  std::string_view data(file.data() + kHeaderSize + key_size, data_size);
  if (fnv1a(data, fnv1a(stored_key)) != checksum || stored_key != key) return std::nullopt;
  return std::string(data);
}

bool CodeCache::put(std::string_view key, std::string_view bytes) const {
  if (!enabled_) return false;
  std::error_code ec;
  fs::create_directories(directory_, ec);
  if (ec) return false;
  std::string file(kMagic, sizeof(kMagic));
  put_u64(file, key.size());
  put_u64(file, bytes.size());
  put_u64(file, fnv1a(bytes, fnv1a(key)));
  file += key;
  file += bytes;
  // A name no other writer uses (pid and a counter), in the same directory so rename is atomic.
  static std::atomic<unsigned> counter{0};
  fs::path final_path = path_for(key);
  fs::path tmp = final_path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  if (!compiler_detail::write_file_bytes(tmp.string(), file)) {
    fs::remove(tmp, ec);
    return false;
  }
  fs::rename(tmp, final_path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

bool CodeCache::remove(std::string_view key) const {
  std::error_code ec;
  return fs::remove(path_for(key), ec);
}

std::size_t CodeCache::clear() const {
  std::size_t n = 0;
  std::error_code ec;
  std::vector<fs::path> ours;
  for (fs::directory_iterator it(directory_, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    // Our entries: 16 hex digits + suffix, and leftover temporaries of interrupted writes.
    bool entry = name.size() == 16 + std::strlen(kSuffix) && name.ends_with(kSuffix);
    bool temp = name.find(std::string(kSuffix) + ".tmp.") == 16;
    if (entry || temp) ours.push_back(it->path());
  }
  for (const fs::path& p : ours)
    if (fs::remove(p, ec)) ++n;
  return n;
}

}  // namespace cubridge
