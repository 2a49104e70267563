// libFuzzer target for the type-spelling parsers: typestrs, Numba array spellings, kernel signatures,
// compiler signatures and type names, compute capabilities, and the escaping of text shown in errors.
// Input: the first byte picks the parser (mod 7), the rest is its text. Any input must end in a value or in
// std::invalid_argument (or another std::exception the parser documents): no crash, hang, leak or UB.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "support/spelling_text.hpp"
#include "cubridge/array/dtype.hpp"
#include "cubridge/compiler/toolkit.hpp"
#include "cubridge/kernel/kernel_signature.hpp"
#include "cubridge/types/array_spelling.hpp"
#include "cubridge/types/signature.hpp"
#include "cubridge/types/type_spelling.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 7) {
      case 0: (void)cubridge::parse_typestr(text, "fuzz"); break;
      case 1: (void)cubridge::parse_array_spelling(text); break;
      case 2: (void)cubridge::KernelSignature::parse(text).to_string(); break;
      case 3: (void)cubridge::parse_signature(text).str(); break;
      case 4: {
        if (auto t = cubridge::parse_type_name(text)) (void)t->name();
        break;
      }
      case 5: (void)cubridge::ComputeCapability::parse(text).to_string(); break;
      default: {
        std::string shown = cubridge::spelling_text::printable(text);
        for (char c : shown)  // what errors show is printable ASCII or well-formed UTF-8, never a NUL
          if (c == '\0') __builtin_trap();
      }
    }
  } catch (const std::exception&) {
  }
  return 0;
}
