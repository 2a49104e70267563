// Internal: the default manager: cuMemAlloc, frees deferred through PendingFrees, OOM → flush → retry once.
#include "cubridge/memory/builtin_managers.hpp"
#include "driver/driver_api.hpp"
#include "memory/memory_detail.hpp"

namespace cubridge::memory {

DefaultMemoryManager::DefaultMemoryManager(std::shared_ptr<Context> context)
    : DefaultMemoryManager(context, PendingFreesLimits::from_environment()) {}

DefaultMemoryManager::DefaultMemoryManager(std::shared_ptr<Context> context, PendingFreesLimits limits)
    : HostOnlyMemoryManager(context),
      device_frees_(std::make_shared<PendingFrees>(context ? context->device().total_memory() : 0, limits)) {}

std::shared_ptr<MemoryPointer> DefaultMemoryManager::memalloc(std::size_t size) {
  // cuMemAlloc allocates on the current context's device: this manager's, whatever the caller made current
  // (registry::allocate makes it current too; a plugin or a user may call memalloc directly).
  detail::ScopedContextIfAny scope(context());
  CUdeviceptr ptr = 0;
  CUresult r = CUBRIDGE_CU_RESULT(cuMemAlloc, &ptr, size);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    device_frees_->flush();
    r = CUBRIDGE_CU_RESULT(cuMemAlloc, &ptr, size);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) detail::throw_out_of_memory(context().get(), size, name(), "cuMemAlloc");
  }
  if (r != CUDA_SUCCESS) driver::throw_error(r, "cuMemAlloc");
  stats().record_alloc(size);
  auto ctx = context();
  auto frees = device_frees_;
  auto counters = shared_stats();
  return std::make_shared<MemoryPointer>(ctx, static_cast<std::uintptr_t>(ptr), size, nullptr,
                                         [ctx, frees, ptr, size, counters] {
                                           counters->record_free(size);
                                           frees->add([ctx, ptr] {
                                             detail::in_valid_context(ctx, [&] { CUBRIDGE_CU_RESULT(cuMemFree, ptr); });
                                           }, size);
                                         });
}

MemoryInfo DefaultMemoryManager::get_memory_info() {
  ScopedContext scope(*context());
  std::size_t free = 0, total = 0;
  CUBRIDGE_CU(cuMemGetInfo, &free, &total);
  return {free, total};
}

void DefaultMemoryManager::reset() {
  device_frees_->flush();
  HostOnlyMemoryManager::reset();
}

std::shared_ptr<void> DefaultMemoryManager::defer_cleanup() {
  auto device = device_frees_->defer();
  auto host = HostOnlyMemoryManager::defer_cleanup();
  return std::make_shared<std::pair<std::shared_ptr<void>, std::shared_ptr<void>>>(std::move(device), std::move(host));
}

PendingFrees::Snapshot DefaultMemoryManager::pending() const {
  auto d = device_frees_->snapshot(), h = HostOnlyMemoryManager::pending();
  return {d.count + h.count, d.bytes + h.bytes};
}

}  // namespace cubridge::memory
