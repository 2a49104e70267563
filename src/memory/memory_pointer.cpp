// Internal: MemoryPointer lifetime (reference count, finalizer once), views and the host kinds.
#include "cubridge/memory/memory_pointer.hpp"

#include <stdexcept>
#include <string>
#include "cubridge/error.hpp"

namespace cubridge::memory {

MemoryPointer::MemoryPointer(std::shared_ptr<Context> context, std::uintptr_t pointer, std::size_t size,
                             std::shared_ptr<void> owner, Finalizer finalizer)
    : MemoryPointer(1, std::move(context), pointer, size, std::move(owner), std::move(finalizer)) {}

MemoryPointer::MemoryPointer(long initial_refct, std::shared_ptr<Context> context, std::uintptr_t pointer,
                             std::size_t size, std::shared_ptr<void> owner, Finalizer finalizer)
    : context_(std::move(context)),
      pointer_(pointer),
      size_(size),
      owner_(std::move(owner)),
      finalizer_(std::move(finalizer)),
      refct_(initial_refct) {}

MemoryPointer::~MemoryPointer() { run_finalizer(); }

void MemoryPointer::release() noexcept {
  if (!finalizer_) return;
  try {
    finalizer_();
  } catch (...) {
    // A finalizer runs from destructors: its failure cannot be reported, and must not terminate.
  }
}

void MemoryPointer::run_finalizer() noexcept {
  if (finalized_.exchange(true)) return;
  release();
}

void MemoryPointer::decref() {
  if (refct_.fetch_sub(1) == 1) run_finalizer();
}

void MemoryPointer::free() { run_finalizer(); }

std::shared_ptr<MemoryPointer> MemoryPointer::view(const std::shared_ptr<MemoryPointer>& self, std::size_t start,
                                                   std::size_t stop) {
  if (!self) throw cubridge::InvalidArgument("MemoryPointer.view: the pointer is null");
  std::size_t size = self->size();
  if (stop == npos) stop = size;
  if (start > stop || stop > size)
    throw std::out_of_range("MemoryPointer.view(" + std::to_string(start) + ", " + std::to_string(stop) +
                            "): the range must satisfy 0 <= start <= stop <= " + std::to_string(size) +
                            " (the buffer's size)");
  if (self->kind() == MemoryKind::device)
    return std::make_shared<MemoryPointer>(self->context(), self->device_pointer() + start, stop - start, self);
  std::uintptr_t dev = self->device_pointer() ? self->device_pointer() + start : 0;
  if (self->kind() == MemoryKind::mapped)
    return std::make_shared<MappedMemory>(self->context(), self->host_pointer() + start, dev, stop - start, self);
  return std::make_shared<PinnedMemory>(self->context(), self->host_pointer() + start, stop - start, self);
}

AutoFreePointer::AutoFreePointer(std::shared_ptr<Context> context, std::uintptr_t pointer, std::size_t size,
                                 std::shared_ptr<void> owner, Finalizer finalizer)
    : MemoryPointer(0, std::move(context), pointer, size, std::move(owner), std::move(finalizer)) {}

MappedMemory::MappedMemory(std::shared_ptr<Context> context, std::uintptr_t host_pointer,
                           std::uintptr_t device_pointer, std::size_t size, std::shared_ptr<void> owner,
                           Finalizer finalizer)
    : AutoFreePointer(std::move(context), device_pointer, size, std::move(owner), std::move(finalizer)),
      host_(host_pointer) {}

PinnedMemory::PinnedMemory(std::shared_ptr<Context> context, std::uintptr_t host_pointer, std::size_t size,
                           std::shared_ptr<void> owner, Finalizer finalizer)
    : AutoFreePointer(std::move(context), 0, size, std::move(owner), std::move(finalizer)),
      host_(host_pointer) {}

}  // namespace cubridge::memory
