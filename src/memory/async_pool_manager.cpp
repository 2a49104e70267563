// Internal: the stream-ordered pool manager over cuMemPoolCreate / cuMemAllocFromPoolAsync / cuMemFreeAsync.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "cubridge/memory/builtin_managers.hpp"
#include "driver/driver_api.hpp"
#include "memory/memory_detail.hpp"
#include "cubridge/error.hpp"

namespace cubridge::memory {

struct AsyncPoolMemoryManager::Pool {
  std::shared_ptr<Context> context;
  CUmemoryPool handle = nullptr;
  ~Pool() {
    // A cuMemPool belongs to the device, not to the context: close() resetting the context leaves it
    // (and the memory it keeps reserved) alive, so it is destroyed whether or not the context is.
    if (handle != nullptr) CUBRIDGE_CU_RESULT(cuMemPoolDestroy, handle);
  }
};

namespace {

cuuint64_t release_threshold_from_environment() {
  const char* v = std::getenv("CUBRIDGE_ASYNC_POOL_RELEASE_THRESHOLD");
  if (v == nullptr || *v == '\0') return ~cuuint64_t{0};
  char* end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (*end != '\0' || *v == '-')
    throw cubridge::InvalidArgument(std::string("CUBRIDGE_ASYNC_POOL_RELEASE_THRESHOLD='") + v +
                                "' is not a byte count (accepted: an integer >= 0; unset keeps everything reserved)");
  return n;
}

class AsyncPointer final : public MemoryPointer {
 public:
  AsyncPointer(std::shared_ptr<Context> context, std::uintptr_t p, std::size_t size, CUstream stream,
               std::shared_ptr<void> pool, std::shared_ptr<MemoryStats> stats)
      : MemoryPointer(std::move(context), p, size), stream_(stream), pool_(std::move(pool)), stats_(std::move(stats)) {}
  ~AsyncPointer() override { free(); }

 private:
  void release() noexcept override {
    stats_->record_free(size());
    detail::in_valid_context(context(), [&] {
      CUBRIDGE_CU_RESULT(cuMemFreeAsync, static_cast<CUdeviceptr>(device_pointer()), stream_);
    });
  }
  CUstream stream_;
  std::shared_ptr<void> pool_;
  std::shared_ptr<MemoryStats> stats_;
};

}  // namespace

AsyncPoolMemoryManager::AsyncPoolMemoryManager(std::shared_ptr<Context> context)
    : HostOnlyMemoryManager(context), pool_(std::make_shared<Pool>()) {
  pool_->context = std::move(context);
}

AsyncPoolMemoryManager::~AsyncPoolMemoryManager() = default;

void AsyncPoolMemoryManager::initialize() {
  if (pool_->handle != nullptr) return;  // initialize() may come again and must not reset state
  ScopedContext scope(*context());
  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = context()->device().ordinal();
  cuuint64_t threshold = release_threshold_from_environment();
  CUmemoryPool pool = nullptr;
  CUBRIDGE_CU(cuMemPoolCreate, &pool, &props);
  CUresult r = CUBRIDGE_CU_RESULT(cuMemPoolSetAttribute, pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
  if (r != CUDA_SUCCESS) {
    CUBRIDGE_CU_RESULT(cuMemPoolDestroy, pool);
    driver::throw_error(r, "cuMemPoolSetAttribute");
  }
  pool_->handle = pool;
}

std::shared_ptr<MemoryPointer> AsyncPoolMemoryManager::memalloc(std::size_t size) {
  return memalloc(size, StreamRef::legacy());
}

std::shared_ptr<MemoryPointer> AsyncPoolMemoryManager::memalloc(std::size_t size, StreamRef stream) {
  if (pool_->handle == nullptr) initialize();
  // The legacy stream and the cuCtxSynchronize below are the current context's: this manager's.
  detail::ScopedContextIfAny scope(context());
  CUdeviceptr p = 0;
  CUresult r = CUBRIDGE_CU_RESULT(cuMemAllocFromPoolAsync, &p, size, pool_->handle, stream.handle());
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    // Memory freed on other streams returns to the pool only once those frees have run.
    CUBRIDGE_CU(cuCtxSynchronize);
    CUBRIDGE_CU(cuMemPoolTrimTo, pool_->handle, 0);
    r = CUBRIDGE_CU_RESULT(cuMemAllocFromPoolAsync, &p, size, pool_->handle, stream.handle());
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      detail::throw_out_of_memory(context().get(), size, name(), "cuMemAllocFromPoolAsync");
  }
  if (r != CUDA_SUCCESS) driver::throw_error(r, "cuMemAllocFromPoolAsync");
  stats().record_alloc(size);
  return std::make_shared<AsyncPointer>(context(), static_cast<std::uintptr_t>(p), size, stream.handle(), pool_,
                                        shared_stats());
}

MemoryInfo AsyncPoolMemoryManager::get_memory_info() {
  ScopedContext scope(*context());
  std::size_t free = 0, total = 0;
  CUBRIDGE_CU(cuMemGetInfo, &free, &total);
  return {free, total};
}

void AsyncPoolMemoryManager::reset() {
  if (pool_->handle != nullptr && context()->valid()) {
    ScopedContext scope(*context());
    CUBRIDGE_CU(cuCtxSynchronize);
    CUBRIDGE_CU(cuMemPoolTrimTo, pool_->handle, 0);
  }
  HostOnlyMemoryManager::reset();
}

IpcHandle AsyncPoolMemoryManager::get_ipc_handle(const std::shared_ptr<MemoryPointer>&) {
  throw cubridge::RuntimeError(
      "get_ipc_handle: the async pool manager's memory comes from a cuMemPool created without an export "
      "handle type, which cuIpcGetMemHandle cannot export; use the default or caching manager for IPC");
}

}  // namespace cubridge::memory
