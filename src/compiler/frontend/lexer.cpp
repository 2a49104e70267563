// Internal: the tokenizer (see lexer.hpp).
#include "compiler/frontend/lexer.hpp"

#include <cstring>
#include <string_view>

namespace cubridge::compiler {
namespace {

bool is_ident_start(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80; }
bool is_ident(unsigned char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Longest operators first.
constexpr std::string_view kOps[] = {"**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "<<", ">>", "<=", ">=", "==",
                                "!=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ":=", "@=", "+", "-",
                                "*", "/", "%", "&", "|", "^", "~", "<", ">", "(", ")", "[", "]", "{", "}",
                                ",", ":", ".", ";", "=", "@"};

}  // namespace

std::vector<Token> tokenize(std::string_view src, const std::string& file, int first_line) {
  std::vector<Token> out;
  out.reserve(src.size() / 3 + 8);
  std::vector<int> indents{0};
  int depth = 0;  // bracket nesting: newlines inside are not tokens
  std::size_t i = 0;
  int line = first_line;
  std::size_t line_start = 0;
  bool at_line_start = true;
  auto loc_at = [&](std::size_t p) { return SourceLoc{line, static_cast<int>(p - line_start) + 1}; };

  while (i < src.size()) {
    if (at_line_start && depth == 0) {
      // Measure indentation; skip blank and comment-only lines entirely.
      std::size_t p = i;
      int col = 0;
      while (p < src.size() && (src[p] == ' ' || src[p] == '\t' || src[p] == '\f')) {
        col = src[p] == '\t' ? (col / 8 + 1) * 8 : col + 1;
        ++p;
      }
      if (p >= src.size()) { i = p; break; }
      if (src[p] == '#' || src[p] == '\n' || src[p] == '\r') {
        while (p < src.size() && src[p] != '\n') ++p;
        if (p < src.size()) ++p;
        i = p;
        ++line;
        line_start = i;
        continue;
      }
      if (src[p] == '\\' && p + 1 < src.size() && src[p + 1] == '\n') {
        i = p;  // a continuation line of nothing: let the main loop handle it
      }
      at_line_start = false;
      if (col > indents.back()) {
        indents.push_back(col);
        out.push_back({Tok::Indent, src.substr(p, 0), loc_at(p)});
      } else {
        while (col < indents.back()) {
          indents.pop_back();
          out.push_back({Tok::Dedent, src.substr(p, 0), loc_at(p)});
        }
        if (col != indents.back()) fail(file, loc_at(p), "unindent does not match any outer indentation level");
      }
      i = p;
      continue;
    }
    char c = src[i];
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r') { ++i; continue; }
    if (c == '#') {
      while (i < src.size() && src[i] != '\n') ++i;
      continue;
    }
    if (c == '\\') {
      std::size_t p = i + 1;
      while (p < src.size() && src[p] == '\r') ++p;
      if (p < src.size() && src[p] == '\n') {
        i = p + 1;
        ++line;
        line_start = i;
        continue;
      }
      fail(file, loc_at(i), "unexpected character '\\' after line continuation");
    }
    if (c == '\n') {
      if (depth == 0) out.push_back({Tok::Newline, src.substr(i, 1), loc_at(i)});
      ++i;
      ++line;
      line_start = i;
      at_line_start = depth == 0;
      continue;
    }
    std::size_t start = i;
    SourceLoc loc = loc_at(i);
    // String literal, with optional prefix (r, b, u, f and combinations).
    std::size_t q = i;
    while (q < src.size() && q - i < 2 && std::strchr("rRbBuUfF", src[q]) && src[q] != '\0') ++q;
    if (q < src.size() && (src[q] == '\'' || src[q] == '"') && (q == i || is_ident_start(static_cast<unsigned char>(src[i])))) {
      char quote = src[q];
      bool triple = q + 2 < src.size() && src[q + 1] == quote && src[q + 2] == quote;
      bool raw = false;
      for (std::size_t k = i; k < q; ++k) raw = raw || src[k] == 'r' || src[k] == 'R';
      std::size_t p = q + (triple ? 3 : 1);
      for (;;) {
        if (p >= src.size()) fail(file, loc, "unterminated string literal");
        if (src[p] == '\\' && !raw) {
          if (p + 1 < src.size() && src[p + 1] == '\n') { ++line; line_start = p + 2; }
          p += 2;
          continue;
        }
        if (src[p] == '\\' && raw) { p += 2; continue; }
        if (src[p] == '\n') {
          if (!triple) fail(file, loc, "unterminated string literal");
          ++line;
          line_start = p + 1;
        }
        if (src[p] == quote && (!triple || (p + 2 < src.size() && src[p + 1] == quote && src[p + 2] == quote))) {
          p += triple ? 3 : 1;
          break;
        }
        ++p;
      }
      out.push_back({Tok::String, src.substr(start, p - start), loc});
      i = p;
      continue;
    }
    if (is_ident_start(static_cast<unsigned char>(c))) {
      while (i < src.size() && is_ident(static_cast<unsigned char>(src[i]))) ++i;
      out.push_back({Tok::Name, src.substr(start, i - start), loc});
      continue;
    }
    if (is_digit(c) || (c == '.' && i + 1 < src.size() && is_digit(src[i + 1]))) {
      // Greedy: digits, letters (hex, suffixes, exponents), '_', '.', and a sign right after an exponent.
      while (i < src.size()) {
        char d = src[i];
        bool hex = start + 1 < src.size() && src[start] == '0' && (src[start + 1] == 'x' || src[start + 1] == 'X');
        if (is_ident(static_cast<unsigned char>(d)) || d == '.') { ++i; continue; }
        if ((d == '+' || d == '-') && !hex && (src[i - 1] == 'e' || src[i - 1] == 'E')) { ++i; continue; }
        break;
      }
      out.push_back({Tok::Number, src.substr(start, i - start), loc});
      continue;
    }
    bool matched = false;
    for (std::string_view op : kOps) {
      const std::size_t n = op.size();
      if (op[0] == c && src.substr(i, n) == op) {
        if (op[0] == '(' || op[0] == '[' || op[0] == '{') ++depth;
        if ((op[0] == ')' || op[0] == ']' || op[0] == '}') && depth > 0) --depth;
        out.push_back({Tok::Op, src.substr(i, n), loc});
        i += n;
        matched = true;
        break;
      }
    }
    if (!matched) {
      std::string ch = (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
                           ? "\\x" + std::string(1, "0123456789abcdef"[(static_cast<unsigned char>(c) >> 4) & 15]) +
                                 std::string(1, "0123456789abcdef"[static_cast<unsigned char>(c) & 15])
                           : std::string(1, c);
      fail(file, loc, "invalid character '" + ch + "' in source");
    }
  }
  SourceLoc end = loc_at(i);
  if (!out.empty() && out.back().kind != Tok::Newline && out.back().kind != Tok::Dedent)
    out.push_back({Tok::Newline, src.substr(src.size(), 0), end});
  while (indents.size() > 1) {
    indents.pop_back();
    out.push_back({Tok::Dedent, src.substr(src.size(), 0), end});
  }
  out.push_back({Tok::End, src.substr(src.size(), 0), end});
  return out;
}

}  // namespace cubridge::compiler
