// cubridge's own managers: the default (driver allocations, deferred frees, Numba's rules), the
// stream-ordered async pool (cuMemAllocAsync), and the size-binned caching pool.
// Implements: EMM v1 default manager semantics; issue "Beyond the interface" pools.
#pragma once

#include <cstdint>
#include <memory>

#include "cubridge/memory/caching_pool.hpp"
#include "cubridge/memory/manager.hpp"

namespace cubridge::memory {

/// cuMemAlloc + deferred cuMemFree through PendingFrees (limits from the environment). Out of
/// memory: flush the queue (unless deferred), retry once, then throw OutOfMemory.
/// defer_cleanup(): no device or host memory is given back while a guard lives.
class DefaultMemoryManager : public HostOnlyMemoryManager {
 public:
  explicit DefaultMemoryManager(std::shared_ptr<Context> context);
  DefaultMemoryManager(std::shared_ptr<Context> context, PendingFreesLimits limits);
  using MemoryManager::memalloc;
  std::shared_ptr<MemoryPointer> memalloc(std::size_t size) override;
  MemoryInfo get_memory_info() override;
  void reset() override;
  std::shared_ptr<void> defer_cleanup() override;
  std::string name() const override { return "default"; }
  PendingFrees::Snapshot pending() const override;

 private:
  std::shared_ptr<PendingFrees> device_frees_;
};

/// A driver memory pool (cuMemPoolCreate) with allocations ordered on the caller's stream
/// (cuMemAllocFromPoolAsync / cuMemFreeAsync on the same stream; the stream must outlive them).
/// Release threshold: `release_threshold` bytes stay reserved across synchronisations
/// (CUBRIDGE_ASYNC_POOL_RELEASE_THRESHOLD, default: all). defer_cleanup() has nothing to hold back:
/// frees are already stream-ordered, so it returns a guard that does nothing. get_ipc_handle throws
/// (pool memory is not exportable with cuIpcGetMemHandle).
class AsyncPoolMemoryManager : public HostOnlyMemoryManager {
 public:
  explicit AsyncPoolMemoryManager(std::shared_ptr<Context> context);
  ~AsyncPoolMemoryManager() override;
  std::shared_ptr<MemoryPointer> memalloc(std::size_t size) override;
  std::shared_ptr<MemoryPointer> memalloc(std::size_t size, StreamRef stream) override;
  bool stream_aware() const noexcept override { return true; }
  void initialize() override;
  MemoryInfo get_memory_info() override;
  void reset() override;
  IpcHandle get_ipc_handle(const std::shared_ptr<MemoryPointer>& memory) override;
  std::string name() const override { return "async"; }

 private:
  struct Pool;
  std::shared_ptr<Pool> pool_;
};

/// CachingPool over cuMemAlloc/cuMemFree. Blocks are reused only on the stream they were last freed
/// on (like PyTorch's allocator: use on another stream needs that stream ordered after this one).
/// defer_cleanup() suspends giving cached blocks back to the driver (reset() still waits for it).
class CachingPoolMemoryManager : public HostOnlyMemoryManager {
 public:
  explicit CachingPoolMemoryManager(std::shared_ptr<Context> context);
  std::shared_ptr<MemoryPointer> memalloc(std::size_t size) override;
  std::shared_ptr<MemoryPointer> memalloc(std::size_t size, StreamRef stream) override;
  bool stream_aware() const noexcept override { return true; }
  MemoryInfo get_memory_info() override;
  void reset() override;
  std::shared_ptr<void> defer_cleanup() override;
  std::string name() const override { return "caching"; }
  const std::shared_ptr<CachingPool>& pool() const noexcept { return pool_; }

 private:
  std::shared_ptr<CachingPool> pool_;
};

}  // namespace cubridge::memory
