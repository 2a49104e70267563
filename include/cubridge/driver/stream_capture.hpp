// Stream capture (CUDA graphs): whether a stream is recording work into a graph, and a scope in which this
// thread may make the calls a capture forbids (module loading) without breaking the capture.
// Implements: CUDA driver API "Stream Management" cuStreamIsCapturing / cuThreadExchangeStreamCaptureMode.
#pragma once

#include <cuda.h>

#include "cubridge/driver/stream.hpp"

namespace cubridge {

/// Whether work issued on `stream` is being recorded into a graph (a capture that is active, or one already
/// invalidated, which records nothing). The legacy default stream is never captured: it is answered false
/// without asking the driver (asking it during another stream's global capture is itself an error).
bool is_capturing(StreamRef stream);

/// While alive, this thread is in relaxed capture mode: calls that a global or thread-local capture forbids
/// (cuModuleLoadData, cuModuleGetFunction) run now, are not recorded, and leave a capture in flight valid.
/// Nothing that should be recorded may be issued inside the scope.
class RelaxedCaptureScope {
 public:
  RelaxedCaptureScope();
  ~RelaxedCaptureScope();
  RelaxedCaptureScope(const RelaxedCaptureScope&) = delete;
  RelaxedCaptureScope& operator=(const RelaxedCaptureScope&) = delete;

 private:
  CUstreamCaptureMode previous_ = CU_STREAM_CAPTURE_MODE_RELAXED;
};

}  // namespace cubridge
