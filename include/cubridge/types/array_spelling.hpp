// Numba's spellings of an array type, shared by the kernel signature parser (src/kernel/) and the
// compiler's type names (src/compiler/): "T[:, ::1]" (':' any stride, '::1' contiguous: last = C order,
// first = F order, none = A) and Numba's str() of an array type, "array(T, 2d, C)". Only the shape of the
// spelling is read here: the element name T comes back as written, for each caller's own type names.
#pragma once

#include <optional>
#include <string_view>

namespace cubridge {

/// The largest rank a spelling may give (Numba's and NumPy 1's limit).
constexpr int kMaxArraySpellingRank = 32;

struct ArraySpelling {
  std::string_view element;  ///< "float32", trimmed, a view into the parsed text
  int ndim = 0;              ///< 0 to kMaxArraySpellingRank ("array(T, 0d, C)" is a 0-d array)
  char layout = 'A';         ///< 'C', 'F' or 'A'
};

/// nullopt when `text` is not array-shaped at all (no "[...]" and not "array(...)"); the parsed spelling
/// when it is; std::invalid_argument saying what is wrong (quoting the offending part) when it is
/// array-shaped but malformed, e.g. "'::2' is not a dimension; write ':' (any stride) or '::1' (contiguous)".
std::optional<ArraySpelling> parse_array_spelling(std::string_view text);

}  // namespace cubridge
