// libFuzzer target for serialised IPC handles (IpcHandle::deserialize, what a process receives from
// another, e.g. through a pickle): any bytes must end in a handle or in std::invalid_argument, and the
// bytes of a handle that is accepted must be exactly what serialize() writes for it (nothing that the
// layout does not define is let through and then silently dropped).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "cubridge/memory/ipc_handle.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const unsigned char> bytes(data, size);
  std::vector<unsigned char> again;
  try {
    again = cubridge::memory::IpcHandle::deserialize(bytes).serialize();
  } catch (const std::invalid_argument&) {
    return 0;
  }
  if (!std::equal(again.begin(), again.end(), bytes.begin(), bytes.end())) __builtin_trap();
  return 0;
}
