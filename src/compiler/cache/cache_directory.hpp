// Internal: the code cache's directory, opened once per operation and trusted only after checks, and the
// files in it read and written through the open directory (openat), so a path swapped after the check
// changes nothing. The rules (docs/code-cache.md):
//   - the directory is a real directory (not a symbolic link), owned by this user; one that group or others
//     may write to is refused; one they may only read or enter is narrowed to 0700 (older cubridge
//     releases created it 0755); a missing one is created 0700;
//   - an entry is read only when it is a regular file owned by this user and no larger than the cap (a FIFO,
//     a device, a symbolic link or an oversized file reads as a miss, without blocking or reading it);
//   - writes go to a temporary file with an unpredictable name (O_CREAT|O_EXCL, 0600), then rename;
//   - the per-user secret that keys the entries' MAC is a 32-byte regular file, 0600, owned by this user.
// A source-tree directory (numba-cuda's __pycache__ beside a module, Access::source_tree) gets the same checks
// except that it is left readable by others as Python made it (0755): only writers are a threat, and it holds
// no secret (its entries are keyed by the private directory's).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace cubridge::compiler_detail {

class CacheDirectory {
 public:
  /// Bytes of the secret that keys the entries' MAC.
  static constexpr std::size_t secret_size = 32;

  /// private_cache: the cache's own directory (created 0700, narrowed to 0700); source_tree: a directory
  /// beside the user's sources (created 0755, left readable by others; refused too when others may write).
  enum class Access { private_cache, source_tree };

  /// Opens and checks `path`, creating it (parents as needed) when `create` and it is missing.
  /// Refused directories leave usable() false and problem() saying why; a directory that is simply not
  /// there (and not created) is unusable with missing() true.
  CacheDirectory(const std::filesystem::path& path, bool create, Access access = Access::private_cache);
  ~CacheDirectory();
  CacheDirectory(const CacheDirectory&) = delete;
  CacheDirectory& operator=(const CacheDirectory&) = delete;

  bool usable() const noexcept { return fd_ >= 0; }
  bool missing() const noexcept { return missing_; }
  const std::string& problem() const noexcept { return problem_; }

  /// The bytes of entry `name`, or nullopt when it is not a regular file of this user, is larger than
  /// `max_bytes`, or cannot be read.
  std::optional<std::string> read(std::string_view name, std::size_t max_bytes) const;
  /// Writes `bytes` as `name` atomically (a temporary file with a random name, then rename).
  bool write(std::string_view name, std::string_view bytes) const;
  /// Removes `name`; true when it was there.
  bool remove(std::string_view name) const;

  /// The per-user secret; when there is none yet and `create`, makes one (random bytes, 0600; a racing
  /// process's secret wins and is read back). nullopt with problem() set when the file there is not a
  /// secret this user could have written (wrong owner, mode, type or size).
  std::optional<std::string> secret(bool create);

 private:
  std::optional<std::string> read_secret();
  void refuse(std::string why);

  int fd_ = -1;
  bool missing_ = false;
  std::string path_;
  std::string problem_;
};

/// `n` bytes from the kernel's random source (getrandom); nullopt when it fails.
std::optional<std::string> random_bytes(std::size_t n);

}  // namespace cubridge::compiler_detail
