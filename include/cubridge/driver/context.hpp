// The primary context of a device, retained for as long as cubridge uses it, and made current on
// whichever thread needs it. Implements: DESIGN.md "driver/" Context; close() for EMM v1 (NBEP 7).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <cuda.h>

#include "cubridge/driver/device.hpp"

namespace cubridge {

/// Owns one retain of a device's primary context. Obtain it from Context::primary(); close()
/// releases all of them, after which every object bound to the old context reports so when used.
class Context {
 public:
  /// The process-wide primary context of `device`, retained on first use.
  static std::shared_ptr<Context> primary(Device device);
  /// The context of the current device (device 0 unless the thread made another current).
  static std::shared_ptr<Context> current();
  /// current()'s device ordinal, without finding or retaining its Context: the driver's current context,
  /// its device remembered per thread by the context's handle (a launch asks on every call).
  static int current_ordinal();
  /// Releases every primary context cubridge retained and invalidates objects bound to them;
  /// the next use retains fresh ones (picking up a newly set memory manager).
  static void close_all();
  /// Registers `hook`, which close_all() calls for each context while it is still valid and current,
  /// before destroying it (the memory layer resets and drops the context's manager there, as EMM v1
  /// asks of a context reset). Hooks run in registration order; one that throws is ignored.
  static void add_close_hook(std::function<void(const std::shared_ptr<Context>&)> hook);
  /// The primary context cubridge holds open whose handle is `handle`, or null (a context another library
  /// made, or one close_all() closed).
  static std::shared_ptr<Context> open_primary(CUcontext handle);

  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  CUcontext handle() const noexcept { return handle_; }
  const Device& device() const noexcept { return device_; }
  bool valid() const noexcept { return valid_.load(std::memory_order_acquire); }
  /// Throws CudaError(CUDA_ERROR_CONTEXT_IS_DESTROYED) naming `what` when the context was closed.
  void ensure_valid(const char* what) const;
  void synchronize() const;

  /// An ordering event of this context (CU_EVENT_DISABLE_TIMING) that keep_spare_event kept, or null when none is
  /// kept or the context was closed. Events that only order one stream after another are used again: making and
  /// destroying one costs about what its record and wait cost.
  CUevent take_spare_event() noexcept;
  /// Keeps `event`, an ordering event of this context whose waits are enqueued (cuStreamWaitEvent waits for the
  /// record it was given: the event may be recorded again at once), for take_spare_event. False, keeping nothing,
  /// when the context was closed or already keeps kMaxSpareEvents: the caller destroys the event then.
  bool keep_spare_event(CUevent event) noexcept;
  static constexpr std::size_t kMaxSpareEvents = 16;

  /// Passkey-style constructor: use primary().
  struct Token {};
  Context(Token, Device device);

 private:
  friend class ContextRegistry;
  void invalidate() noexcept;

  Device device_;
  CUcontext handle_ = nullptr;
  std::atomic<bool> valid_{true};
  std::mutex spare_events_mutex_;
  std::vector<CUevent> spare_events_;  // ordering events kept for use again; destroyed when the context closes
};

/// Makes a context current on this thread for the scope's life, restoring the previous one after.
/// Cheap when the context is already current (one cuCtxGetCurrent).
class ScopedContext {
 public:
  explicit ScopedContext(const Context& context);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  bool pushed_ = false;
};

}  // namespace cubridge
