// Stream ordering between the producer of an array and the stream a consumer works on, on the GPU
// (events), never by blocking the host. Implements: CAI v3 "stream" consumer synchronisation, and the
// producer rule "work pending on several streams: the exported stream waits on all of them".
#pragma once

#include <span>

#include "cubridge/array/array_view.hpp"
#include "cubridge/driver/stream.hpp"

namespace cubridge {

/// Makes `launch` wait (GPU-side) for the work enqueued so far on the view's producer stream.
/// Nothing happens when the view has no stream, synchronisation is off, or `launch` is that stream.
/// Host blocking (an event synchronize) is used only when the driver refuses the cross-stream wait.
void order_before_use(const ArrayView& view, StreamRef launch);

/// Makes the view's producer stream wait for the work just enqueued on `launch`, so the producer can
/// neither overwrite nor free the data under it. Same no-op cases as order_before_use.
void order_after_use(const ArrayView& view, StreamRef launch);

/// Makes `target` wait for everything enqueued so far on each of `pending` (skipping `target`).
void join_streams(StreamRef target, std::span<const StreamRef> pending, int device);

/// Makes `waiter`, a stream of device `waiter_device`, wait for the work enqueued so far on `signaller`, a
/// stream of device `signaller_device` (default-stream handles name that device's primary context's).
/// Copies between two devices use it: one device's legacy default stream does not order the other's.
void wait_across_devices(StreamRef waiter, int waiter_device, StreamRef signaller, int signaller_device);

/// Brackets work on `launch` that reads or writes `views`: ordered after their producers on
/// construction, and the producers after it on finish() (or destruction, which cannot report errors).
class ScopedStreamUse {
 public:
  ScopedStreamUse(std::span<const ArrayView* const> views, StreamRef launch);
  ~ScopedStreamUse();
  ScopedStreamUse(const ScopedStreamUse&) = delete;
  ScopedStreamUse& operator=(const ScopedStreamUse&) = delete;
  void finish();

 private:
  std::span<const ArrayView* const> views_;
  StreamRef launch_;
  bool done_ = false;
};

}  // namespace cubridge
