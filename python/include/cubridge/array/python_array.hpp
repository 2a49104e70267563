// One call for C++ extension authors: any GPU array from Python (cubridge, CuPy, PyTorch, Numba, JAX,
// anything with CAI or DLPack) as an ArrayView, with dtype/ndim/contiguity checked and the CAI v3 stream
// rules applied. Implements: the C-side exchange (include/cubridge/c/array.h) for C++; needs <Python.h>.
#pragma once

#include <Python.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "cubridge/array/array_view.hpp"
#include "cubridge/c/array.h"

namespace cubridge {

/// What the caller needs of the array. Unset fields accept anything.
struct ArrayRequirements {
  std::optional<DType> dtype;  // exact match, byte order included
  int ndim = -1;               // -1: any number of dimensions
  enum class Order { any, c, f, c_or_f } order = Order::any;
  bool writable = false;       // refuse read-only arrays
  bool sync = true;            // false: like sync=False (no ordering with the producer)
};

/// A failed import. The Python exception that said why is cleared and its text copied here.
class PythonArrayError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

namespace python_array_detail {

inline std::string fetch_python_error() {
  PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
  PyErr_Fetch(&type, &value, &trace);
  std::string text = "unknown error";
  if (value != nullptr || type != nullptr) {
    PyObject* s = PyObject_Str(value != nullptr ? value : type);
    if (s != nullptr) {
      const char* c = PyUnicode_AsUTF8(s);
      if (c != nullptr) text = c;
      Py_DECREF(s);
    }
    if (type != nullptr) text = std::string(reinterpret_cast<PyTypeObject*>(type)->tp_name) + ": " + text;
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(trace);
  PyErr_Clear();
  return text;
}

/// The struct and the references it holds; released with the GIL whichever thread drops the view.
struct HeldArray {
  CubridgeArray array{};
  const CubridgeArrayAPI* api = nullptr;
  HeldArray() = default;
  HeldArray(const HeldArray&) = delete;
  HeldArray& operator=(const HeldArray&) = delete;
  ~HeldArray() {
    if (api == nullptr || !Py_IsInitialized()) return;
    PyGILState_STATE g = PyGILState_Ensure();
    api->release(&array);
    PyGILState_Release(g);
  }
};

}  // namespace python_array_detail

/// cubridge's C table (from cubridge._core, imported once). Call with the GIL held.
/// Throws PythonArrayError when cubridge cannot be imported.
inline const CubridgeArrayAPI& array_c_api() {
  static const CubridgeArrayAPI* api = nullptr;
  if (api != nullptr) return *api;
  PyObject* mod = PyImport_ImportModule("cubridge._core");
  PyObject* cap = mod ? PyObject_GetAttrString(mod, "_array_c_api") : nullptr;
  void* p = cap ? PyCapsule_GetPointer(cap, CUBRIDGE_ARRAY_API_CAPSULE) : nullptr;
  Py_XDECREF(cap);
  Py_XDECREF(mod);
  if (p == nullptr) throw PythonArrayError("cubridge array C API unavailable: " + python_array_detail::fetch_python_error());
  const auto* table = static_cast<const CubridgeArrayAPI*>(p);
  if (table->version != CUBRIDGE_ARRAY_API_VERSION)
    throw PythonArrayError("cubridge array C API version " + std::to_string(table->version) +
                           " is not the version " + std::to_string(CUBRIDGE_ARRAY_API_VERSION) + " this header expects");
  api = table;
  return *api;
}

/// Views `obj` as an ArrayView that keeps `obj` alive. With `consumer`, the consumer's stream is
/// ordered after the producer's pending work on the GPU before this returns (CAI v3 "stream"); the
/// view's stream() is the producer's. Call with the GIL held. Throws PythonArrayError (import failed,
/// with Python's message) or std::invalid_argument naming the requirement the array does not meet.
inline ArrayView array_from_python(PyObject* obj, const ArrayRequirements& req = {},
                                   std::optional<StreamRef> consumer = std::nullopt) {
  const CubridgeArrayAPI& api = array_c_api();
  auto held = std::make_shared<python_array_detail::HeldArray>();
  std::uint32_t flags = (req.sync ? 0u : CUBRIDGE_IMPORT_NO_SYNC) | (req.writable ? CUBRIDGE_IMPORT_WRITABLE : 0u);
  if (api.from_pyobject(obj, flags, consumer ? consumer->cai_value() : CUBRIDGE_ARRAY_NO_STREAM, &held->array) != 0)
    throw PythonArrayError(python_array_detail::fetch_python_error());
  held->api = &api;
  const CubridgeArray& a = held->array;
  if (a.version != CUBRIDGE_ARRAY_VERSION)
    throw std::invalid_argument("array_from_python: CubridgeArray version " + std::to_string(a.version) + " is unknown");
  const auto n = static_cast<std::size_t>(a.ndim);
  ArrayView::Layout layout{a.data, parse_typestr(a.typestr, "array_from_python: typestr"),
                           std::span<const std::int64_t>(a.shape, n), std::span<const std::int64_t>(a.strides, n),
                           (a.flags & CUBRIDGE_ARRAY_READ_ONLY) != 0};
  ArrayView v = ArrayView(layout, held, "array_from_python").with_device(a.device_id);
  if (a.flags & CUBRIDGE_ARRAY_HAS_STREAM)
    v = std::move(v).with_stream(StreamRef::from_cai(a.stream), (a.flags & CUBRIDGE_ARRAY_SYNC) != 0);
  if (req.dtype && !(*req.dtype == v.dtype()))
    throw std::invalid_argument(std::string("array_from_python: dtype '") + v.dtype().typestr() + "' is not the required '" +
                                req.dtype->typestr() + "'");
  if (req.ndim >= 0 && req.ndim != v.ndim())
    throw std::invalid_argument("array_from_python: the array has " + std::to_string(v.ndim()) +
                                " dimension(s), " + std::to_string(req.ndim) + " required");
  using O = ArrayRequirements::Order;
  bool ok = req.order == O::any || (req.order == O::c && v.is_c_contiguous()) ||
            (req.order == O::f && v.is_f_contiguous()) || (req.order == O::c_or_f && v.is_contiguous());
  if (!ok) throw std::invalid_argument("array_from_python: the array is not contiguous in the required order");
  if (a.flags & CUBRIDGE_ARRAY_HAS_MASK)
    throw std::invalid_argument("array_from_python: the array has a mask (CAI 'mask'), which an ArrayView from "
                                "this call does not carry; read the mask separately");
  return v;
}

}  // namespace cubridge
