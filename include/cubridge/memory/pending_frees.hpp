// The queue of deferred frees of the default manager: frees wait until the queue holds more than a
// count or more than a fraction of device memory, and defer_cleanup() suspends flushing.
// Implements: EMM v1 / Numba's "_PendingDeallocs" rules (defaults: > 10 frees, > 0.2 × total memory).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace cubridge::memory {

/// The thresholds. from_environment() reads CUBRIDGE_MAX_PENDING_DEALLOCS_COUNT (an integer ≥ 0) and
/// CUBRIDGE_MAX_PENDING_DEALLOCS_RATIO (a number in [0, 1]); a malformed value throws
/// std::invalid_argument naming the variable, the value and what is accepted.
struct PendingFreesLimits {
  std::size_t max_count = 10;
  double max_ratio = 0.2;
  static PendingFreesLimits from_environment();
};

/// Thread-safe. A flush takes the whole queue under the lock and runs the releases outside it, so a
/// release may queue more frees; a release that throws is dropped (its memory is lost, not freed twice).
class PendingFrees : public std::enable_shared_from_this<PendingFrees> {
 public:
  using Release = std::function<void()>;
  struct Snapshot {
    std::size_t count = 0;
    std::size_t bytes = 0;
  };

  PendingFrees(std::size_t total_memory, PendingFreesLimits limits);

  /// Queues a release of `size` bytes and flushes when the queue then holds more than max_count
  /// items or more than max_ratio × total_memory bytes.
  void add(Release release, std::size_t size);
  /// Runs every queued release unless a defer_cleanup() guard is alive (then does nothing).
  void flush();
  /// Suspends flushing until the guard dies; nestable and thread-safe (a depth counter). The guard
  /// keeps the queue alive when the queue is owned by a shared_ptr.
  [[nodiscard]] std::shared_ptr<void> defer();
  bool deferred() const noexcept { return defer_depth_.load() > 0; }
  Snapshot snapshot() const;
  std::size_t max_pending_bytes() const noexcept { return max_bytes_; }
  const PendingFreesLimits& limits() const noexcept { return limits_; }

 private:
  struct Item {
    Release release;
    std::size_t size;
  };
  PendingFreesLimits limits_;
  std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::vector<Item> items_;
  std::size_t bytes_ = 0;
  std::atomic<int> defer_depth_{0};
};

}  // namespace cubridge::memory
