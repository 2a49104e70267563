// Internal (Python glue of the array face): the object behind cubridge.DeviceArray, with the
// producer-side stream bookkeeping every glue header that makes or exports one uses. Implements: CAI v3
// "Lifetime" (the producer is kept alive by the view) and the producer-side stream bookkeeping of "stream".
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cubridge/array/array_view.hpp"
#include "cubridge/array/stream_order.hpp"
#include "py_common.hpp"
#include "py_stream.hpp"

namespace cubridge::python {
namespace nb = nanobind;

/// cubridge.DeviceArray: a view plus what only Python needs (the producer object, the mask and descr
/// objects, the stream object it was made on) and caches for a fast __cuda_array_interface__.
struct PyDeviceArray {
  ArrayView view;
  nb::object producer;     // the Python object whose memory this is (CAI/DLPack producer), or None
  nb::object mask;         // a DeviceArray over the producer's mask, or None
  nb::object descr;        // the producer's descr list (structured 'V' types), or None
  std::shared_ptr<Stream> owned_stream;  // set when the default stream is a cubridge-created Stream
  nb::object stream_owner;               // a foreign stream object (CuPy, PyTorch, ...) we were given
  std::vector<StreamRef> pending;        // other streams with our work on this data not yet joined
  // Caches: the view never changes after construction.
  nb::object shape_cache, strides_cache, data_cache, typestr_cache;
  // The borrowed DLPack export's shape and element strides: copies, so that a consumer writing through the DLTensor's
  // pointers (DLPack forbids it) cannot change the view in place.
  std::vector<std::int64_t> dl_shape, dl_strides;
  bool stream_retained = false;
};

/// Keeps a cubridge-created stream alive for the rest of the process once an array exported it:
/// CAI v3 requires exported streams to outlive the exporting object, and a consumer may hold the
/// bare handle. Streams of a closed context are skipped at destruction (Stream::reset).
inline void retain_exported_stream(PyDeviceArray& a) {
  if (a.stream_retained) return;
  a.stream_retained = true;
  if (a.owned_stream) {
    static auto* kept = new std::vector<std::shared_ptr<Stream>>();  // process lifetime, on purpose
    for (const auto& s : *kept)
      if (s == a.owned_stream) return;
    kept->push_back(a.owned_stream);
  } else if (a.stream_owner.is_valid() && !a.stream_owner.is_none()) {
    static auto* kept_objects = new std::vector<nb::object>();  // never destroyed: no decref at exit
    for (const auto& o : *kept_objects)
      if (o.is(a.stream_owner)) return;
    kept_objects->push_back(a.stream_owner);
  }
}

/// Turns a PyDeviceArray into a Python object (moved into a new cubridge.DeviceArray).
inline nb::object wrap(PyDeviceArray&& a) { return nb::cast(std::move(a), nb::rv_policy::move); }

/// Makes the array's default stream wait for the other streams our work on it is pending on (the
/// producer rule of CAI v3 "stream"), then forgets them.
inline void settle_pending(PyDeviceArray& a) {
  if (a.pending.empty()) return;
  StreamRef target = a.view.stream() ? *a.view.stream() : StreamRef::legacy();
  join_streams(target, a.pending, a.view.device());
  a.pending.clear();
}

}  // namespace cubridge::python
