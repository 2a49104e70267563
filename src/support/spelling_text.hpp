// Internal: the text helpers of every type-spelling parser (arrays, kernel signatures, compiler types,
// records, XLA opaque names): trimming, splitting at top-level commas, quoting the offending text in errors.
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

/// Length of the well-formed UTF-8 sequence starting at s[i] (1 to 4), or 0 when it is not one.
inline std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (c >= 0xF5 || n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  if ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xF0 && b(i + 1) < 0x90) || (c == 0xF4 && b(i + 1) > 0x8F) ||
      (c == 0xED && b(i + 1) > 0x9F))
    return 0;  // overlong forms, code points past U+10FFFF and surrogates
  return n;
}

/// `text` as an error message may show it: control characters, NUL included (a C string would end there),
/// and bytes that are not UTF-8 (Python could not decode the message) written as \xNN.
inline std::string printable(std::string_view text) {
  static const char* hex = "0123456789abcdef";
  std::string s;
  s.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t n = c < 0x80 ? (c >= 0x20 && c != 0x7F ? 1 : 0) : utf8_sequence(text, i);
    if (n == 0) {
      s += "\\x";
      s += hex[c >> 4];
      s += hex[c & 0xF];
      ++i;
      continue;
    }
    s.append(text.substr(i, n));
    i += n;
  }
  return s;
}

/// 'text' (printable), built by appending: GCC 12 warns falsely on "'" + std::string (PR 105329).
inline std::string quoted(std::string_view text) {
  std::string s(1, '\'');
  s += printable(text);
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
