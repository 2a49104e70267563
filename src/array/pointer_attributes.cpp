// Internal: cuPointerGetAttributes, and the per-thread range cache of the import-time check.
#include "cubridge/array/pointer_attributes.hpp"

#include <array>
#include <atomic>
#include <stdexcept>
#include <string>

#include "cubridge/driver/context.hpp"
#include "driver/driver_api.hpp"
#include "cubridge/error.hpp"
#include "support/hex_text.hpp"

namespace cubridge {

namespace {

std::atomic<std::uint64_t> g_generation{1};

// Why caching is sound: a range the driver reported as device/managed memory lies in the device
// part of the unified address space, which host registrations never reuse; so a cached range can go
// stale only by being freed, and a freed pointer would have failed later anyway. cubridge's own
// frees bump the generation so that our ranges are re-queried.
struct CachedRange {
  std::uint64_t generation = 0;
  PointerAttributes attributes;
};

// A launch's arguments are usually one allocation each (CuPy's pool and PyTorch's caching allocator hand
// out separate ranges for small arrays), and a launch of N arrays asks for N ranges in turn: the cache
// holds more ranges than a kernel has array parameters, else a round-robin cache misses every time.
constexpr std::size_t kCachedRanges = 64;
thread_local std::array<CachedRange, kCachedRanges> t_cache;
thread_local std::size_t t_next = 0;
thread_local std::size_t t_last = 0;  // the last hit: a launch's next argument is often in the same range

// Whether the current device (device 0 when no context is current) can address pageable host memory.
bool pageable_access() {
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  if (CUBRIDGE_CU_RESULT(cuCtxGetCurrent, &ctx) == CUDA_SUCCESS && ctx != nullptr &&
      CUBRIDGE_CU_RESULT(cuCtxGetDevice, &device) != CUDA_SUCCESS)
    device = 0;
  int value = 0;
  CUresult r = CUBRIDGE_CU_RESULT(cuDeviceGetAttribute, &value, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, device);
  return r == CUDA_SUCCESS && value != 0;
}

}  // namespace

PointerAttributes query_pointer_attributes(std::uintptr_t address) {
  // Booleans and enums are written as 4-byte values; zeroed 8-byte slots read them back whatever
  // their declared width.
  CUcontext context = nullptr;
  unsigned long long memory_type = 0, managed = 0, range_size = 0;
  int device = -1;
  CUdeviceptr range_start = 0;
  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                 CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  void* out[] = {&context, &memory_type, &device, &managed, &range_start, &range_size};
  CUBRIDGE_CU(cuPointerGetAttributes, 6u, which, out, static_cast<CUdeviceptr>(address));
  PointerAttributes a;
  a.context = context;
  a.memory_type = static_cast<unsigned>(memory_type);
  // The pointer's own device, whichever context is current: memory of a stream-ordered pool (cuMemPool,
  // cudaMallocAsync) or mapped through cuMemMap belongs to no context, so CU_POINTER_ATTRIBUTE_CONTEXT is
  // null for it while the driver still knows its device; only memory the driver does not know has none.
  const bool known = context != nullptr || memory_type == CU_MEMORYTYPE_DEVICE;
  a.device = known && device >= 0 ? device : -1;
  a.managed = managed != 0;
  a.range_start = static_cast<std::uintptr_t>(range_start);
  a.range_size = static_cast<std::size_t>(range_size);
  if (a.device < 0 && !a.managed) a.pageable_access = pageable_access();
  return a;
}

PointerAttributes check_device_pointer(std::uintptr_t address, std::string_view what) {
  const std::uint64_t gen = g_generation.load(std::memory_order_acquire);
  auto holds = [&](const CachedRange& c) {
    return c.generation == gen && address >= c.attributes.range_start &&
           address - c.attributes.range_start < c.attributes.range_size;
  };
  // A launch's arguments were usually cached in the order it asks for them: the last hit, then the next.
  if (holds(t_cache[t_last])) return t_cache[t_last].attributes;
  if (const std::size_t next = (t_last + 1) % kCachedRanges; holds(t_cache[next])) {
    t_last = next;
    return t_cache[next].attributes;
  }
  for (std::size_t i = 0; i < kCachedRanges; ++i)
    if (holds(t_cache[i])) {
      t_last = i;
      return t_cache[i].attributes;
    }
  PointerAttributes a = query_pointer_attributes(address);
  if (!a.device_accessible())
    throw cubridge::InvalidArgument(std::string(what) + ": pointer " + support::hex(address) +
                                " is not GPU-accessible memory (the driver does not know it: plain host "
                                "memory?); pass device, managed or pinned host memory, or copy it with "
                                "cubridge.to_device()");
  if (a.device >= 0 && a.range_size != 0) {
    t_last = t_next++ % kCachedRanges;
    t_cache[t_last] = CachedRange{gen, a};
  }
  return a;
}

bool pointer_range_cached(std::uintptr_t address) noexcept {
  const std::uint64_t gen = g_generation.load(std::memory_order_acquire);
  for (const CachedRange& c : t_cache)
    if (c.generation == gen && address >= c.attributes.range_start &&
        address - c.attributes.range_start < c.attributes.range_size)
      return true;
  return false;
}

void forget_cached_pointer_ranges() noexcept { g_generation.fetch_add(1, std::memory_order_acq_rel); }

std::uint64_t pointer_cache_generation() noexcept { return g_generation.load(std::memory_order_acquire); }

}  // namespace cubridge
