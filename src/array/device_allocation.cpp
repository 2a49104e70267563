// Internal: array allocations through the context's EMM manager (see the header).
#include "array/device_allocation.hpp"

#include "cubridge/array/pointer_attributes.hpp"
#include "cubridge/memory/registry.hpp"

namespace cubridge::array_detail {

std::shared_ptr<void> allocate_device(std::size_t bytes, const std::shared_ptr<Context>& context, StreamRef stream) {
  if (bytes == 0) return std::shared_ptr<void>(nullptr, [](void*) {});
  context->ensure_valid("device array allocation");
  std::shared_ptr<memory::MemoryPointer> memory = memory::allocate(context, bytes, stream);
  auto* address = reinterpret_cast<void*>(memory->device_pointer());
  // The deleter owns the manager's pointer: when the array's last owner lets go, the pointer goes back
  // to its manager (which may defer or pool the free). Ranges cached for pointer checks may now be stale.
  return std::shared_ptr<void>(address, [memory = std::move(memory)](void*) mutable {
    forget_cached_pointer_ranges();
    memory.reset();
  });
}

}  // namespace cubridge::array_detail
