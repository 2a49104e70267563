// Internal: the caching pool as an EMM manager: driver upstream, pointers that give blocks back to
// the stream they were allocated on.
#include "cubridge/memory/builtin_managers.hpp"
#include "driver/driver_api.hpp"
#include "memory/memory_detail.hpp"

namespace cubridge::memory {

namespace {

class DriverUpstream : public PoolUpstream {
 public:
  explicit DriverUpstream(std::shared_ptr<Context> context) : context_(std::move(context)) {}
  std::uintptr_t allocate(std::size_t bytes) override {
    ScopedContext scope(*context_);
    CUdeviceptr p = 0;
    CUresult r = CUBRIDGE_CU_RESULT(cuMemAlloc, &p, bytes);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) return 0;
    if (r != CUDA_SUCCESS) driver::throw_error(r, "cuMemAlloc");
    return static_cast<std::uintptr_t>(p);
  }
  void deallocate(std::uintptr_t pointer, std::size_t) noexcept override {
    detail::in_valid_context(context_, [&] { CUBRIDGE_CU_RESULT(cuMemFree, static_cast<CUdeviceptr>(pointer)); });
  }
  void synchronize() override {
    if (!context_->valid()) return;
    ScopedContext scope(*context_);
    CUBRIDGE_CU(cuCtxSynchronize);
  }

 private:
  std::shared_ptr<Context> context_;
};

/// One allocation: a block of the pool, given back to its stream's bin when the pointer dies.
/// A subclass rather than a std::function finalizer: the hot path then makes one heap allocation.
class PooledPointer final : public MemoryPointer {
 public:
  PooledPointer(std::shared_ptr<Context> context, std::uintptr_t pointer, std::size_t size,
                std::shared_ptr<CachingPool> pool, std::shared_ptr<MemoryStats> stats, std::uintptr_t stream)
      : MemoryPointer(std::move(context), pointer, size),
        pool_(std::move(pool)),
        stats_(std::move(stats)),
        stream_(stream) {}
  ~PooledPointer() override { free(); }

 private:
  void release() noexcept override {
    stats_->record_free(size());
    // After close() the context's memory is gone; the pool must not hand the address out again.
    if (context() && !context()->valid()) return;
    pool_->deallocate(device_pointer(), size(), stream_);
  }
  std::shared_ptr<CachingPool> pool_;
  std::shared_ptr<MemoryStats> stats_;
  std::uintptr_t stream_;
};

}  // namespace

CachingPoolMemoryManager::CachingPoolMemoryManager(std::shared_ptr<Context> context)
    : HostOnlyMemoryManager(context),
      pool_(std::make_shared<CachingPool>(std::make_unique<DriverUpstream>(context), CachingPool::Options{})) {}

std::shared_ptr<MemoryPointer> CachingPoolMemoryManager::memalloc(std::size_t size) {
  return memalloc(size, StreamRef::legacy());
}

std::shared_ptr<MemoryPointer> CachingPoolMemoryManager::memalloc(std::size_t size, StreamRef stream) {
  auto key = reinterpret_cast<std::uintptr_t>(stream.handle());
  std::uintptr_t p = pool_->allocate(size, key);
  if (p == 0) detail::throw_out_of_memory(context().get(), size, name(), "cuMemAlloc");
  stats().record_alloc(size);
  return std::make_shared<PooledPointer>(context(), p, size, pool_, shared_stats(), key);
}

MemoryInfo CachingPoolMemoryManager::get_memory_info() {
  ScopedContext scope(*context());
  std::size_t free = 0, total = 0;
  CUBRIDGE_CU(cuMemGetInfo, &free, &total);
  // Cached blocks are free for this process's allocations though the driver counts them as used.
  return {free + pool_->snapshot().cached_bytes, total};
}

void CachingPoolMemoryManager::reset() {
  pool_->release_cached();
  HostOnlyMemoryManager::reset();
}

std::shared_ptr<void> CachingPoolMemoryManager::defer_cleanup() {
  // Members die in reverse order: the pool's guard goes before the pool it points into.
  struct Guards {
    std::shared_ptr<CachingPool> pool;
    std::shared_ptr<void> pool_guard;
    std::shared_ptr<void> host_guard;
  };
  return std::make_shared<Guards>(Guards{pool_, pool_->defer(), HostOnlyMemoryManager::defer_cleanup()});
}

}  // namespace cubridge::memory
