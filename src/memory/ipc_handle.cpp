// Internal: IPC export (the GetIpcHandleMixin behaviour), the byte layout, and opening in another process.
#include "cubridge/memory/ipc_handle.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "cubridge/memory/registry.hpp"
#include "driver/driver_api.hpp"
#include "memory/memory_detail.hpp"
#include "cubridge/error.hpp"

namespace cubridge::memory {

namespace {
constexpr unsigned char kMagic[8] = {'C', 'B', 'I', 'P', 'C', '1', 0, 0};
constexpr std::uint32_t kLayoutVersion = 1;

void put_u32(unsigned char* at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put_u64(unsigned char* at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) at[i] = static_cast<unsigned char>(v >> (8 * i));
}
std::uint32_t get_u32(const unsigned char* at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t{at[i]} << (8 * i);
  return v;
}
std::uint64_t get_u64(const unsigned char* at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{at[i]} << (8 * i);
  return v;
}
}  // namespace

IpcHandle::IpcHandle(std::shared_ptr<MemoryPointer> base, const Bytes& handle, std::size_t size,
                     std::optional<Uuid> source_info, std::size_t offset)
    : base_(std::move(base)), handle_(handle), size_(size), source_info_(source_info), offset_(offset) {
  // open() maps base + offset for size bytes: a range past the address space would wrap around.
  if (offset > SIZE_MAX - size)
    throw cubridge::InvalidArgument("IpcHandle: offset " + std::to_string(offset) + " plus size " + std::to_string(size) +
                                " exceeds the address space; the exported range must fit in it");
}

std::vector<unsigned char> IpcHandle::serialize() const {
  std::vector<unsigned char> out(kSerializedSize, 0);
  std::memcpy(out.data(), kMagic, 8);
  put_u32(out.data() + 8, kLayoutVersion);
  put_u32(out.data() + 12, source_info_ ? 1u : 0u);
  put_u64(out.data() + 16, size_);
  put_u64(out.data() + 24, offset_);
  std::memcpy(out.data() + 32, handle_.data(), kHandleSize);
  if (source_info_) std::memcpy(out.data() + 96, source_info_->data(), 16);
  return out;
}

IpcHandle IpcHandle::deserialize(std::span<const unsigned char> bytes) {
  if (bytes.size() != kSerializedSize)
    throw cubridge::InvalidArgument("IpcHandle: " + std::to_string(bytes.size()) + " bytes given; a serialised handle is " +
                                std::to_string(kSerializedSize) + " bytes");
  if (std::memcmp(bytes.data(), kMagic, 8) != 0)
    throw cubridge::InvalidArgument("IpcHandle: the bytes do not start with the magic \"CBIPC1\" (not a cubridge IPC handle)");
  std::uint32_t version = get_u32(bytes.data() + 8);
  if (version != kLayoutVersion)
    throw cubridge::InvalidArgument("IpcHandle: layout version " + std::to_string(version) + " is not supported (accepted: 1)");
  // Only what serialize() writes is accepted, so that a handle read back serialises to the same bytes: a
  // set bit or field this layout does not define means the bytes were damaged or come from elsewhere.
  std::uint32_t flags = get_u32(bytes.data() + 12);
  if (flags & ~1u)
    throw cubridge::InvalidArgument("IpcHandle: flags " + std::to_string(flags) + " set bits that layout version 1 does not "
                                "define (accepted: 0, or 1 when the exporting device's UUID is given)");
  if (std::uint64_t reserved = get_u64(bytes.data() + 112); reserved != 0)
    throw cubridge::InvalidArgument("IpcHandle: the reserved field at bytes [112, 120) is " + std::to_string(reserved) +
                                "; layout version 1 writes 0 there");
  if (!(flags & 1u) && std::any_of(bytes.begin() + 96, bytes.begin() + 112, [](unsigned char b) { return b != 0; }))
    throw cubridge::InvalidArgument("IpcHandle: bytes [96, 112) hold a device UUID but flags bit 0 (UUID given) is clear");
  const std::uint64_t size = get_u64(bytes.data() + 16), offset = get_u64(bytes.data() + 24);
  Bytes handle{};
  std::memcpy(handle.data(), bytes.data() + 32, kHandleSize);
  std::optional<Uuid> uuid;
  if (flags & 1u) {
    Uuid u{};
    std::memcpy(u.data(), bytes.data() + 96, 16);
    uuid = u;
  }
  return IpcHandle(nullptr, handle, size, uuid, offset);
}

namespace {
std::shared_ptr<MemoryPointer> open_mapped(const std::shared_ptr<Context>& context, const IpcHandle::Bytes& bytes,
                                           std::size_t offset, std::size_t size) {
  ScopedContext scope(*context);
  CUipcMemHandle h;
  std::memcpy(&h, bytes.data(), sizeof h);
  CUdeviceptr base = 0;
  CUBRIDGE_CU(cuIpcOpenMemHandle, &base, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  return std::make_shared<MemoryPointer>(context, static_cast<std::uintptr_t>(base) + offset, size, nullptr,
                                         [context, base] {
                                           detail::in_valid_context(context, [&] { CUBRIDGE_CU_RESULT(cuIpcCloseMemHandle, base); });
                                         });
}
}  // namespace

std::shared_ptr<MemoryPointer> IpcHandle::open(const std::shared_ptr<Context>& context) const {
  if (!context) throw cubridge::InvalidArgument("IpcHandle.open: no context given");
  context->ensure_valid("IpcHandle.open");
  if (!source_info_ || *source_info_ == context->device().uuid()) return open_mapped(context, handle_, offset_, size_);
  // Another device: open where the memory lives, then stage a copy into this context's memory.
  int n = Device::count();
  for (int i = 0; i < n; ++i) {
    Device d(i);
    if (d.uuid() != *source_info_) continue;
    auto remote = open_mapped(Context::primary(d), handle_, offset_, size_);
    auto local = allocate(context, size_);
    ScopedContext scope(*context);
    CUBRIDGE_CU(cuMemcpy, static_cast<CUdeviceptr>(local->device_pointer()),
                static_cast<CUdeviceptr>(remote->device_pointer()), size_);
    return local;
  }
  throw cubridge::RuntimeError("IpcHandle.open: the exporting device (UUID in source_info) is not visible in this process (" +
                           std::to_string(n) + " device(s) here)");
}

IpcHandle ipc_handle_for(const std::shared_ptr<MemoryPointer>& memory) {
  if (!memory || memory->kind() != MemoryKind::device || memory->device_pointer() == 0)
    throw cubridge::InvalidArgument("get_ipc_handle: only device memory can be exported (got " +
                                std::string(memory ? "host memory or a null pointer" : "no pointer") + ")");
  if (!memory->context())
    throw cubridge::InvalidArgument("get_ipc_handle: the pointer was made without a context (context=None); "
                                "only memory of a cubridge context can be exported");
  ScopedContext scope(*memory->context());
  CUdeviceptr base = 0;
  std::size_t base_size = 0;
  CUBRIDGE_CU(cuMemGetAddressRange, &base, &base_size, static_cast<CUdeviceptr>(memory->device_pointer()));
  CUipcMemHandle h;
  CUBRIDGE_CU(cuIpcGetMemHandle, &h, base);
  IpcHandle::Bytes bytes{};
  static_assert(sizeof h == IpcHandle::kHandleSize);
  std::memcpy(bytes.data(), &h, sizeof h);
  std::size_t offset = memory->device_pointer() - static_cast<std::uintptr_t>(base);
  return IpcHandle(memory, bytes, memory->size(), memory->context()->device().uuid(), offset);
}

}  // namespace cubridge::memory
