// A size-binned caching pool over any upstream allocator: freed blocks wait in per-stream bins and
// are handed out again without calling the upstream. Implements: issue "a fast size-binned caching
// pool of our own" (the EMM plugin form is CachingPoolMemoryManager).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace cubridge::memory {

/// Where the pool's memory comes from (the driver on a GPU; a fake in the CPU tests).
class PoolUpstream {
 public:
  virtual ~PoolUpstream() = default;
  /// A block of exactly `bytes`, or 0 when the upstream is out of memory (other failures throw).
  virtual std::uintptr_t allocate(std::size_t bytes) = 0;
  virtual void deallocate(std::uintptr_t pointer, std::size_t bytes) noexcept = 0;
  /// Waits until no queued work can still touch a block (called before cached blocks move between streams).
  virtual void synchronize() {}
};

/// Bins: sizes up to 512 bytes share one bin; above that every power-of-two range (2^(e-1), 2^e]
/// has four bins of width 2^(e-3), so a block wastes at most a quarter of its size. Requests above
/// max_cached_block go to the upstream directly and are never cached. Thread-safe (one mutex).
class CachingPool {
 public:
  struct Options {
    std::size_t max_cached_block = std::size_t{1} << 30;
  };
  struct Snapshot {
    std::size_t cached_blocks = 0;
    std::size_t cached_bytes = 0;
    std::size_t upstream_bytes = 0;  // everything held from the upstream, cached or in use
    std::size_t upstream_allocations = 0;  // calls to upstream allocate() so far
  };
  static constexpr std::size_t kMinBlock = 512;
  static constexpr std::size_t kBins = 4 * 56 + 1;

  CachingPool(std::unique_ptr<PoolUpstream> upstream, Options options);
  ~CachingPool();
  CachingPool(const CachingPool&) = delete;
  CachingPool& operator=(const CachingPool&) = delete;

  /// The block size a request of `bytes` receives (0 stays 0).
  static std::size_t block_size(std::size_t bytes) noexcept;
  /// The bin of a request; block_size(a) == block_size(b) exactly when the bins are equal.
  static std::size_t bin_index(std::size_t bytes) noexcept;

  /// A block of block_size(bytes) for use on `stream` (any key; 0 is fine). Upstream out of memory:
  /// synchronise, give every cached block back, retry once; returns 0 if still out of memory.
  std::uintptr_t allocate(std::size_t bytes, std::uintptr_t stream);
  /// Caches the block for reuse on `stream` (`bytes` as asked for at allocate()).
  void deallocate(std::uintptr_t pointer, std::size_t bytes, std::uintptr_t stream) noexcept;
  /// Gives every cached block back to the upstream unless a defer() guard lives.
  void release_cached();
  [[nodiscard]] std::shared_ptr<void> defer();
  Snapshot snapshot() const;

 private:
  struct StreamBins {
    std::uintptr_t stream;
    std::array<std::vector<std::uintptr_t>, kBins> bins;
  };
  StreamBins& bins_for(std::uintptr_t stream);
  void release_locked(std::vector<std::pair<std::uintptr_t, std::size_t>>& out);

  std::unique_ptr<PoolUpstream> upstream_;
  Options options_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<StreamBins>> streams_;
  StreamBins* last_ = nullptr;
  Snapshot counts_;
  std::atomic<int> defer_depth_{0};
};

}  // namespace cubridge::memory
