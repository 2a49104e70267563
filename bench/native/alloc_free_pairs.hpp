// Benchmark only (cubridge._bench, never shipped): alloc+free pairs timed without Python in the loop, for
// bench/bench_memory.py.
#pragma once

#include <cstddef>
#include <memory>

#include "cubridge/driver/context.hpp"

namespace cubridge::memory {

struct PairTimings {
  double caching_pool_ns = 0;     // CachingPool::allocate + deallocate, driver upstream
  double caching_manager_ns = 0;  // CachingPoolMemoryManager::memalloc + pointer release
  double registry_ns = 0;         // memory::allocate() through the current manager
  double raw_cumemalloc_ns = 0;   // cuMemAlloc + cuMemFree
  double raw_cumemallocasync_ns = 0;  // cuMemAllocAsync + cuMemFreeAsync on the legacy stream
};

/// Median of `repeats` runs of `pairs` pairs each, in ns per pair (raw driver runs use pairs/100).
PairTimings time_alloc_free_pairs(const std::shared_ptr<Context>& context, std::size_t bytes, std::size_t pairs,
                                  int repeats);

}  // namespace cubridge::memory
