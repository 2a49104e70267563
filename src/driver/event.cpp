// Internal: EventRef operations and the owning Event's lifetime.
#include "cubridge/driver/event.hpp"

#include <stdexcept>

#include "cubridge/driver/stream.hpp"
#include "driver/driver_api.hpp"

namespace cubridge {

namespace {
bool query_event(CUevent e) {
  CUresult r = driver::api().cuEventQuery(e);
  if (r == CUDA_SUCCESS) return true;
  if (r == CUDA_ERROR_NOT_READY) return false;
  driver::throw_error(r, "cuEventQuery");
}
}  // namespace

void EventRef::record(StreamRef stream) const { CUBRIDGE_CU(cuEventRecord, handle_, stream.handle()); }
bool EventRef::query() const { return query_event(handle_); }
void EventRef::synchronize() const { CUBRIDGE_CU(cuEventSynchronize, handle_); }

Event::Event(std::shared_ptr<Context> context) : Event(std::move(context), Options{}) {}

Event::Event(std::shared_ptr<Context> context, Options options) : context_(std::move(context)) {
  context_->ensure_valid("event");
  unsigned flags = 0;
  if (!options.timing) flags |= CU_EVENT_DISABLE_TIMING;
  if (options.blocking_sync) flags |= CU_EVENT_BLOCKING_SYNC;
  if (options.interprocess) flags |= CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING;
  ScopedContext scope(*context_);
  CUBRIDGE_CU(cuEventCreate, &handle_, flags);
}

Event::~Event() { reset(); }

Event::Event(Event&& other) noexcept
    : context_(std::move(other.context_)), handle_(std::exchange(other.handle_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    reset();
    context_ = std::move(other.context_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void Event::reset() noexcept {
  if (handle_ != nullptr && context_ && context_->valid()) CUBRIDGE_CU_RESULT(cuEventDestroy, handle_);
  handle_ = nullptr;
}

CUevent Event::handle() const {
  if (handle_ == nullptr) throw std::logic_error("use of a moved-from cubridge::Event");
  context_->ensure_valid("event");
  return handle_;
}

void Event::record(StreamRef stream) const { ref().record(stream); }
bool Event::query() const { return ref().query(); }
void Event::synchronize() const { ref().synchronize(); }

float Event::elapsed_ms(const Event& start, const Event& end) {
  float ms = 0.0f;
  CUBRIDGE_CU(cuEventElapsedTime, &ms, start.handle(), end.handle());
  return ms;
}

}  // namespace cubridge
