// Internal: event-based ordering between a producer's stream and the consumer's launch stream.
#include "cubridge/array/stream_order.hpp"

#include "cubridge/driver/context.hpp"
#include "cubridge/driver/device.hpp"
#include "driver/driver_api.hpp"

namespace cubridge {

namespace {

std::shared_ptr<Context> context_for(int device) {
  return device >= 0 ? Context::primary(Device(device)) : Context::current();
}

CUcontext current_or_default() {
  CUcontext c = nullptr;
  CUBRIDGE_CU(cuCtxGetCurrent, &c);
  return c != nullptr ? c : Context::current()->handle();
}

// The context whose queue a stream names: a created stream carries its own (cuStreamGetCtx); the default
// stream handles (legacy, per-thread) name the default stream of whichever context is current, so the
// caller says which one is meant: `fallback`. On two devices the two sides of a wait may differ.
CUcontext stream_context(StreamRef s, CUcontext fallback) {
  if (s.is_legacy_default() || s.is_per_thread_default()) return fallback;
  CUcontext c = nullptr;
  if (CUBRIDGE_CU_RESULT(cuStreamGetCtx, s.handle(), &c) != CUDA_SUCCESS || c == nullptr) return fallback;
  return c;
}

// Makes `context` current for the scope (nothing to do when it already is).
class PushedContext {
 public:
  explicit PushedContext(CUcontext context) {
    CUcontext cur = nullptr;
    CUBRIDGE_CU(cuCtxGetCurrent, &cur);
    if (cur != context) {
      CUBRIDGE_CU(cuCtxPushCurrent, context);
      pushed_ = true;
    }
  }
  ~PushedContext() {
    CUcontext popped = nullptr;
    if (pushed_) CUBRIDGE_CU_RESULT(cuCtxPopCurrent, &popped);
  }
  PushedContext(const PushedContext&) = delete;
  PushedContext& operator=(const PushedContext&) = delete;

 private:
  bool pushed_ = false;
};

// An ordering event of `context`: one the context kept for use again where it is a primary context cubridge holds
// open (Context::take_spare_event), else a new one; handed back to that context afterwards, else destroyed with
// its context current.
struct ContextEvent {
  CUcontext context;
  std::shared_ptr<Context> keeper;  // the open primary context whose handle `context` is, or null
  CUevent handle = nullptr;
  bool waited = false;  // recorded and waited for without an error: fit to be used again
  ~ContextEvent() {
    if (handle == nullptr || (waited && keeper && keeper->keep_spare_event(handle))) return;
    try {
      PushedContext scope(context);
      CUBRIDGE_CU_RESULT(cuEventDestroy, handle);
    } catch (...) {  // a destructor cannot report; the event dies with its context at worst
    }
  }
};

// `waiter` waits on the work enqueued so far on `signaller`, each in its own context: the event is made (or taken
// again) and recorded in the signaller's (an event and the stream recording it must share a context), the wait is
// enqueued in the waiter's. Events are ordering-only (no timing); handing one back, or destroying it, right after
// the wait is enqueued is allowed: the wait is for the record it was given, which a later record leaves alone.
void make_wait(StreamRef waiter, CUcontext waiter_context, StreamRef signaller, CUcontext signaller_context) {
  if (waiter == signaller && waiter_context == signaller_context) return;
  ContextEvent event{signaller_context, Context::open_primary(signaller_context)};
  {
    PushedContext scope(signaller_context);
    if (event.keeper) event.handle = event.keeper->take_spare_event();
    if (event.handle == nullptr) CUBRIDGE_CU(cuEventCreate, &event.handle, CU_EVENT_DISABLE_TIMING);
    CUBRIDGE_CU(cuEventRecord, event.handle, signaller.handle());
  }
  CUresult r = CUDA_SUCCESS;
  {
    PushedContext scope(waiter_context);
    r = CUBRIDGE_CU_RESULT(cuStreamWaitEvent, waiter.handle(), event.handle, 0u);
  }
  if (r != CUDA_SUCCESS) CUBRIDGE_CU(cuEventSynchronize, event.handle);  // fallback only: the host waits
  event.waited = true;
}

// Whether `launch` and the view's stream are one queue, decided without the registry on the common path:
// a created stream is one queue wherever it is named; a default-stream handle is the same queue when the
// view's device is the current context's (the view's device unknown: the current context's, as ever).
bool same_queue(StreamRef launch, const ArrayView& view) {
  if (!(launch == *view.stream())) return false;
  if (!launch.is_legacy_default() && !launch.is_per_thread_default()) return true;
  if (view.device() < 0) return true;
  return Context::current_ordinal() == view.device();  // every launch asks, twice per array
}

}  // namespace

// The launch stream's default-stream handles are taken in the context current at the call (the kernel's or
// the copy's, which the callers make current); the view's in the context of the device its memory is on.
void order_before_use(const ArrayView& view, StreamRef launch) {
  if (!view.synchronizes() || same_queue(launch, view)) return;
  CUcontext view_context = context_for(view.device())->handle();
  make_wait(launch, stream_context(launch, current_or_default()), *view.stream(),
            stream_context(*view.stream(), view_context));
}

void order_after_use(const ArrayView& view, StreamRef launch) {
  if (!view.synchronizes() || same_queue(launch, view)) return;
  CUcontext view_context = context_for(view.device())->handle();
  make_wait(*view.stream(), stream_context(*view.stream(), view_context), launch,
            stream_context(launch, current_or_default()));
}

void join_streams(StreamRef target, std::span<const StreamRef> pending, int device) {
  CUcontext context = nullptr;  // the array's device's, looked up once and only when a wait is needed
  for (StreamRef s : pending) {
    if (s == target) continue;  // both in the array's context: one queue
    if (context == nullptr) context = context_for(device)->handle();
    make_wait(target, stream_context(target, context), s, stream_context(s, context));
  }
}

void wait_across_devices(StreamRef waiter, int waiter_device, StreamRef signaller, int signaller_device) {
  make_wait(waiter, stream_context(waiter, context_for(waiter_device)->handle()), signaller,
            stream_context(signaller, context_for(signaller_device)->handle()));
}

ScopedStreamUse::ScopedStreamUse(std::span<const ArrayView* const> views, StreamRef launch)
    : views_(views), launch_(launch) {
  for (const ArrayView* v : views_) order_before_use(*v, launch_);
}

void ScopedStreamUse::finish() {
  if (done_) return;
  done_ = true;
  for (const ArrayView* v : views_) order_after_use(*v, launch_);
}

ScopedStreamUse::~ScopedStreamUse() {
  try {
    finish();
  } catch (...) {
    // Destructors cannot report; callers who care call finish() themselves.
  }
}

}  // namespace cubridge
