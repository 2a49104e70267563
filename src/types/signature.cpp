// Internal: parsing signatures in the one grammar of type spellings (include/cubridge/types/signature.hpp).
#include "cubridge/types/signature.hpp"

#include <stdexcept>

#include "support/spelling_text.hpp"
#include "cubridge/error.hpp"

namespace cubridge {
namespace {

using spelling_text::quoted;
using spelling_text::trim;

[[noreturn]] void fail(std::string_view text, const std::string& why) {
  throw cubridge::InvalidArgument("signature " + quoted(text) + ": " + why);
}

// The index of the '(' that matches the ')' ending `s`, or npos when `s` does not end in ')'.
std::size_t matching_open(std::string_view whole, std::string_view s) {
  if (s.empty() || s.back() != ')') return std::string_view::npos;
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')' || s[i] == ']') ++depth;
    if ((s[i] == '(' || s[i] == '[') && --depth == 0) return i;
  }
  fail(whole, "unbalanced ')'");
}

Type argument_type(std::string_view whole, std::string_view part) {
  std::optional<Type> t = parse_type_name(part);
  if (!t) fail(whole, "unknown argument type " + quoted(part) + ": " + type_spelling_error(part));
  if (t->is_none())
    fail(whole, "unknown argument type " + quoted(part) + ": none (void) is a return type only");
  return *t;
}

}  // namespace

std::size_t Signature::hash() const noexcept {
  std::size_t h = result ? result->hash() : 0x51u;
  for (const Type& a : args) h = h * 1000003u ^ a.hash();
  return h;
}

std::string Signature::str() const {
  std::string s = result ? result->name() : std::string();
  s += "(";
  for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].name();
  return s + ")";
}

Signature parse_signature(std::string_view text) {
  std::string_view s = trim(text);
  Signature sig;
  std::string_view args = s;
  // "resty(args)": the text ends in ')' and what comes before the matching '(' is a return type, unless
  // the whole text is one type ("array(float32, 1d, C)", "UniTuple(int32 x 2)") or the head is a list.
  if (std::size_t open = matching_open(text, s); open != std::string_view::npos) {
    std::string_view head = trim(s.substr(0, open));
    const spelling_text::TopLevelFields head_parts = spelling_text::split_top_level(head);
    std::string_view word = head;  // "array(...)", "readonly array(...)", "Record(...)": one type, not a signature
    for (std::string_view prefix : {std::string_view("unaligned "), std::string_view("const "), std::string_view("readonly ")})
      if (word.starts_with(prefix)) word = trim(word.substr(prefix.size()));
    const bool constructor = word == "array" || word == "Record" || word == "UniTuple" || word == "Tuple";
    const bool one_head = head_parts.error.empty() && head_parts.parts.size() == 1 && !constructor;
    if (head.empty()) {
      args = s.substr(1, s.size() - 2);
    } else if (one_head && !parse_type_name(s)) {
      std::optional<Type> r = parse_type_name(head);
      if (!r) fail(text, "unknown return type " + quoted(head) + ": " + type_spelling_error(head));
      sig.result = *r;
      args = s.substr(open + 1, s.size() - open - 2);
    }
  }
  spelling_text::TopLevelFields parts = spelling_text::split_top_level(args);
  if (!parts.error.empty()) fail(text, parts.error);
  for (std::size_t i = 0; i < parts.parts.size(); ++i) {
    std::string_view part = parts.parts[i];
    if (part.empty()) {
      if (i + 1 == parts.parts.size()) continue;  // "()" and the trailing comma of "(float64,)"
      fail(text, "an empty parameter");
    }
    sig.args.push_back(argument_type(text, part));
  }
  return sig;
}

}  // namespace cubridge
