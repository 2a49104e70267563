// Internal (Python glue of the kernel face): turning Python launch configurations and arguments into
// LaunchConfig, ArrayView and Scalar values. Header-only, included only by python/src/bind_kernel.cpp;
// arrays are imported by the array face's one import (py_import.hpp), never parsed here.
// Implements: the argument rules of DESIGN.md "kernel/" (any CAI or DLPack array, NumPy arrays staged
// through the device with a warning, Python and NumPy scalars) and numba-cuda's launch spelling.
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "array/device_allocation.hpp"
#include "py_cai.hpp"
#include "py_import.hpp"
#include "cubridge/array/array_copy.hpp"
#include "cubridge/array/array_interface.hpp"
#include "cubridge/driver/stream_capture.hpp"
#include "cubridge/kernel.hpp"
#include "py_stream.hpp"
#include "support/hex_text.hpp"

namespace cubridge::python::kernel_glue {

namespace nb = nanobind;

inline std::string arg_name(std::size_t i) { return "argument " + std::to_string(i); }

/// An int (not bool; NumPy integers through __index__) as int64; nullopt when `o` is not an int.
inline std::optional<std::int64_t> as_int64(PyObject* o, const char* what) {
  int overflow = 0;
  if (PyLong_CheckExact(o)) {  // a launch configuration's ints: no __index__ to ask, no reference to take
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) return v;
  } else {
    if (PyBool_Check(o) || (!PyLong_Check(o) && !PyIndex_Check(o))) return std::nullopt;
    nb::object i = nb::steal(PyNumber_Index(o));
    if (!i.is_valid()) {
      PyErr_Clear();
      return std::nullopt;
    }
    const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow == 0) return v;
  }
  throw nb::value_error((std::string(what) + ": " + py_repr(o) + " does not fit in 64 bits").c_str());
}

/// griddim / blockdim: an int or a tuple/list of 1 to 3 ints.
inline Extent3 extent_of(nb::handle value, const char* what) {
  std::int64_t vals[3];
  std::size_t n = 0;
  if (auto v = as_int64(value.ptr(), what)) {
    vals[n++] = *v;
  } else if (PyTuple_Check(value.ptr()) || PyList_Check(value.ptr())) {
    nb::object items = cai_detail::stable_items(value.ptr());  // __index__ below may mutate a list
    Py_ssize_t len = PyTuple_GET_SIZE(items.ptr());
    if (len < 1 || len > 3)
      throw nb::value_error((std::string(what) + ": " + py_repr(value) + " has " + std::to_string(len) +
                             " extents; give an int or a tuple of 1 to 3 ints")
                                .c_str());
    for (Py_ssize_t i = 0; i < len; ++i) {
      auto v = as_int64(PyTuple_GET_ITEM(items.ptr(), i), what);
      if (!v)
        throw nb::type_error((std::string(what) + ": " + py_repr(value) +
                              " is not an int or a tuple of 1 to 3 ints").c_str());
      vals[n++] = *v;
    }
  } else {
    throw nb::type_error((std::string(what) + ": " + py_repr(value) + " (" + py_type_name(value) +
                          ") is not an int or a tuple of 1 to 3 ints").c_str());
  }
  return Extent3::of(std::span<const std::int64_t>(vals, n), what);
}

/// The launch stream a user named: None → not given; 0 → the default stream, as numba-cuda reads it.
inline std::optional<StreamRef> stream_of(nb::handle stream) {
  if (stream.is_none()) return std::nullopt;
  if (PyLong_Check(stream.ptr()) && !PyBool_Check(stream.ptr()) && PyLong_AsLongLong(stream.ptr()) == 0)
    return StreamRef::process_default();
  if (PyErr_Occurred()) PyErr_Clear();
  return to_stream_ref(stream, StreamRef::legacy(), "stream");
}

/// kernel[griddim, blockdim, stream, sharedmem] with the last two optional.
inline LaunchConfig config_of(nb::handle key, nb::object& stream_keepalive) {
  if (!PyTuple_Check(key.ptr()) || PyTuple_GET_SIZE(key.ptr()) < 2 || PyTuple_GET_SIZE(key.ptr()) > 4)
    throw nb::type_error(("kernel[...]: expected [griddim, blockdim], [griddim, blockdim, stream] or "
                          "[griddim, blockdim, stream, sharedmem], got [" + py_repr(key) + "]").c_str());
  const Py_ssize_t n = PyTuple_GET_SIZE(key.ptr());
  LaunchConfig c;
  c.default_stream = StreamRef::process_default();
  c.grid = extent_of(PyTuple_GET_ITEM(key.ptr(), 0), "griddim");
  c.block = extent_of(PyTuple_GET_ITEM(key.ptr(), 1), "blockdim");
  if (n > 2) {
    nb::handle s = PyTuple_GET_ITEM(key.ptr(), 2);
    c.stream = stream_of(s);
    stream_keepalive = nb::borrow(s);
  }
  if (n > 3) {
    auto smem = as_int64(PyTuple_GET_ITEM(key.ptr(), 3), "sharedmem");
    if (!smem)
      throw nb::type_error(("sharedmem: " + py_repr(PyTuple_GET_ITEM(key.ptr(), 3)) +
                            " is not an int number of bytes").c_str());
    c.shared_mem = *smem;
  }
  return c;
}

/// True for NumPy scalar objects (numpy.generic), without importing NumPy when nobody else has.
inline bool is_numpy_scalar(PyObject* o) {
  static PyObject* generic = nullptr;
  if (generic == nullptr) {
    if (!module_imported("numpy")) return false;
    generic = module_attribute("numpy", "generic");  // kept for the process
    if (generic == nullptr) return false;
  }
  return PyObject_IsInstance(o, generic) == 1;
}

/// A Python or NumPy number as a Scalar; nullopt when `o` is not a number. `sig`, when given, names
/// parameter `index` in the message (an element of a tuple argument: "argument 1[2]").
inline std::optional<Scalar> scalar_of(PyObject* o, std::size_t index, const KernelSignature* sig = nullptr) {
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) return Scalar(static_cast<std::int64_t>(v));
    if (overflow > 0) {
      unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (!PyErr_Occurred()) return Scalar(static_cast<std::uint64_t>(u));
      PyErr_Clear();
    }
    throw nb::value_error(((sig ? sig->parameter_name(index) : arg_name(index)) + ": " + py_repr(o) +
                           " is out of range for every integer parameter type (int64 / uint64)").c_str());
  }
  if (PyFloat_Check(o)) return Scalar(PyFloat_AS_DOUBLE(o));
  if (PyComplex_Check(o)) return Scalar(std::complex<double>(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)));
  // NumPy scalars (np.int32, np.float16, np.bool_, np.complex64, ...): by their dtype kind.
  if (is_numpy_scalar(o)) {
    nb::object kind = nb::steal(PyObject_GetAttrString(o, "dtype"));
    if (kind.is_valid()) kind = nb::steal(PyObject_GetAttrString(kind.ptr(), "kind"));
    if (!kind.is_valid() || !PyUnicode_Check(kind.ptr())) {
      PyErr_Clear();
      return std::nullopt;
    }
    const std::string k = PyUnicode_AsUTF8(kind.ptr());
    if (k == "b") return Scalar(PyObject_IsTrue(o) == 1);
    if (k == "i" || k == "u") {
      nb::object i = nb::steal(PyNumber_Index(o));
      if (!i.is_valid()) throw nb::python_error();
      return scalar_of(i.ptr(), index, sig);
    }
    if (k == "f") {
      double d = PyFloat_AsDouble(o);
      if (d == -1.0 && PyErr_Occurred()) throw nb::python_error();
      return Scalar(d);
    }
    if (k == "c") {
      Py_complex c = PyComplex_AsCComplex(o);
      if (c.real == -1.0 && PyErr_Occurred()) throw nb::python_error();
      return Scalar(std::complex<double>(c.real, c.imag));
    }
    if (k == "M" || k == "m") {  // np.datetime64 / np.timedelta64: the count of its unit, the unit from dtype.str
      nb::handle h(o);
      const DType d = parse_typestr(nb::cast<std::string>(h.attr("dtype").attr("str")),
                                    (sig ? sig->parameter_name(index) : arg_name(index)) + ": dtype");
      nb::object count = h.attr("astype")("int64");
      nb::object i = nb::steal(PyNumber_Index(count.ptr()));
      if (!i.is_valid()) throw nb::python_error();
      return Scalar::datetime(d.kind, d.unit, static_cast<std::int64_t>(PyLong_AsLongLong(i.ptr())));
    }
  }
  return std::nullopt;
}

/// A NumPy (host) array copied to the device for one launch, and back after it when written.
struct StagedArray {
  std::size_t index = 0;
  ArrayView device;
  std::shared_ptr<void> allocation;
  std::byte* host_first = nullptr;  // the host's lowest byte, matching the device extent's
  std::size_t bytes = 0;
  bool copy_back = false;
  nb::object keepalive;
};

/// The `__array_interface__` dict of `obj`, or an invalid object when it has none (or not a dict).
inline nb::object host_interface_of(nb::handle obj) {
  PyObject* ai = PyObject_GetAttrString(obj.ptr(), "__array_interface__");
  if (ai == nullptr) {
    PyErr_Clear();
    return {};
  }
  nb::object d = nb::steal(ai);
  if (!PyDict_Check(d.ptr())) return {};
  return d;
}

/// Whether `t` is numpy.void or a subclass of it (numpy.record: the items of a np.recarray).
inline bool is_numpy_void_type(PyTypeObject* t) {
  for (; t != nullptr; t = t->tp_base)
    if (std::string_view(t->tp_name) == "numpy.void") return true;
  return false;
}

/// Whether `obj` is a NumPy record scalar (a[i] of a structured array or of a np.recarray) whose memory,
/// at `data`, lies in its writable base array's: NumPy may call such a scalar's interface read-only, yet
/// writing the record writes the array, and numba-cuda copies a record parameter back into it.
inline bool writes_through_to_its_base(nb::handle obj, std::uintptr_t data) {
  if (!is_numpy_void_type(Py_TYPE(obj.ptr()))) return false;
  PyObject* base = PyObject_GetAttrString(obj.ptr(), "base");
  if (base == nullptr) {
    PyErr_Clear();
    return false;
  }
  nb::object b = nb::steal(base);
  nb::object d = host_interface_of(b);
  if (!d.is_valid()) return false;
  const cai_detail::CaiItems items(d.ptr());  // strong references: nothing below can free them
  PyObject* base_data = items.data;
  if (base_data == nullptr || !PyTuple_Check(base_data) || PyTuple_GET_SIZE(base_data) != 2 ||
      PyTuple_GET_ITEM(base_data, 1) != Py_False || !PyLong_Check(PyTuple_GET_ITEM(base_data, 0)))
    return false;
  const std::uintptr_t first = PyLong_AsSize_t(PyTuple_GET_ITEM(base_data, 0));
  PyObject* nbytes = PyObject_GetAttrString(b.ptr(), "nbytes");
  if (nbytes == nullptr || PyErr_Occurred()) {
    Py_XDECREF(nbytes);
    PyErr_Clear();
    return false;
  }
  const std::size_t size = PyLong_Check(nbytes) ? PyLong_AsSize_t(nbytes) : 0;
  Py_DECREF(nbytes);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return data >= first && data < first + size;  // a copy NumPy made for the interface is not the record
}

/// A host array as a launch reads it: its view, and where its bytes lie. A launch stages the bytes from
/// `first` (copies them to the device and back byte for byte, as numba-cuda's cuMemcpy of the host array
/// does), so a pointer misaligned for the dtype (np.ndarray(9, buffer=b[4:-4], dtype=np.double)) is taken:
/// its view lies over the aligned address below the data and carries the layout's checks, never read.
struct HostArray {
  ArrayView view;
  std::byte* first = nullptr;  // the array's lowest byte in the host's memory
};

/// The host array of an object with __array_interface__ (NumPy), or nullopt when it has none. The dict
/// is read by the CAI's reader (cai_detail::read_common): the same key rules, and strong references
/// held across the user code that reading runs.
/// `staged` false (a packed buffer for inspection, no launch): the host pointer is packed as it is, so a
/// misaligned one is refused by the view's alignment rule.
inline std::optional<HostArray> host_view_of(nb::handle obj, std::size_t index, bool staged = true) {
  nb::object d = host_interface_of(obj);
  if (!d.is_valid()) return std::nullopt;
  const cai_detail::CaiItems items(d.ptr());
  cai_detail::CommonFields f;
  try {
    cai_detail::read_common(items, cai_detail::kHostKind, f);
  } catch (nb::builtin_exception& e) {
    // Which argument: the reader names the key, the launch adds the position.
    if (e.type() == nb::exception_type::type_error) throw nb::type_error((arg_name(index) + ": " + e.what()).c_str());
    throw nb::value_error((arg_name(index) + ": " + e.what()).c_str());
  }
  ArrayView::Layout l;
  l.data = reinterpret_cast<void*>(f.data);
  l.read_only = f.read_only && !writes_through_to_its_base(obj, f.data);
  l.dtype = parse_typestr(f.typestr, "__array_interface__['typestr']");
  if (l.dtype.kind == 'V' && l.dtype.itemsize == 2) {  // '<V2': bfloat16 when the dtype is ml_dtypes'
    nb::object dtype = nb::steal(PyObject_GetAttrString(obj.ptr(), "dtype"));
    if (!dtype.is_valid()) PyErr_Clear();
    if (dtype.is_valid() && is_ml_dtypes_bfloat16(dtype.ptr())) l.dtype = bfloat16_dtype();
  }
  l.shape = f.shape.span();
  if (f.has_strides) l.strides = f.strides.span();
  const std::uint32_t alignment = l.dtype.alignment();
  HostArray h;
  if (!staged || alignment <= 1 || f.data % alignment == 0) {
    h.view = ArrayView(l, nullptr, "__array_interface__");
    h.first = static_cast<std::byte*>(h.view.data()) + h.view.extent().begin;
    return h;
  }
  // Misaligned, for a launch: the same layout over the aligned address below finds the extent; nothing is
  // read here (the user's memory is read only by the staging copy, at the launch).
  l.data = reinterpret_cast<void*>(f.data - f.data % alignment);
  h.view = ArrayView(l, nullptr, "__array_interface__");
  h.first = reinterpret_cast<std::byte*>(f.data) + h.view.extent().begin;
  return h;
}

/// A host array's staging (an allocation, a copy there and back, a wait for the stream before the copy is
/// freed) is no work a CUDA graph can record: refused by name while `stream` is being captured, before
/// anything is allocated or copied, rather than left to invalidate the capture.
inline void refuse_staging_during_capture(StreamRef stream, const std::string& param, const Context& context) {
  {
    ScopedContext scope(context);  // a default stream is asked about in the kernel's context
    if (!is_capturing(stream)) return;
  }
  throw nb::value_error((param + ": a host array (NumPy) is copied to the device before the launch and back "
                         "after it, and the launch waits for the stream before freeing the copy; none of that "
                         "can be done while stream " + support::hex(stream.cai_value()) + " is being captured "
                         "into a CUDA graph. Pass a device array made before the capture (cubridge.to_device, "
                         "cupy.asarray, torch.as_tensor(..., device='cuda'))").c_str());
}

/// Copies a host array to new device memory on `stream` (ordered like any other work there).
inline StagedArray stage_host_array(nb::handle obj, const HostArray& array, std::size_t index, bool written,
                                    const std::shared_ptr<Context>& context, StreamRef stream) {
  const ArrayView& host = array.view;
  StagedArray s;
  s.index = index;
  s.keepalive = nb::borrow(obj);
  const ByteExtent e = host.extent();
  s.bytes = static_cast<std::size_t>(e.size());
  s.host_first = array.first;
  s.allocation = array_detail::allocate_device(s.bytes, context, stream);
  std::vector<std::int64_t> shape(host.shape().begin(), host.shape().end());
  std::vector<std::int64_t> strides(host.strides().begin(), host.strides().end());
  ArrayView::Layout l;
  l.data = s.allocation ? static_cast<std::byte*>(s.allocation.get()) - e.begin : nullptr;
  l.dtype = host.dtype();
  l.shape = shape;
  l.strides = std::span<const std::int64_t>(strides);
  s.device = ArrayView(l, s.allocation, "host array copy").with_device(context->device().ordinal());
  copy_extent_from_host(s.device, s.host_first, s.bytes, stream);
  if (host.read_only()) s.device = s.device.as_read_only();
  s.copy_back = written && !host.read_only();
  return s;
}

/// How a launch imports its array arguments: borrowed (the argument tuple keeps them alive), with the
/// process's consumer sync rule, `__dlpack__`-only producers deferred until the launch stream is known,
/// and a record array whose DLPack export fails read through its CAI.
inline ImportRequest argument_request() {
  ImportRequest req;
  req.sync = consumer_sync_default();
  req.borrow = true;
  req.defer_dlpack = true;
  req.cai_after_exchange = true;
  req.share_remembered = true;
  return req;
}

/// A deferred DLPack producer's view, produced for `stream` (the producer orders its work before it).
inline ImportedArray dlpack_argument(nb::handle obj, StreamRef stream) {
  ImportRequest req = argument_request();
  req.defer_dlpack = false;
  req.share_remembered = false;  // the caller takes `made`
  nb::object s = nb::int_(stream.cai_value());
  req.stream = s;
  return import_array(obj, req);
}

/// What @jit's typeof reads of an array of numbers: its element type, rank, layout and mutability; the
/// array parameter type follows from these alone (the lazy launch's specialization cache keys on them).
struct ArrayParam {
  ScalarType element;
  int ndim;
  char layout;  // 'C', 'F' or 'A'
  bool readonly;
  Type type() const { return Type::array(Type::scalar(element), ndim, layout, readonly); }
};

/// Whether the Python side spells the element type of an array of this dtype: records ('V', from the
/// dtype's fields), fixed-width strings ('S', 'U': Numba's CharSeq and UnicodeCharSeq) and datetimes ('M', 'm':
/// Numba's NPDatetime/NPTimedelta of the typestr's unit).
inline bool spelt_by_python(const DType& d) {
  return d.kind == 'V' || d.kind == 'S' || d.kind == 'U' || d.kind == 'M' || d.kind == 'm';
}

/// The ArrayParam of a view (a 0-d one too: numba's 0-d arrays); nullopt for what typeof refuses or leaves to
/// Python (records, fixed-width strings, dtypes that are no kernel parameter type).
inline std::optional<ArrayParam> array_param_facts(const ArrayView& v) {
  // The dtypes Python spells (spelt_by_python) are no scalar type: scalar_type_of refuses them too.
  const auto element = scalar_type_of(v.dtype());
  if (!element) return std::nullopt;
  const char layout = v.is_c_contiguous() ? 'C' : v.is_f_contiguous() ? 'F' : 'A';
  return ArrayParam{*element, v.ndim(), layout, v.read_only()};
}

/// @jit's typeof of a GPU array argument, a cubridge.Type ('readonly array(float32, 2d, C)'): read through
/// import_array like a launch's arguments (without synchronising: the launch does), a host array with
/// `__array_interface__` before its `__dlpack__` as a launch stages it. None when `obj` is no GPU array,
/// a host array, or an array of records (whose Numba type the Python side spells from the dtype).
inline nb::object array_param_of(nb::handle obj) {
  ImportRequest req;
  req.sync = false;
  req.check_pointer = false;  // the type needs the description only; a launch checks the pointer
  req.borrow = true;
  req.defer_dlpack = true;
  req.cai_after_exchange = true;  // as the launch reads it: a record array DLPack cannot export, through its CAI
  ImportedArray a = import_array(obj, req);
  if (a.deferred) {
    if (PyObject_HasAttrString(obj.ptr(), "__array_interface__")) return nb::none();
    req.defer_dlpack = false;
    a = import_array(obj, req);
  }
  if (!a) return nb::none();
  const ArrayView& v = a.get().view;
  if (spelt_by_python(v.dtype())) return nb::none();
  const std::optional<ArrayParam> p = array_param_facts(v);
  if (!p) {
    throw nb::type_error((std::string("typeof: arrays of typestr '") + v.dtype().typestr() +
                          "' cannot be kernel arguments").c_str());
  }
  return nb::cast(p->type());
}

}  // namespace cubridge::python::kernel_glue
