// Internal: an address or other unsigned value as lower-case hex text with a 0x prefix, as errors quote
// pointers ("pointer 0x7f00000000 is not aligned to 8").
#pragma once

#include <cstdint>
#include <string>

namespace cubridge::support {

inline std::string hex(std::uintmax_t v) {
  static constexpr char digits[] = "0123456789abcdef";
  char buf[2 * sizeof v];
  std::size_t n = 0;
  do {
    buf[n++] = digits[v & 0xf];
    v >>= 4;
  } while (v != 0);
  std::string s = "0x";
  while (n > 0) s += buf[--n];
  return s;
}

}  // namespace cubridge::support
