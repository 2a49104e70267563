// libFuzzer target for what XLA hands a custom call: cubridge's opaque bytes (OpaqueReader, decode_opaque),
// the opaque of a Python-compiled kernel call (KernelCallSite::decode) and tuple layouts (CallLayout::decode
// of int32 codes). Input: the first byte picks the reader (mod 3). Any input must end in a value or in
// std::invalid_argument / std::out_of_range: no crash, hang, leak or UB.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "cubridge/xla/kernel_call.hpp"
#include "cubridge/xla/opaque.hpp"
#include "cubridge/xla/tuple_layout.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0: {
        cubridge::xla::OpaqueReader reader(bytes);
        for (std::string_view name : reader.names()) (void)reader.get(name);
        (void)cubridge::xla::decode_opaque(bytes);
        break;
      }
      case 1: (void)cubridge::xla::KernelCallSite::decode(bytes); break;
      default: {
        std::vector<std::int32_t> codes(bytes.size() / sizeof(std::int32_t));
        if (!codes.empty()) std::memcpy(codes.data(), bytes.data(), codes.size() * sizeof(std::int32_t));
        auto layout = cubridge::xla::CallLayout::decode(codes);
        (void)layout.encode();
      }
    }
  } catch (const std::exception&) {
  }
  return 0;
}
