// Device and host buffers handed out by a memory manager: MemoryPointer (device memory whose finalizer
// runs when it dies), AutoFreePointer, MappedMemory, PinnedMemory, and MemoryInfo.
// Implements: EMM v1 (NBEP 7) "Memory Pointers" and "MemoryInfo".
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "cubridge/driver/context.hpp"

namespace cubridge::memory {

/// Free and total device memory in bytes, as cuMemGetInfo reports them.
struct MemoryInfo {
  std::size_t free = 0;
  std::size_t total = 0;
};

enum class MemoryKind { device, mapped, pinned };

/// A buffer owned by a manager. The finalizer (the manager's way of giving the memory back) runs
/// exactly once: when the reference count drops to 0 through decref()/free(), or when the object
/// dies, whichever comes first. The count starts at 1 (EMM v1: "refct starts at 1").
class MemoryPointer {
 public:
  using Finalizer = std::function<void()>;
  MemoryPointer(std::shared_ptr<Context> context, std::uintptr_t pointer, std::size_t size,
                std::shared_ptr<void> owner = nullptr, Finalizer finalizer = nullptr);
  virtual ~MemoryPointer();
  MemoryPointer(const MemoryPointer&) = delete;
  MemoryPointer& operator=(const MemoryPointer&) = delete;

  const std::shared_ptr<Context>& context() const noexcept { return context_; }
  /// The device address (0 for pinned host memory that is not mapped).
  std::uintptr_t device_pointer() const noexcept { return pointer_; }
  std::uintptr_t handle() const noexcept { return pointer_; }
  std::size_t size() const noexcept { return size_; }
  const std::shared_ptr<void>& owner() const noexcept { return owner_; }
  virtual MemoryKind kind() const noexcept { return MemoryKind::device; }
  /// Host address of mapped/pinned memory; 0 for device memory.
  virtual std::uintptr_t host_pointer() const noexcept { return 0; }

  long refct() const noexcept { return refct_.load(); }
  void incref() noexcept { refct_.fetch_add(1); }
  /// Runs the finalizer when the count reaches 0.
  void decref();
  /// Gives the memory back now (idempotent); later views keep their address but must not be used.
  void free();
  bool freed() const noexcept { return finalized_.load(); }

  /// A pointer at [start, stop) of this one that keeps `self` alive; stop = npos means the end.
  /// Throws std::out_of_range naming the bounds when they do not fit.
  static std::shared_ptr<MemoryPointer> view(const std::shared_ptr<MemoryPointer>& self,
                                             std::size_t start, std::size_t stop = npos);
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 protected:
  MemoryPointer(long initial_refct, std::shared_ptr<Context> context, std::uintptr_t pointer,
                std::size_t size, std::shared_ptr<void> owner, Finalizer finalizer);
  /// Gives the memory back; runs once. Subclasses that override it must call free() in their own
  /// destructor (the base destructor can only reach the base version).
  virtual void release() noexcept;

 private:
  void run_finalizer() noexcept;
  std::shared_ptr<Context> context_;
  std::uintptr_t pointer_;
  std::size_t size_;
  std::shared_ptr<void> owner_;
  Finalizer finalizer_;
  std::atomic<long> refct_;
  std::atomic<bool> finalized_{false};
};

/// A MemoryPointer whose reference count starts at 0: only its lifetime frees it (EMM v1).
class AutoFreePointer : public MemoryPointer {
 public:
  AutoFreePointer(std::shared_ptr<Context> context, std::uintptr_t pointer, std::size_t size,
                  std::shared_ptr<void> owner = nullptr, Finalizer finalizer = nullptr);
};

/// Page-locked host memory mapped into the device address space: host and device addresses.
class MappedMemory : public AutoFreePointer {
 public:
  MappedMemory(std::shared_ptr<Context> context, std::uintptr_t host_pointer, std::uintptr_t device_pointer,
               std::size_t size, std::shared_ptr<void> owner = nullptr, Finalizer finalizer = nullptr);
  MemoryKind kind() const noexcept override { return MemoryKind::mapped; }
  std::uintptr_t host_pointer() const noexcept override { return host_; }

 private:
  std::uintptr_t host_;
};

/// Page-locked (pinned) host memory, not mapped; `owner` (the pinned object) is kept alive.
class PinnedMemory : public AutoFreePointer {
 public:
  PinnedMemory(std::shared_ptr<Context> context, std::uintptr_t host_pointer, std::size_t size,
               std::shared_ptr<void> owner = nullptr, Finalizer finalizer = nullptr);
  MemoryKind kind() const noexcept override { return MemoryKind::pinned; }
  std::uintptr_t host_pointer() const noexcept override { return host_; }

 private:
  std::uintptr_t host_;
};

}  // namespace cubridge::memory
