// CUDA streams: an owning Stream and a borrowed StreamRef (legacy default, per-thread default, or an
// external handle that the caller owns). Implements: DESIGN.md "driver/" Stream; the stream values
// of CAI v3 "stream" (1 = legacy default, 2 = per-thread default, other = a cudaStream_t).
#pragma once

#include <cstdint>
#include <memory>

#include <cuda.h>

#include "cubridge/driver/context.hpp"

namespace cubridge {

class EventRef;

/// A stream that somebody else owns. Never converts from a literal 0 or nullptr: say which
/// default stream is meant with legacy() or per_thread(), or wrap a real handle with external().
class StreamRef {
 public:
  static StreamRef legacy() noexcept { return StreamRef(CU_STREAM_LEGACY); }
  static StreamRef per_thread() noexcept { return StreamRef(CU_STREAM_PER_THREAD); }
  /// Wraps a handle owned by the caller (CuPy, PyTorch, ...); it is never destroyed by us.
  static StreamRef external(CUstream handle) noexcept { return StreamRef(handle); }
  /// The default stream of this process's launches and exports: per_thread() when the environment sets
  /// CUBRIDGE_PER_THREAD_DEFAULT_STREAM (to anything but "" or "0"), else legacy(). Read once.
  static StreamRef process_default() noexcept;
  /// From a CAI v3 "stream" integer: 1 → legacy, 2 → per-thread, other → that handle.
  /// Throws std::invalid_argument for 0, which the specification disallows.
  static StreamRef from_cai(std::uintptr_t value);

  StreamRef(std::nullptr_t) = delete;
  StreamRef(int) = delete;

  CUstream handle() const noexcept { return handle_; }
  bool is_legacy_default() const noexcept { return handle_ == CU_STREAM_LEGACY || handle_ == nullptr; }
  bool is_per_thread_default() const noexcept { return handle_ == CU_STREAM_PER_THREAD; }
  /// The value CAI v3 exports for this stream: 1, 2, or the handle; never 0.
  std::uintptr_t cai_value() const noexcept;

  void synchronize() const;
  /// True when all work enqueued so far has completed.
  bool query() const;
  /// Orders all future work on this stream after `event` (GPU-side; the host does not block).
  void wait(EventRef event) const;

  friend bool operator==(StreamRef a, StreamRef b) noexcept { return a.handle_ == b.handle_; }

 private:
  explicit StreamRef(CUstream handle) noexcept : handle_(handle) {}
  CUstream handle_;
};

/// An owning stream, created in a context and destroyed with it (or at destruction).
class Stream {
 public:
  struct Options {
    bool non_blocking = true;  // does not synchronise with the legacy default stream
    int priority = 0;          // lower numbers are higher priority, as in the driver
  };
  explicit Stream(std::shared_ptr<Context> context);
  Stream(std::shared_ptr<Context> context, Options options);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;

  CUstream handle() const;
  StreamRef ref() const { return StreamRef::external(handle()); }
  operator StreamRef() const { return ref(); }
  const std::shared_ptr<Context>& context() const noexcept { return context_; }

 private:
  void reset() noexcept;
  std::shared_ptr<Context> context_;
  CUstream handle_ = nullptr;
};

}  // namespace cubridge
