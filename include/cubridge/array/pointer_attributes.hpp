// What the driver knows about an address: context, device, memory type, managed or not, allocation
// range. Implements: CAI v3 "data" consumer check (a device pointer must be one the GPU can address),
// via cuPointerGetAttributes; exposed to users as view.pointer_attributes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <cuda.h>

namespace cubridge {

struct PointerAttributes {
  CUcontext context = nullptr;   // null for memory the driver does not know (plain host memory) and for
                                 // memory no context owns (a stream-ordered pool's, cuMemMap's)
  int device = -1;               // ordinal of the device the memory lives on or is mapped to, from the
                                 // pointer itself (never the current context); -1 when the driver does not know it
  unsigned memory_type = 0;      // CU_MEMORYTYPE_DEVICE / _HOST / _UNIFIED; 0 when unknown
  bool managed = false;          // cudaMallocManaged memory
  std::uintptr_t range_start = 0;
  std::size_t range_size = 0;
  bool pageable_access = false;  // the device can address plain host memory (HMM / ATS)

  /// True when a kernel on `device` may dereference the pointer.
  bool device_accessible() const noexcept {
    return managed || memory_type == CU_MEMORYTYPE_DEVICE || memory_type == CU_MEMORYTYPE_HOST ||
           memory_type == CU_MEMORYTYPE_UNIFIED || pageable_access;
  }
};

/// Asks the driver (one cuPointerGetAttributes). Throws CudaError when the call fails.
PointerAttributes query_pointer_attributes(std::uintptr_t address);

/// The import-time check: the attributes of `address`, served from a small per-thread cache of
/// recently seen allocation ranges. Throws std::invalid_argument starting with `what` when the GPU
/// cannot address the memory (e.g. a NumPy buffer passed as device memory).
PointerAttributes check_device_pointer(std::uintptr_t address, std::string_view what);

/// Whether this thread's range cache holds `address` (check_device_pointer would answer without the driver).
bool pointer_range_cached(std::uintptr_t address) noexcept;

/// Called by every cubridge free: cached ranges from before it are no longer trusted.
void forget_cached_pointer_ranges() noexcept;

/// Changes whenever forget_cached_pointer_ranges is called: what was derived from a check under another
/// generation is not trusted either.
std::uint64_t pointer_cache_generation() noexcept;

}  // namespace cubridge
