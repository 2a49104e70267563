// IPC handles: a device allocation exported to another process (cuIpcGetMemHandle) with the offset of
// the exported pointer from its allocation base, serialisable to a fixed byte layout.
// Implements: EMM v1 "IpcHandle" (and the GetIpcHandleMixin behaviour as ipc_handle_for()).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "cubridge/driver/context.hpp"
#include "cubridge/memory/memory_pointer.hpp"

namespace cubridge::memory {

/// Serialised layout (little-endian, kSerializedSize = 120 bytes, version 1):
///   [0, 8)    magic "CBIPC1\0\0"
///   [8, 12)   uint32 layout version (1)
///   [12, 16)  uint32 flags: bit 0 set when source_uuid is meaningful
///   [16, 24)  uint64 size of the exported range in bytes
///   [24, 32)  uint64 offset of the exported pointer from the allocation base
///   [32, 96)  the 64-byte CUipcMemHandle, verbatim
///   [96, 112) 16-byte UUID of the exporting device (zeros when unknown)
///   [112,120) uint64 reserved, zero
/// `base` (the exporter's buffer, kept alive while the handle lives there) is never serialised.
class IpcHandle {
 public:
  static constexpr std::size_t kHandleSize = 64;
  static constexpr std::size_t kSerializedSize = 120;
  using Bytes = std::array<unsigned char, kHandleSize>;
  using Uuid = std::array<unsigned char, 16>;

  /// std::invalid_argument when offset + size passes the end of the address space.
  IpcHandle(std::shared_ptr<MemoryPointer> base, const Bytes& handle, std::size_t size,
            std::optional<Uuid> source_info = std::nullopt, std::size_t offset = 0);

  const std::shared_ptr<MemoryPointer>& base() const noexcept { return base_; }
  const Bytes& handle() const noexcept { return handle_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t offset() const noexcept { return offset_; }
  const std::optional<Uuid>& source_info() const noexcept { return source_info_; }

  std::vector<unsigned char> serialize() const;
  /// Throws std::invalid_argument naming what is wrong for bad bytes (length, magic, version, flag bits,
  /// reserved word or UUID bytes the layout does not define, a range past the address space): only bytes
  /// that serialize() could have written are accepted.
  static IpcHandle deserialize(std::span<const unsigned char> bytes);

  /// Opens the handle in `context` (another process). Same device: the exporter's memory, mapped
  /// with cuIpcOpenMemHandle and closed with cuIpcCloseMemHandle when the result dies. Another
  /// device: opened on the exporting device, copied into a fresh allocation of `context`'s manager.
  std::shared_ptr<MemoryPointer> open(const std::shared_ptr<Context>& context) const;

 private:
  std::shared_ptr<MemoryPointer> base_;
  Bytes handle_;
  std::size_t size_;
  std::optional<Uuid> source_info_;
  std::size_t offset_;
};

/// The default get_ipc_handle (NBEP 7's GetIpcHandleMixin): finds the allocation base with
/// cuMemGetAddressRange, exports it with cuIpcGetMemHandle, records the pointer's offset from the base.
IpcHandle ipc_handle_for(const std::shared_ptr<MemoryPointer>& memory);

}  // namespace cubridge::memory
