// The memory-manager interface every allocator plugs in through, and the host-only base that handles
// pinned/mapped host memory for managers that only bring device memory.
// Implements: EMM v1 (NBEP 7) "BaseCUDAMemoryManager", "HostOnlyCUDAMemoryManager"; stream-aware
// memalloc(size, stream) as a compatible extension.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "cubridge/driver/context.hpp"
#include "cubridge/driver/stream.hpp"
#include "cubridge/memory/ipc_handle.hpp"
#include "cubridge/memory/memory_pointer.hpp"
#include "cubridge/memory/memory_stats.hpp"
#include "cubridge/memory/pending_frees.hpp"

namespace cubridge::memory {

inline constexpr int kInterfaceVersion = 1;

/// One instance per context, created when cubridge first needs memory there and bound to it for
/// the context's life. cubridge alone calls these members, with the owning context current;
/// initialize() comes before the first allocation and may come again (it must not reset state);
/// reset() may come before initialize().
class MemoryManager {
 public:
  explicit MemoryManager(std::shared_ptr<Context> context);
  virtual ~MemoryManager();
  MemoryManager(const MemoryManager&) = delete;
  MemoryManager& operator=(const MemoryManager&) = delete;

  virtual std::shared_ptr<MemoryPointer> memalloc(std::size_t size) = 0;
  /// Extension: stream-ordered allocation. Managers that do not override it ignore the stream.
  virtual std::shared_ptr<MemoryPointer> memalloc(std::size_t size, StreamRef stream);
  virtual bool stream_aware() const noexcept { return false; }
  virtual std::shared_ptr<MemoryPointer> memhostalloc(std::size_t size, bool mapped, bool portable,
                                                      bool wc) = 0;
  /// Pins [pointer, pointer+size) of host memory owned by `owner` (kept alive by the result).
  virtual std::shared_ptr<MemoryPointer> mempin(std::shared_ptr<void> owner, std::uintptr_t pointer,
                                                std::size_t size, bool mapped) = 0;
  virtual void initialize() = 0;
  virtual IpcHandle get_ipc_handle(const std::shared_ptr<MemoryPointer>& memory) = 0;
  /// May throw std::runtime_error when the manager cannot tell (a pool, for example).
  virtual MemoryInfo get_memory_info() = 0;
  /// Frees everything the manager can free now (pending frees, cached blocks).
  virtual void reset() = 0;
  /// Suspends deferred freeing until the returned guard dies (nestable, thread-safe).
  [[nodiscard]] virtual std::shared_ptr<void> defer_cleanup() = 0;
  virtual int interface_version() const noexcept { return kInterfaceVersion; }
  virtual std::string name() const = 0;

  const std::shared_ptr<Context>& context() const noexcept { return context_; }
  /// Counters kept by cubridge's own managers and by the adapters of foreign plugins.
  MemoryStats& stats() noexcept { return *stats_; }
  /// The same counters, for finalizers that may outlive the manager.
  const std::shared_ptr<MemoryStats>& shared_stats() const noexcept { return stats_; }
  /// Pending (deferred) frees and their bytes; {0, 0} for managers that free at once.
  virtual PendingFrees::Snapshot pending() const { return {}; }

 private:
  std::shared_ptr<Context> context_;
  std::shared_ptr<MemoryStats> stats_ = std::make_shared<MemoryStats>();
};

/// Host memory through the driver (cuMemHostAlloc/cuMemHostRegister), freed through a pending-frees
/// queue. Subclasses implement memalloc and get_memory_info; a subclass that overrides reset() or
/// defer_cleanup() must call HostOnlyMemoryManager's, or host frees stop being flushed.
class HostOnlyMemoryManager : public MemoryManager {
 public:
  explicit HostOnlyMemoryManager(std::shared_ptr<Context> context);
  std::shared_ptr<MemoryPointer> memhostalloc(std::size_t size, bool mapped, bool portable, bool wc) override;
  std::shared_ptr<MemoryPointer> mempin(std::shared_ptr<void> owner, std::uintptr_t pointer, std::size_t size,
                                        bool mapped) override;
  void initialize() override {}
  void reset() override;
  std::shared_ptr<void> defer_cleanup() override;
  IpcHandle get_ipc_handle(const std::shared_ptr<MemoryPointer>& memory) override;
  PendingFrees::Snapshot pending() const override { return host_frees_->snapshot(); }

 protected:
  std::shared_ptr<PendingFrees> host_frees_;
};

/// Keeps a manager's deferral for a scope: `DeferCleanupScope hold(manager);`.
class DeferCleanupScope {
 public:
  explicit DeferCleanupScope(MemoryManager& manager) : guard_(manager.defer_cleanup()) {}

 private:
  std::shared_ptr<void> guard_;
};

}  // namespace cubridge::memory
