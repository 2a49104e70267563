// Internal: the array layer's single point of device allocation. Until the memory manager (src/memory/)
// lands, this calls cuMemAlloc/cuMemFree directly; replace this one function's body to route every
// array allocation through the installed EMM manager.
#pragma once

#include <cstddef>
#include <memory>

#include "cubridge/driver/context.hpp"

namespace cubridge::array_detail {

/// `bytes` of device memory in `context`, freed when the last owner lets go (a null pointer for 0
/// bytes). Throws CudaError (e.g. CUDA_ERROR_OUT_OF_MEMORY naming cuMemAlloc).
std::shared_ptr<void> allocate_device(std::size_t bytes, const std::shared_ptr<Context>& context);

}  // namespace cubridge::array_detail
