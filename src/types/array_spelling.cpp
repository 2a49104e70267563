// Numba's array spellings: "T[:, ::1]" and "array(T, 2d, C)" (see the header).
#include "cubridge/types/array_spelling.hpp"

#include <cctype>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/spelling_text.hpp"
#include "cubridge/error.hpp"

namespace cubridge {
namespace {

using spelling_text::quoted;
using spelling_text::trim;

[[noreturn]] void fail(std::string why) { throw cubridge::InvalidArgument(std::move(why)); }

// Splits at the commas outside brackets and parentheses.
std::vector<std::string_view> split_fields(std::string_view s) {
  spelling_text::TopLevelFields f = spelling_text::split_top_level(s);
  if (!f.error.empty()) fail(f.error + " in " + quoted(s));
  return std::move(f.parts);
}

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

void check_rank(std::size_t n, std::string_view text) {
  if (n > static_cast<std::size_t>(kMaxArraySpellingRank))
    fail(quoted(text) + " has " + std::to_string(n) + " dimensions; at most " +
         std::to_string(kMaxArraySpellingRank) + " are accepted");
}

// "[:, ::1]" -> rank and layout.
void read_dims(std::string_view text, std::string_view dims, ArraySpelling& a) {
  if (trim(dims).empty()) fail(quoted(text) + " has no dimensions; write float32[:] for 1-d");
  std::vector<std::string_view> parts = split_fields(dims);
  check_rank(parts.size(), text);
  const int n = static_cast<int>(parts.size());
  int contiguous_at = -1;
  for (int i = 0; i < n; ++i) {
    std::string d = without_spaces(parts[static_cast<std::size_t>(i)]);
    if (d == ":") continue;
    if (d == "::1") {
      if (contiguous_at >= 0) fail("'::1' may appear only once in '[" + std::string(dims) + "]'");
      contiguous_at = i;
      continue;
    }
    fail(quoted(parts[static_cast<std::size_t>(i)]) +
         " is not a dimension; write ':' (any stride) or '::1' (contiguous)");
  }
  a.ndim = n;
  if (contiguous_at < 0) a.layout = 'A';
  else if (contiguous_at == n - 1) a.layout = 'C';
  else if (contiguous_at == 0) a.layout = 'F';
  else fail("'::1' must be the last dimension (C order) or the first (F order), not dimension " +
            std::to_string(contiguous_at) + " of '[" + std::string(dims) + "]'");
}

// "float32, 2d, C" (inside Numba's "array(...)").
void read_array_call(std::string_view inner, ArraySpelling& a) {
  std::vector<std::string_view> parts = split_fields(inner);
  if (parts.size() != 3) fail("'array(" + std::string(inner) + ")' needs three fields: array(float32, 2d, C)");
  a.element = parts[0];
  std::string_view nd = parts[1];
  auto not_a_rank = [&] { fail(quoted(nd) + " is not a rank; write it as 1d, 2d, ..."); };
  if (nd.size() < 2 || nd.size() > 4 || nd.back() != 'd') not_a_rank();
  std::size_t ndim = 0;
  for (char c : nd.substr(0, nd.size() - 1)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) not_a_rank();
    ndim = ndim * 10 + static_cast<std::size_t>(c - '0');
  }
  check_rank(ndim, nd);
  a.ndim = static_cast<int>(ndim);
  if (parts[2] != "C" && parts[2] != "F" && parts[2] != "A")
    fail("layout " + quoted(parts[2]) + " is not one of C, F, A");
  a.layout = parts[2][0];
}

}  // namespace

std::optional<ArraySpelling> parse_array_spelling(std::string_view text) {
  std::string_view s = trim(text);
  ArraySpelling a;
  if (s.starts_with("array(") && s.ends_with(")")) {
    read_array_call(s.substr(6, s.size() - 7), a);
    return a;
  }
  std::size_t open = s.find('[');
  if (open == std::string_view::npos) return std::nullopt;
  if (s.find(']', open) == std::string_view::npos) fail("unbalanced brackets in " + quoted(s));
  if (!s.ends_with("]")) fail(quoted(s) + ": text after the closing ']'");
  // The dimensions are the last bracket pair: an element name may hold brackets of its own (Numba's
  // "Record(x[type=float32;offset=0];4;False)[:]").
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == ']') ++depth;
    if (s[i] == '[' && --depth == 0) {
      open = i;
      break;
    }
  }
  a.element = trim(s.substr(0, open));
  read_dims(s, s.substr(open + 1, s.size() - open - 2), a);
  return a;
}

}  // namespace cubridge
