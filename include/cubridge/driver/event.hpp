// CUDA events: record on a stream, make another stream wait, query, synchronize, time.
// Implements: DESIGN.md "driver/" Event; the event ordering that CAI v3 "stream" synchronisation uses.
#pragma once

#include <memory>

#include <cuda.h>

#include "cubridge/driver/context.hpp"

namespace cubridge {

class StreamRef;

/// A borrowed event handle.
class EventRef {
 public:
  static EventRef external(CUevent handle) noexcept { return EventRef(handle); }
  EventRef(std::nullptr_t) = delete;
  EventRef(int) = delete;

  CUevent handle() const noexcept { return handle_; }
  void record(StreamRef stream) const;
  bool query() const;
  void synchronize() const;

 private:
  explicit EventRef(CUevent handle) noexcept : handle_(handle) {}
  CUevent handle_;
};

class Event {
 public:
  struct Options {
    bool timing = false;  // timing costs; ordering-only events leave it off
    bool blocking_sync = false;
    bool interprocess = false;
  };
  explicit Event(std::shared_ptr<Context> context);
  Event(std::shared_ptr<Context> context, Options options);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;

  CUevent handle() const;
  EventRef ref() const { return EventRef::external(handle()); }
  operator EventRef() const { return ref(); }
  const std::shared_ptr<Context>& context() const noexcept { return context_; }

  void record(StreamRef stream) const;
  bool query() const;
  void synchronize() const;
  /// Milliseconds between two recorded timing events (`start` before `end`).
  static float elapsed_ms(const Event& start, const Event& end);

 private:
  void reset() noexcept;
  std::shared_ptr<Context> context_;
  CUevent handle_ = nullptr;
};

}  // namespace cubridge
