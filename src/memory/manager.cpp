// Internal: the MemoryManager base and the host-only base (pinned/mapped host memory, deferred frees).
#include "cubridge/memory/manager.hpp"

#include "cubridge/memory/out_of_memory.hpp"
#include "driver/driver_api.hpp"
#include "memory/memory_detail.hpp"

namespace cubridge::memory {

namespace detail {

MemoryInfo memory_info_or_zero(const Context* context) noexcept {
  try {
    if (context == nullptr || !context->valid()) return {};
    ScopedContext scope(*context);
    std::size_t free = 0, total = 0;
    if (CUBRIDGE_CU_RESULT(cuMemGetInfo, &free, &total) != CUDA_SUCCESS) return {};
    return {free, total};
  } catch (...) {
    return {};
  }
}

void throw_out_of_memory(const Context* context, std::size_t size, const std::string& manager, const char* call) {
  MemoryInfo info = memory_info_or_zero(context);
  throw OutOfMemory(size, info.free, info.total, context ? context->device().ordinal() : -1, manager, call);
}

}  // namespace detail

MemoryManager::MemoryManager(std::shared_ptr<Context> context) : context_(std::move(context)) {}
MemoryManager::~MemoryManager() = default;

std::shared_ptr<MemoryPointer> MemoryManager::memalloc(std::size_t size, StreamRef) { return memalloc(size); }

namespace {
std::size_t total_memory_of(const std::shared_ptr<Context>& context) {
  return context ? context->device().total_memory() : 0;
}
}  // namespace

HostOnlyMemoryManager::HostOnlyMemoryManager(std::shared_ptr<Context> context)
    : MemoryManager(context),
      host_frees_(std::make_shared<PendingFrees>(total_memory_of(context), PendingFreesLimits::from_environment())) {}

std::shared_ptr<MemoryPointer> HostOnlyMemoryManager::memhostalloc(std::size_t size, bool mapped, bool portable,
                                                                   bool wc) {
  unsigned flags = 0;
  if (mapped) flags |= CU_MEMHOSTALLOC_DEVICEMAP;
  if (portable) flags |= CU_MEMHOSTALLOC_PORTABLE;
  if (wc) flags |= CU_MEMHOSTALLOC_WRITECOMBINED;
  // Page-locked memory belongs to the context current at the call (and a mapping to its device): ours.
  detail::ScopedContextIfAny scope(context());
  void* host = nullptr;
  CUresult r = CUBRIDGE_CU_RESULT(cuMemHostAlloc, &host, size, flags);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    host_frees_->flush();
    r = CUBRIDGE_CU_RESULT(cuMemHostAlloc, &host, size, flags);
  }
  if (r != CUDA_SUCCESS) driver::throw_error(r, "cuMemHostAlloc");
  auto ctx = context();
  auto frees = host_frees_;
  // Numba counts unmapped host memory as size 0 against the device-memory threshold.
  std::size_t counted = mapped ? size : 0;
  auto finalizer = [ctx, frees, host, counted] {
    frees->add([ctx, host] { detail::in_valid_context(ctx, [&] { CUBRIDGE_CU_RESULT(cuMemFreeHost, host); }); },
               counted);
  };
  auto h = reinterpret_cast<std::uintptr_t>(host);
  if (!mapped) return std::make_shared<PinnedMemory>(ctx, h, size, nullptr, finalizer);
  CUdeviceptr dev = 0;
  r = CUBRIDGE_CU_RESULT(cuMemHostGetDevicePointer, &dev, host, 0);
  if (r != CUDA_SUCCESS) {
    CUBRIDGE_CU_RESULT(cuMemFreeHost, host);
    driver::throw_error(r, "cuMemHostGetDevicePointer");
  }
  return std::make_shared<MappedMemory>(ctx, h, static_cast<std::uintptr_t>(dev), size, nullptr, finalizer);
}

std::shared_ptr<MemoryPointer> HostOnlyMemoryManager::mempin(std::shared_ptr<void> owner, std::uintptr_t pointer,
                                                             std::size_t size, bool mapped) {
  void* host = reinterpret_cast<void*>(pointer);
  detail::ScopedContextIfAny scope(context());
  CUBRIDGE_CU(cuMemHostRegister, host, size, mapped ? CU_MEMHOSTREGISTER_DEVICEMAP : 0u);
  auto ctx = context();
  auto frees = host_frees_;
  std::size_t counted = mapped ? size : 0;
  auto finalizer = [ctx, frees, host, counted] {
    frees->add([ctx, host] { detail::in_valid_context(ctx, [&] { CUBRIDGE_CU_RESULT(cuMemHostUnregister, host); }); },
               counted);
  };
  if (!mapped) return std::make_shared<PinnedMemory>(ctx, pointer, size, std::move(owner), finalizer);
  CUdeviceptr dev = 0;
  CUresult r = CUBRIDGE_CU_RESULT(cuMemHostGetDevicePointer, &dev, host, 0);
  if (r != CUDA_SUCCESS) {
    CUBRIDGE_CU_RESULT(cuMemHostUnregister, host);
    driver::throw_error(r, "cuMemHostGetDevicePointer");
  }
  return std::make_shared<MappedMemory>(ctx, pointer, static_cast<std::uintptr_t>(dev), size, std::move(owner),
                                        finalizer);
}

void HostOnlyMemoryManager::reset() { host_frees_->flush(); }

std::shared_ptr<void> HostOnlyMemoryManager::defer_cleanup() { return host_frees_->defer(); }

IpcHandle HostOnlyMemoryManager::get_ipc_handle(const std::shared_ptr<MemoryPointer>& memory) {
  return ipc_handle_for(memory);
}

}  // namespace cubridge::memory
