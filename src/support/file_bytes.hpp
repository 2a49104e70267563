// Internal: whole-file reads and writes with C stdio. The library avoids iostreams: their locale
// facets crashed in processes where another library (llvmlite, via numba) brings its own C++ runtime.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace cubridge::compiler_detail {

/// The bytes of the file at `path`, or nullopt when it cannot be opened or read.
inline std::optional<std::string> read_file_bytes(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return std::nullopt;
  std::string data;
  char buf[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return std::nullopt;
  return data;
}

/// Writes `data` to `path` (created or truncated); false when any step fails.
inline bool write_file_bytes(const std::string& path, std::string_view data) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool wrote = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  const bool closed = std::fclose(f) == 0;
  return wrote && closed;
}

}  // namespace cubridge::compiler_detail
