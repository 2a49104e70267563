// A persistent on-disk cache of compiled code (PTX, LTO-IR, cubin), shared by every process of a user.
// Implements: the code face's "persistent on-disk cache (keyed by source, signature, options and toolkit
// version)". Entries are written atomically (rename); a corrupt, foreign or forged entry reads as a miss.
// Trust (docs/code-cache.md): the directory must be this user's and closed to others (0700), entries must be
// regular files under a size cap, and each carries HMAC-SHA256 under a per-user secret kept in the directory
// (0600), so an entry edited by anyone without that secret reads as a miss. A directory that fails the
// checks is not used: compiling goes on without the cache, after one warning.
#pragma once

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cubridge {

/// Which toolkit libraries' versions a key includes (each one named is loaded to read its version).
struct CacheKeyTools {
  bool nvvm = true;
  bool nvjitlink = false;
  bool nvrtc = false;
};

class CodeCache {
 public:
  /// Entries larger than this are neither written nor read (a file that grew past it reads as a miss).
  static constexpr std::size_t max_entry_bytes = std::size_t{256} << 20;

  /// $CUBRIDGE_CACHE_DIR, else $XDG_CACHE_HOME/cubridge, else $HOME/.cache/cubridge, else the home
  /// directory of the user's passwd entry + /.cache/cubridge, else <temp>/cubridge-cache-<uid> (checked
  /// like any other: a folder of that name made by another user is refused).
  static std::filesystem::path default_directory();
  /// Called once per refused directory per process with a message naming it and why; the default
  /// writes the message to stderr. The Python module installs one that issues a RuntimeWarning.
  using WarningHandler = void (*)(const std::string& message);
  static void set_warning_handler(WarningHandler handler) noexcept;
  /// False when $CUBRIDGE_DISABLE_CACHE is set to anything but "" or "0": get() then always misses
  /// and put() writes nothing.
  static bool enabled_by_environment();

  /// The default directory (not created until the first put).
  CodeCache();
  explicit CodeCache(std::filesystem::path directory);

  const std::filesystem::path& directory() const noexcept { return directory_; }

  /// A key from `parts` (source, signature, options, ...), each length-prefixed so that ("ab", "c")
  /// and ("a", "bc") differ, followed by cubridge's version and the versions of the `tools` named.
  static std::string make_key(std::initializer_list<std::string_view> parts, CacheKeyTools tools = {});
  static std::string make_key(std::span<const std::string> parts, CacheKeyTools tools = {});

  /// Why this cache's directory is refused (empty when it is usable or simply not created yet).
  std::string problem() const;

  /// The bytes stored under `key`, or nullopt on a miss, a corrupt or forged entry, or any I/O error.
  std::optional<std::string> get(std::string_view key) const;
  /// Stores `bytes` under `key` (atomically: other processes see the old entry or the new one).
  /// Returns false, without throwing, when the entry cannot be written (read-only directory, full disk,
  /// a refused directory, more than max_entry_bytes).
  bool put(std::string_view key, std::string_view bytes) const;
  /// Removes the entry for `key`; true when one was there.
  bool remove(std::string_view key) const;
  /// Removes every entry of this cache (files it did not write are left alone); returns how many.
  std::size_t clear() const;

  /// The file an entry for `key` lives in (whether or not it exists).
  std::filesystem::path path_for(std::string_view key) const;

  /// Entries kept outside this cache's directory, at a file name the caller chooses: numba-cuda's layout
  /// of `cache=True` (an index and numbered data files in the __pycache__ beside the module, drop-in mode).
  /// Same entry format, file checks and MAC as get/put, under this cache's secret (which stays in this
  /// cache's directory); `directory` must be this user's and not writable by group or others, is created
  /// 0755 when missing, and is left readable by others as Python makes __pycache__.
  std::optional<std::string> get_at(const std::filesystem::path& directory, std::string_view file,
                                    std::string_view key) const;
  bool put_at(const std::filesystem::path& directory, std::string_view file, std::string_view key,
              std::string_view bytes) const;
  /// Removes `file` from `directory` (an entry put_at wrote); true when one was there.
  static bool remove_at(const std::filesystem::path& directory, std::string_view file);

 private:
  std::optional<std::string> secret(bool create) const;
  std::filesystem::path directory_;
  bool enabled_;
};

}  // namespace cubridge
