// Internal: the Python-side stream object and the conversion every binding uses to accept a stream
// from Python (ours, CuPy's, PyTorch's, Numba's, cuda.core's, an int handle, or None).
#pragma once

#include <memory>

#include <nanobind/nanobind.h>

#include "cubridge/driver/stream.hpp"

namespace cubridge::python {
namespace nb = nanobind;

/// cubridge.Stream: an owning stream, a default stream, or an external handle kept with its owner.
struct PyStream {
  std::shared_ptr<Stream> owned;  // null unless cubridge created the stream
  CUstream handle = nullptr;      // CU_STREAM_LEGACY / CU_STREAM_PER_THREAD for the defaults
  nb::object owner;               // the foreign stream object an external stream came from

  StreamRef ref() const { return owned ? owned->ref() : StreamRef::external(handle); }
};

/// Accepts a cubridge.Stream, an object with __cuda_stream__ (cuda.core protocol), `.ptr` (CuPy),
/// `.cuda_stream` (PyTorch), `.handle` (Numba), or an int handle (CAI v3 values: 1 legacy, 2
/// per-thread; 0 is rejected). `None` gives `fallback`. Throws TypeError/ValueError naming `what`.
StreamRef to_stream_ref(nb::handle obj, StreamRef fallback, const char* what = "stream");

/// The integer handle of any stream-like object accepted by to_stream_ref.
std::uintptr_t stream_handle_of(nb::handle obj, const char* what);

}  // namespace cubridge::python
