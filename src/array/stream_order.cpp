// Internal: event-based ordering between a producer's stream and the consumer's launch stream.
#include "cubridge/array/stream_order.hpp"

#include "cubridge/driver/context.hpp"
#include "cubridge/driver/device.hpp"
#include "cubridge/driver/event.hpp"
#include "driver/driver_api.hpp"

namespace cubridge {

namespace {

std::shared_ptr<Context> context_for(int device) {
  return device >= 0 ? Context::primary(Device(device)) : Context::current();
}

// `waiter` waits on the work enqueued so far on `signaller`. Events are ordering-only (no timing);
// destroying one right after the wait is enqueued is allowed: the driver keeps it until it fires.
void make_wait(StreamRef waiter, StreamRef signaller, int device) {
  if (waiter == signaller) return;
  auto context = context_for(device);
  ScopedContext scope(*context);
  Event event(context);
  event.record(signaller);
  CUresult r = CUBRIDGE_CU_RESULT(cuStreamWaitEvent, waiter.handle(), event.handle(), 0u);
  if (r != CUDA_SUCCESS) event.synchronize();  // fallback only: the host waits for that one event
}

}  // namespace

void order_before_use(const ArrayView& view, StreamRef launch) {
  if (!view.synchronizes()) return;
  make_wait(launch, *view.stream(), view.device());
}

void order_after_use(const ArrayView& view, StreamRef launch) {
  if (!view.synchronizes()) return;
  make_wait(*view.stream(), launch, view.device());
}

void join_streams(StreamRef target, std::span<const StreamRef> pending, int device) {
  for (StreamRef s : pending) make_wait(target, s, device);
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
