// Internal: primary contexts, one retain per device held in a registry that close_all() empties.
#include "cubridge/driver/context.hpp"

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "driver/driver_api.hpp"

namespace cubridge {

class ContextRegistry {
 public:
  static ContextRegistry& instance() {
    static ContextRegistry* r = new ContextRegistry;  // never destroyed: outlives static objects
    return *r;
  }
  std::shared_ptr<Context> primary(Device device) {
    std::lock_guard lock(mutex_);
    auto& slot = contexts_[device.ordinal()];
    if (!slot) slot = std::make_shared<Context>(Context::Token{}, device);
    return slot;
  }
  std::shared_ptr<Context> open_with_handle(CUcontext handle) {
    std::lock_guard lock(mutex_);
    for (const auto& [ordinal, ctx] : contexts_)
      if (ctx && ctx->handle() == handle && ctx->valid()) return ctx;
    return nullptr;
  }
  void add_close_hook(std::function<void(const std::shared_ptr<Context>&)> hook) {
    std::lock_guard lock(mutex_);
    hooks_.push_back(std::move(hook));
  }
  void close_all() {
    std::map<int, std::shared_ptr<Context>> closing;
    std::vector<std::function<void(const std::shared_ptr<Context>&)>> hooks;
    {
      std::lock_guard lock(mutex_);
      closing.swap(contexts_);
      hooks = hooks_;
    }
    for (auto& [ordinal, ctx] : closing) {
      // Hooks run outside the lock (a Python plugin's reset takes the GIL and may allocate).
      for (auto& hook : hooks) {
        try {
          ScopedContext scope(*ctx);
          hook(ctx);
        } catch (...) {
        }
      }
      ctx->invalidate();
      CUdevice dev = 0;
      if (CUBRIDGE_CU_RESULT(cuDeviceGet, &dev, ordinal) == CUDA_SUCCESS) {
        // Reset destroys every allocation, stream and module of the context, so the next retain
        // starts clean (and with the memory manager that is set then).
        CUBRIDGE_CU_RESULT(cuDevicePrimaryCtxReset, dev);
      }
    }
  }

 private:
  std::mutex mutex_;
  std::map<int, std::shared_ptr<Context>> contexts_;
  std::vector<std::function<void(const std::shared_ptr<Context>&)>> hooks_;
};

Context::Context(Token, Device device) : device_(device) {
  CUdevice dev = 0;
  CUBRIDGE_CU(cuDeviceGet, &dev, device.ordinal());
  CUBRIDGE_CU(cuDevicePrimaryCtxRetain, &handle_, dev);
}

Context::~Context() {
  if (handle_ == nullptr || !valid()) return;
  CUdevice dev = 0;
  if (CUBRIDGE_CU_RESULT(cuDeviceGet, &dev, device_.ordinal()) == CUDA_SUCCESS)
    CUBRIDGE_CU_RESULT(cuDevicePrimaryCtxRelease, dev);
}

void Context::invalidate() noexcept {
  if (!valid_.exchange(false)) return;
  std::vector<CUevent> spares;
  {
    std::lock_guard lock(spare_events_mutex_);  // keep_spare_event keeps none from here: valid() is false
    spares.swap(spare_events_);
  }
  if (!spares.empty()) {
    try {
      ScopedContext scope(*this);
      for (CUevent e : spares) CUBRIDGE_CU_RESULT(cuEventDestroy, e);
    } catch (...) {  // the reset that follows destroys them anyway
    }
  }
  CUdevice dev = 0;
  if (CUBRIDGE_CU_RESULT(cuDeviceGet, &dev, device_.ordinal()) == CUDA_SUCCESS)
    CUBRIDGE_CU_RESULT(cuDevicePrimaryCtxRelease, dev);
}

std::shared_ptr<Context> Context::primary(Device device) {
  return ContextRegistry::instance().primary(device);
}

std::shared_ptr<Context> Context::open_primary(CUcontext handle) {
  if (handle == nullptr) return nullptr;
  return ContextRegistry::instance().open_with_handle(handle);
}

CUevent Context::take_spare_event() noexcept {
  std::lock_guard lock(spare_events_mutex_);
  if (spare_events_.empty() || !valid()) return nullptr;
  CUevent e = spare_events_.back();
  spare_events_.pop_back();
  return e;
}

bool Context::keep_spare_event(CUevent event) noexcept {
  std::lock_guard lock(spare_events_mutex_);
  // Checked under the lock invalidate() clears the spares under: an event kept after that clearing would outlive
  // the reset that destroys it.
  if (!valid() || spare_events_.size() >= kMaxSpareEvents) return false;
  try {
    spare_events_.push_back(event);
  } catch (...) {
    return false;  // no memory for one more pointer: the caller destroys the event
  }
  return true;
}

std::shared_ptr<Context> Context::current() {
  CUcontext ctx = nullptr;
  CUBRIDGE_CU(cuCtxGetCurrent, &ctx);
  int ordinal = 0;
  if (ctx != nullptr) {
    CUdevice dev = 0;
    CUBRIDGE_CU(cuCtxGetDevice, &dev);
    ordinal = static_cast<int>(dev);
  }
  // This thread's last answer, while that context is open, spares the registry's lock (allocation from
  // Python asks on every call). A weak reference: the cache never keeps a closed context alive.
  thread_local int last_ordinal = -1;
  thread_local std::weak_ptr<Context> last;
  if (ordinal == last_ordinal)
    if (std::shared_ptr<Context> c = last.lock(); c && c->valid()) return c;
  std::shared_ptr<Context> c = primary(Device(ordinal));
  last_ordinal = ordinal;
  last = c;
  return c;
}

int Context::current_ordinal() {
  CUcontext ctx = nullptr;
  CUBRIDGE_CU(cuCtxGetCurrent, &ctx);
  if (ctx == nullptr) return 0;  // as current(): device 0 when the thread made none current
  thread_local CUcontext last_context = nullptr;
  thread_local int last_ordinal = 0;
  if (ctx != last_context) {
    CUdevice dev = 0;
    CUBRIDGE_CU(cuCtxGetDevice, &dev);
    last_context = ctx;
    last_ordinal = static_cast<int>(dev);
  }
  return last_ordinal;
}

void Context::add_close_hook(std::function<void(const std::shared_ptr<Context>&)> hook) {
  ContextRegistry::instance().add_close_hook(std::move(hook));
}

void Context::close_all() {
  if (!driver::available()) return;  // nothing was ever opened
  ContextRegistry::instance().close_all();
}

void Context::ensure_valid(const char* what) const {
  if (!valid())
    throw CudaError(CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED",
                    std::string(what) + " belongs to the context of device " +
                        std::to_string(device_.ordinal()) +
                        " that cubridge.close() destroyed; create it again",
                    what);
}

void Context::synchronize() const {
  ensure_valid("context");
  ScopedContext scope(*this);
  CUBRIDGE_CU(cuCtxSynchronize);
}

ScopedContext::ScopedContext(const Context& context) {
  CUcontext cur = nullptr;
  CUBRIDGE_CU(cuCtxGetCurrent, &cur);
  if (cur != context.handle()) {
    CUBRIDGE_CU(cuCtxPushCurrent, context.handle());
    pushed_ = true;
  }
}

ScopedContext::~ScopedContext() {
  if (pushed_) {
    CUcontext popped = nullptr;
    CUBRIDGE_CU_RESULT(cuCtxPopCurrent, &popped);
  }
}

}  // namespace cubridge
