// Internal: a bytes/str constant stored into a NumPy fixed-width string (see emitter.hpp). numba-cuda's
// conversions (Bytes -> CharSeq, unicode -> UnicodeCharSeq) copy min(length, width) characters and zero
// the rest of the element when the text is shorter; the stored value is that whole element, so it is
// emitted as one constant of the element's LLVM type.
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

namespace {

// The code points of UTF-8 text (the parser's decoded str literals are UTF-8; \ud800-style escapes come
// as their 3-byte forms, read back as the same code point, as Python keeps them).
std::vector<std::uint32_t> code_points(const std::string& text) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const int n = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
    std::uint32_t cp = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
    for (int k = 1; k < n && i + static_cast<std::size_t>(k) < text.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]) & 0x3F);
    out.push_back(cp);
    i += static_cast<std::size_t>(n);
  }
  return out;
}

}  // namespace

Value FunctionEmitter::char_seq_constant(const Expr& e) {
  const Type& t = e.type;
  if (!t.is_char_seq()) return {"undef", t};  // a docstring or other text that is no value
  std::vector<std::uint32_t> units;
  if (t.bits() == 8)
    for (char c : e.name) units.push_back(static_cast<unsigned char>(c));
  else
    units = code_points(e.name);
  const auto width = static_cast<std::size_t>(t.char_count());
  units.resize(width, 0);  // cut at the width, or zero-padded to it
  const std::string unit = "i" + std::to_string(t.bits());
  std::string v = "[";
  for (std::size_t i = 0; i < width; ++i) v += (i ? ", " : "") + unit + " " + std::to_string(units[i]);
  return {v + "]", t};
}

}  // namespace cubridge::compiler
