// Allocation counters of one manager: bytes in use, peak, live and total allocations.
// Implements: issue "Statistics" (bytes in use, peak, number of allocations; pending frees come from
// the manager's PendingFrees).
#pragma once

#include <atomic>
#include <cstddef>

namespace cubridge::memory {

class MemoryStats {
 public:
  struct Snapshot {
    std::size_t bytes_in_use = 0;
    std::size_t peak_bytes = 0;
    std::size_t live_allocations = 0;
    std::size_t total_allocations = 0;
  };
  void record_alloc(std::size_t bytes) noexcept {
    std::size_t now = in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    std::size_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
    live_.fetch_add(1, std::memory_order_relaxed);
    total_.fetch_add(1, std::memory_order_relaxed);
  }
  void record_free(std::size_t bytes) noexcept {
    in_use_.fetch_sub(bytes, std::memory_order_relaxed);
    live_.fetch_sub(1, std::memory_order_relaxed);
  }
  Snapshot snapshot() const noexcept {
    return {in_use_.load(), peak_.load(), live_.load(), total_.load()};
  }

 private:
  std::atomic<std::size_t> in_use_{0}, peak_{0}, live_{0}, total_{0};
};

}  // namespace cubridge::memory
