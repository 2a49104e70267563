// Internal: the temporary driver-backed allocation behind allocate_device (see the header).
#include "array/device_allocation.hpp"

#include "cubridge/array/pointer_attributes.hpp"
#include "driver/driver_api.hpp"

namespace cubridge::array_detail {

std::shared_ptr<void> allocate_device(std::size_t bytes, const std::shared_ptr<Context>& context) {
  if (bytes == 0) return std::shared_ptr<void>(nullptr, [](void*) {});
  context->ensure_valid("device array allocation");
  ScopedContext scope(*context);
  CUdeviceptr ptr = 0;
  CUBRIDGE_CU(cuMemAlloc, &ptr, bytes);
  // The deleter holds the context: freeing into a closed context would be an error, and the memory
  // died with it anyway.
  return std::shared_ptr<void>(reinterpret_cast<void*>(ptr), [context](void* p) {
    forget_cached_pointer_ranges();
    if (!context->valid()) return;
    try {
      ScopedContext scope(*context);
      CUBRIDGE_CU_RESULT(cuMemFree, reinterpret_cast<CUdeviceptr>(p));
    } catch (...) {
    }
  });
}

}  // namespace cubridge::array_detail
