// Internal: the two text helpers of the type-spelling parsers (array_spelling.cpp, and the kernel
// signature parser above it): trimming and quoting the offending text in error messages.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace cubridge::spelling_text {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// 'text', built by appending: GCC 12 warns falsely on "'" + std::string (PR 105329).
inline std::string quoted(std::string_view text) {
  std::string s(1, '\'');
  s += text;
  s += '\'';
  return s;
}

}  // namespace cubridge::spelling_text
