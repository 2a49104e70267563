// Internal: capture status queries and the relaxed capture-mode scope (include/cubridge/driver/stream_capture.hpp).
#include "cubridge/driver/stream_capture.hpp"

#include "driver/driver_api.hpp"

namespace cubridge {

bool is_capturing(StreamRef stream) {
  if (stream.is_legacy_default()) return false;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUBRIDGE_CU(cuStreamIsCapturing, stream.handle(), &status);
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

RelaxedCaptureScope::RelaxedCaptureScope() {
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  CUBRIDGE_CU(cuThreadExchangeStreamCaptureMode, &mode);
  previous_ = mode;
}

RelaxedCaptureScope::~RelaxedCaptureScope() {
  // The exchange only sets a thread-local value; it cannot fail once the constructor's succeeded.
  CUBRIDGE_CU_RESULT(cuThreadExchangeStreamCaptureMode, &previous_);
}

}  // namespace cubridge
