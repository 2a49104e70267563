// Internal: the tokenizer of the Python subset (Python's own rules for NEWLINE/INDENT/DEDENT, implicit
// line joining inside brackets, backslash continuation, comments, numeric and string literals).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compiler/frontend/ast.hpp"

namespace cubridge::compiler {

enum class Tok { Name, Number, String, Op, Newline, Indent, Dedent, End };

struct Token {
  Tok kind;
  std::string_view text;
  SourceLoc loc;
};

/// Tokenizes `source`; throws CompileError for an unterminated string, a bad dedent or a character
/// that Python does not allow.
std::vector<Token> tokenize(std::string_view source, const std::string& file, int first_line);

}  // namespace cubridge::compiler
