// Internal: decoding of Python string literal tokens (see string_literal.hpp).
#include "compiler/frontend/string_literal.hpp"

#include <cstdint>

namespace cubridge::compiler {

namespace {

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

StringLiteral decode_string_literal(std::string_view token) {
  StringLiteral r;
  std::size_t q = 0;
  bool raw = false;
  while (q < token.size() && token[q] != '\'' && token[q] != '"') {
    char c = token[q++];
    raw = raw || c == 'r' || c == 'R';
    r.bytes = r.bytes || c == 'b' || c == 'B';
    r.formatted = r.formatted || c == 'f' || c == 'F';
  }
  const bool fstring = r.formatted;
  r.formatted = false;
  std::size_t quote_len = token.size() - q >= 6 && token[q + 1] == token[q] && token[q + 2] == token[q] ? 3 : 1;
  std::string_view body = token.substr(q + quote_len, token.size() - q - 2 * quote_len);
  std::string& out = r.value;
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (fstring && (c == '{' || c == '}')) {
      if (i + 1 < body.size() && body[i + 1] == c) {  // {{ and }} are literal braces
        out += c;
        ++i;
        continue;
      }
      r.formatted = true;
    }
    if (c != '\\' || raw || i + 1 >= body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    switch (e) {
      case '\n': break;  // line continuation
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'x': case 'u': case 'U': {
        std::size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        if (r.bytes && e != 'x') {
          out += '\\';
          out += e;
          break;
        }
        std::uint32_t cp = 0;
        std::size_t k = 0;
        for (; k < n && i + 1 < body.size() && hex_digit(body[i + 1]) >= 0; ++k) cp = cp * 16 + static_cast<std::uint32_t>(hex_digit(body[++i]));
        if (k != n) {
          r.error = std::string("a truncated \\") + e + " escape";
          return r;
        }
        if (r.bytes) out += static_cast<char>(cp);
        else append_utf8(out, cp);
        break;
      }
      case 'N':
        if (!r.bytes) {
          r.error = "a \\N{...} escape (named characters are not supported; write the character itself)";
          return r;
        }
        out += "\\N";
        break;
      default:
        if (e >= '0' && e <= '7') {
          std::uint32_t cp = static_cast<std::uint32_t>(e - '0');
          for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
            cp = cp * 8 + static_cast<std::uint32_t>(body[++i] - '0');
          if (r.bytes) out += static_cast<char>(cp & 0xFF);
          else append_utf8(out, cp);
        } else {  // an unknown escape keeps its backslash, as Python does
          out += '\\';
          out += e;
        }
    }
  }
  return r;
}

}  // namespace cubridge::compiler
