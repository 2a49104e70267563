// Benchmark only: the alloc+free timing loops behind bench/bench_memory.py (see alloc_free_pairs.hpp).
#include "alloc_free_pairs.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "cubridge/memory.hpp"
#include "driver/driver_api.hpp"

namespace cubridge::memory {

namespace {
template <class Fn>
double median_ns(std::size_t pairs, int repeats, Fn&& fn) {
  std::vector<double> runs;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < pairs; ++i) fn();
    auto t1 = std::chrono::steady_clock::now();
    runs.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(pairs));
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}
}  // namespace

PairTimings time_alloc_free_pairs(const std::shared_ptr<Context>& context, std::size_t bytes, std::size_t pairs,
                                  int repeats) {
  PairTimings t;
  ScopedContext scope(*context);
  CachingPoolMemoryManager manager(context);
  auto& pool = *manager.pool();
  pool.deallocate(pool.allocate(bytes, 0), bytes, 0);  // warm: one block cached
  t.caching_pool_ns = median_ns(pairs, repeats, [&] { pool.deallocate(pool.allocate(bytes, 0), bytes, 0); });
  manager.memalloc(bytes);
  t.caching_manager_ns = median_ns(pairs, repeats, [&] { manager.memalloc(bytes); });
  allocate(context, bytes);
  t.registry_ns = median_ns(pairs, repeats, [&] { allocate(context, bytes); });
  std::size_t raw = std::max<std::size_t>(pairs / 100, 10);
  t.raw_cumemalloc_ns = median_ns(raw, repeats, [&] {
    CUdeviceptr p = 0;
    CUBRIDGE_CU(cuMemAlloc, &p, bytes);
    CUBRIDGE_CU(cuMemFree, p);
  });
  t.raw_cumemallocasync_ns = median_ns(raw, repeats, [&] {
    CUdeviceptr p = 0;
    CUBRIDGE_CU(cuMemAllocAsync, &p, bytes, CU_STREAM_LEGACY);
    CUBRIDGE_CU(cuMemFreeAsync, p, CU_STREAM_LEGACY);
  });
  CUBRIDGE_CU(cuCtxSynchronize);
  return t;
}

}  // namespace cubridge::memory
