// Internal: the text helpers of the type-spelling parsers (array_spelling.cpp, and the kernel signature
// parser above it): trimming, splitting at top-level commas, and quoting the offending text in errors.
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

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

/// `s` split at the commas (or `sep`) outside brackets and parentheses, each part trimmed; `error` is set
/// instead ("unbalanced ')'" or "unbalanced brackets") when they do not balance, for the caller to place.
struct TopLevelFields {
  std::vector<std::string_view> parts;
  std::string error;
};
inline TopLevelFields split_top_level(std::string_view s, char sep = ',') {
  TopLevelFields out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '[' || c == '(') ++depth;
    if ((c == ']' || c == ')') && --depth < 0) {
      out.error = "unbalanced '" + std::string(1, c) + "'";
      return out;
    }
    if (c == sep && depth == 0) {
      out.parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (depth != 0) {
    out.error = "unbalanced brackets";
    return out;
  }
  out.parts.push_back(trim(s.substr(start)));
  return out;
}

}  // namespace cubridge::spelling_text
