// Internal: the value of a Python string literal token (prefixes, quotes, escape sequences), which
// print() formats and raise carries as exception arguments.
#pragma once

#include <string>
#include <string_view>

namespace cubridge::compiler {

struct StringLiteral {
  std::string value;         ///< UTF-8 text after escape processing
  bool bytes = false;        ///< b'...'
  bool formatted = false;    ///< an f-string with a {placeholder} (its value is not a constant)
  std::string error;         ///< non-empty: an escape the decoder does not take (\N{...}), described
};

/// Decodes one literal token as the lexer cut it: optional prefix (r, b, u, f in any case and
/// combination), single or triple quotes, and Python's escapes (\n \t \\ \' \" \xNN \uNNNN \UNNNNNNNN,
/// octal, line continuation). Raw literals keep their backslashes.
StringLiteral decode_string_literal(std::string_view token);

}  // namespace cubridge::compiler
