// Internal: conversions from Python stream-like objects to StreamRef.
#include "py_stream.hpp"
#include "py_text.hpp"

#include <string>

#include <nanobind/stl/string.h>

namespace cubridge::python {

namespace {
std::uintptr_t int_handle(nb::handle value, const char* what, const char* source) {
  if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr()))
    throw nb::type_error((std::string(what) + ": " + source + " must be an int handle, got " +
                          py_repr(value))
                             .c_str());
  unsigned long long v = PyLong_AsUnsignedLongLong(value.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    throw nb::value_error((std::string(what) + ": " + py_repr(value) +
                           " is not a valid stream handle (expected a non-negative int that fits "
                           "in a pointer)")
                              .c_str());
  }
  return static_cast<std::uintptr_t>(v);
}
}  // namespace

std::uintptr_t stream_handle_of(nb::handle obj, const char* what) {
  if (nb::isinstance<PyStream>(obj)) {
    const PyStream& s = nb::cast<const PyStream&>(obj);
    return reinterpret_cast<std::uintptr_t>(s.ref().handle());
  }
  if (PyLong_Check(obj.ptr())) return int_handle(obj, what, "an int");
  if (nb::hasattr(obj, "__cuda_stream__")) {
    nb::object t = obj.attr("__cuda_stream__")();
    if (!nb::isinstance<nb::tuple>(t) || nb::len(t) != 2)
      throw nb::type_error((std::string(what) + ": __cuda_stream__() must return (version, "
                                                "handle), got " +
                            py_repr(t))
                               .c_str());
    return int_handle(t[1], what, "__cuda_stream__()[1]");
  }
  for (const char* attr : {"cuda_stream", "ptr"})
    if (nb::hasattr(obj, attr)) return int_handle(obj.attr(attr), what, attr);
  if (nb::hasattr(obj, "handle")) {  // Numba: a ctypes c_void_p
    nb::object h = obj.attr("handle");
    if (nb::hasattr(h, "value")) {
      nb::object v = h.attr("value");
      return v.is_none() ? 0 : int_handle(v, what, "handle.value");
    }
    return int_handle(h, what, "handle");
  }
  throw nb::type_error(
      (std::string(what) + ": " + py_repr(obj) +
       " is not a stream (expected cubridge.Stream, an object with __cuda_stream__, .ptr, "
       ".cuda_stream or .handle, an int handle, or None)")
          .c_str());
}

StreamRef to_stream_ref(nb::handle obj, StreamRef fallback, const char* what) {
  if (obj.is_none()) return fallback;
  if (nb::isinstance<PyStream>(obj)) return nb::cast<const PyStream&>(obj).ref();
  std::uintptr_t h = stream_handle_of(obj, what);
  if (h == 0 && PyLong_Check(obj.ptr()))
    throw nb::value_error((std::string(what) +
                           ": 0 is disallowed by the CUDA Array Interface v3 (use 1 for the legacy "
                           "default stream, 2 for the per-thread default stream, or a handle)")
                              .c_str());
  if (h == 0) return StreamRef::legacy();  // a foreign object's "null stream" is the default stream
  return StreamRef::from_cai(h);
}

}  // namespace cubridge::python
