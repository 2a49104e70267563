// Internal: the array layer's single point of device allocation. Every array cubridge allocates
// (device_array, to_device, staged host arrays, DLPack copies, the C API) comes from the EMM manager
// installed for the context (src/memory/registry), so a plugin serves all of them.
#pragma once

#include <cstddef>
#include <memory>

#include "cubridge/driver/context.hpp"
#include "cubridge/driver/stream.hpp"

namespace cubridge::array_detail {

/// `bytes` of device memory in `context` from its memory manager (on `stream` when the manager is
/// stream-aware), given back to the manager when the last owner lets go (a null pointer for 0 bytes).
/// Throws OutOfMemory, CudaError, or the plugin's error.
std::shared_ptr<void> allocate_device(std::size_t bytes, const std::shared_ptr<Context>& context,
                                      StreamRef stream = StreamRef::legacy());

}  // namespace cubridge::array_detail
