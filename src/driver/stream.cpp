// Internal: StreamRef operations and the owning Stream's lifetime.
#include "cubridge/driver/stream.hpp"

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "cubridge/driver/context.hpp"
#include "cubridge/driver/event.hpp"
#include "driver/driver_api.hpp"
#include "cubridge/error.hpp"

namespace cubridge {

StreamRef StreamRef::process_default() noexcept {
  static const bool per_thread = [] {
    const char* v = std::getenv("CUBRIDGE_PER_THREAD_DEFAULT_STREAM");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
  }();
  return per_thread ? StreamRef::per_thread() : StreamRef::legacy();
}

StreamRef StreamRef::from_cai(std::uintptr_t value) {
  if (value == 0)
    throw cubridge::InvalidArgument(
        "stream 0 is disallowed by the CUDA Array Interface v3: use 1 for the legacy default "
        "stream, 2 for the per-thread default stream, or a stream handle");
  if (value == 1) return legacy();
  if (value == 2) return per_thread();
  return external(reinterpret_cast<CUstream>(value));
}

std::uintptr_t StreamRef::cai_value() const noexcept {
  if (is_legacy_default()) return 1;
  if (is_per_thread_default()) return 2;
  return reinterpret_cast<std::uintptr_t>(handle_);
}

void StreamRef::synchronize() const {
  if (is_legacy_default() || is_per_thread_default()) {
    // The default streams belong to the current context; with none current (after close(), or on a
    // fresh thread) the driver answers CUDA_ERROR_INVALID_CONTEXT, so use the current device's primary.
    CUcontext current = nullptr;
    CUBRIDGE_CU(cuCtxGetCurrent, &current);
    if (current == nullptr) {
      ScopedContext scope(*Context::current());
      CUBRIDGE_CU(cuStreamSynchronize, handle_);
      return;
    }
  }
  CUBRIDGE_CU(cuStreamSynchronize, handle_);
}

bool StreamRef::query() const {
  CUresult r = driver::api().cuStreamQuery(handle_);
  if (r == CUDA_SUCCESS) return true;
  if (r == CUDA_ERROR_NOT_READY) return false;
  driver::throw_error(r, "cuStreamQuery");
}

void StreamRef::wait(EventRef event) const {
  CUBRIDGE_CU(cuStreamWaitEvent, handle_, event.handle(), 0u);
}

Stream::Stream(std::shared_ptr<Context> context) : Stream(std::move(context), Options{}) {}

Stream::Stream(std::shared_ptr<Context> context, Options options) : context_(std::move(context)) {
  context_->ensure_valid("stream");
  ScopedContext scope(*context_);
  unsigned flags = options.non_blocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT;
  CUBRIDGE_CU(cuStreamCreateWithPriority, &handle_, flags, options.priority);
}

Stream::~Stream() { reset(); }

Stream::Stream(Stream&& other) noexcept
    : context_(std::move(other.context_)), handle_(std::exchange(other.handle_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    reset();
    context_ = std::move(other.context_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void Stream::reset() noexcept {
  // A stream of a closed context died with it; destroying it again would be an error.
  if (handle_ != nullptr && context_ && context_->valid()) {
    try {
      ScopedContext scope(*context_);
      CUBRIDGE_CU_RESULT(cuStreamDestroy, handle_);
    } catch (...) {
    }
  }
  handle_ = nullptr;
}

CUstream Stream::handle() const {
  if (handle_ == nullptr) throw std::logic_error("use of a moved-from cubridge::Stream");
  context_->ensure_valid("stream");
  return handle_;
}

}  // namespace cubridge
