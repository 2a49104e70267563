// Internal: splitting text into its non-empty fields. Written out instead of using iostreams, whose
// locale facets crashed in processes where another library (llvmlite, via numba) brings its own C++ runtime.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cubridge::compiler_detail {

/// The non-empty fields of `text` between `separator`s ("a::b:" with ':' gives {"a", "b"}).
inline std::vector<std::string> split_fields(std::string_view text, char separator) {
  std::vector<std::string> out;
  while (!text.empty()) {
    std::size_t end = text.find(separator);
    std::string_view field = text.substr(0, end);
    if (!field.empty()) out.emplace_back(field);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace cubridge::compiler_detail
