// Internal (Python glue of the array face): the operations behind cubridge.DeviceArray and the import
// functions (as_cuda_array, from_cuda_array_interface, from_dlpack, device_array, slicing, copies).
// Included only by python/src/bind_array.cpp. Implements: CAI v3 "Lifetime" and "stream" for Python
// callers (the view keeps its producer, work on other streams is ordered both ways, pending work is
// joined before the next use or export).
#pragma once

#include "array/device_allocation.hpp"
#include "cubridge/array/array_copy.hpp"
#include "cubridge/array/pointer_attributes.hpp"
#include "py_import.hpp"

namespace cubridge::python {

inline bool sync_arg(nb::handle sync) {
  if (sync.is_none()) return consumer_sync_default();
  if (!PyBool_Check(sync.ptr()))
    throw nb::type_error(("sync: expected True, False or None (the default: on unless "
                          "CUBRIDGE_CUDA_ARRAY_INTERFACE_SYNC=0), got " + py_repr(sync)).c_str());
  return sync.ptr() == Py_True;
}

/// as_cuda_array: any GPU array as a DeviceArray that keeps it alive (import_array decides how).
inline nb::object as_cuda_array(nb::handle obj, nb::handle sync) {
  ImportRequest req;
  req.sync = sync_arg(sync);
  ImportedArray a = import_array(obj, req);
  if (a.ours != nullptr) return nb::borrow(obj);
  if (a) return wrap(std::move(*a.made));
  throw nb::type_error(("as_cuda_array: " + py_type_name(obj) +
                        " is not a GPU array (expected an object with __cuda_array_interface__ or "
                        "__dlpack__, e.g. a CuPy, PyTorch, Numba, JAX or cubridge array)").c_str());
}

/// Built in place inside its Python object: a DeviceArray moved into one costs a copy of every field.
inline nb::object from_cai(nb::handle desc, nb::handle owner, nb::handle sync) {
  const ImportOptions options{sync_arg(sync)};
  nb::object o = nb::inst_alloc(nb::type<PyDeviceArray>());
  if (const ArrayView* seen = remembered_cai_view(desc, options)) {
    // A prebuilt dict read before: the array made with its view at once (no default view to assign over).
    new (nb::inst_ptr<PyDeviceArray>(o)) PyDeviceArray{.view = *seen, .producer = nb::borrow(owner)};
    nb::inst_mark_ready(o);
    return o;
  }
  new (nb::inst_ptr<PyDeviceArray>(o)) PyDeviceArray();
  nb::inst_mark_ready(o);  // from here a failure destroys the array with the object
  read_cai_afresh(*nb::inst_ptr<PyDeviceArray>(o), desc, owner, options);
  return o;
}

inline nb::object from_dlpack(nb::handle obj, nb::handle stream, nb::handle sync) {
  if (nb::isinstance<PyDeviceArray>(obj)) {
    if (!stream.is_none()) to_stream_ref(stream, StreamRef::legacy(), "from_dlpack: stream");  // still checked
    return nb::borrow(obj);
  }
  return wrap(array_from_dlpack(obj, stream, sync_arg(sync)));
}

/// The stream work on `a` goes to: the one given, else the array's default, else the legacy default.
inline StreamRef work_stream(const PyDeviceArray& a, nb::handle stream) {
  return to_stream_ref(stream, a.view.stream() ? *a.view.stream() : StreamRef::legacy());
}

inline void note_use(PyDeviceArray& a, StreamRef s) {
  if (a.view.stream() && *a.view.stream() == s) return;
  if (a.view.stream() && a.view.synchronizes()) return;  // ScopedStreamUse already ordered it
  for (StreamRef p : a.pending)
    if (p == s) return;
  a.pending.push_back(s);
}

/// Before work on `s`: order it after our other pending streams (producer rule), and forget them.
inline void prepare_use(PyDeviceArray& a, StreamRef s) {
  if (a.pending.empty()) return;
  std::vector<StreamRef> others;
  for (StreamRef p : a.pending)
    if (!(p == s)) others.push_back(p);
  join_streams(s, others, a.view.device());
  a.pending.clear();
}

/// Uninitialised memory from the context's manager, on the array's stream when one is given. `shape` and
/// `dtype` are validated before anything is allocated; `descr` (structured types) is kept for export.
inline PyDeviceArray allocate_device_array(std::span<const std::int64_t> shape, const DType& dtype, bool fortran,
                                           nb::handle stream, nb::handle descr,
                                           const std::shared_ptr<Context>& on_device = nullptr) {
  std::vector<std::int64_t> strides = fortran ? f_strides(shape, dtype.itemsize) : std::vector<std::int64_t>{};
  ArrayView::Layout l{nullptr, dtype, shape, std::nullopt, false};
  if (fortran) l.strides = std::span<const std::int64_t>(strides);
  ArrayView probe(l, nullptr, "device_array");  // validates shape and size before allocating
  PyDeviceArray a;
  std::shared_ptr<Context> context;
  if (nb::isinstance<PyStream>(stream) && nb::cast<const PyStream&>(stream).owned) {
    a.owned_stream = nb::cast<const PyStream&>(stream).owned;
    context = a.owned_stream->context();
  } else if (!stream.is_none() && !PyLong_Check(stream.ptr())) {
    a.stream_owner = nb::borrow(stream);  // keeps the foreign stream object alive with the array
    context = Context::current();
  } else {
    context = Context::current();
  }
  if (on_device) {
    if (a.owned_stream && context != on_device)
      throw nb::value_error(("device_array: the stream belongs to device " + std::to_string(context->device().ordinal()) +
                             " but device=" + std::to_string(on_device->device().ordinal()) +
                             " was asked for; pass a stream of device " + std::to_string(on_device->device().ordinal()) +
                             " or leave device out").c_str());
    context = on_device;
  }
  // A stream-aware manager allocates on the array's stream, where its first use will be ordered.
  const StreamRef on = stream.is_none() ? StreamRef::legacy() : to_stream_ref(stream, StreamRef::legacy());
  auto mem = array_detail::allocate_device(static_cast<std::size_t>(probe.nbytes()), context, on);
  l.data = mem.get();
  a.view = ArrayView(l, mem, "device_array").with_device(context->device().ordinal());
  if (!stream.is_none()) a.view = std::move(a.view).with_stream(on, true);
  if (!descr.is_none()) a.descr = nb::borrow(descr);
  return a;
}

inline bool parse_order(nb::handle order) {
  if (PyUnicode_Check(order.ptr())) {
    if (PyUnicode_CompareWithASCIIString(order.ptr(), "C") == 0) return false;
    if (PyUnicode_CompareWithASCIIString(order.ptr(), "F") == 0) return true;
  }
  throw nb::value_error(("device_array: order " + py_repr(order) + " is not 'C' or 'F'").c_str());
}

/// `descr` (None, or a descr list) checked against `dtype` by the array layer's one rule.
inline void check_descr_arg(nb::handle descr, const DType& dtype) {
  if (!descr.is_none()) cai_detail::check_descr_list(descr.ptr(), dtype, "device_array: descr");
}

/// `_empty(shape, typestr, order, stream, descr)`: device_array with the dtype already spelled as a typestr.
inline PyDeviceArray empty_device_array(nb::handle shape_obj, const std::string& typestr, nb::handle order,
                                        nb::handle stream, nb::handle descr) {
  cai_detail::Dims shape;
  cai_detail::int_sequence(shape_obj.ptr(), "['shape']", shape);
  bool fortran = parse_order(order);
  DType dtype = parse_typestr(typestr, "device_array: dtype");
  check_descr_arg(descr, dtype);
  return allocate_device_array(shape.span(), dtype, fortran, stream, descr);
}

/// A dtype argument resolved: NumPy's dtype for it, as the typestr we parse, the descr we export, and
/// the extents a subarray dtype adds to the array's shape (NumPy's np.empty(3, ('f4', (2, 2))) is a
/// (3, 2, 2) float32 array, not 3 elements of 16 opaque bytes).
struct ResolvedDtype {
  nb::object key;    // the argument itself (kept alive: the cache is keyed by its identity)
  DType dtype;
  nb::object descr;  // the dtype's descr list for structured types, else None
  std::vector<std::int64_t> sub_shape;
};

/// numpy.dtype, found on first use and kept for the process. Not a function-local static: its
/// initializer would import NumPy, which releases the GIL, and a second thread arriving meanwhile would
/// wait on the static's guard while holding the GIL the first thread needs back (a deadlock at the first
/// device_array from several threads). A plain pointer, ordered by the GIL, has no guard.
inline nb::handle numpy_dtype_type() {
  static PyObject* dtype = nullptr;
  if (dtype == nullptr) {
    nb::object t = nb::module_::import_("numpy").attr("dtype");  // may let other threads run
    if (dtype == nullptr) dtype = t.release().ptr();
  }
  return dtype;
}

/// Whether numpy.dtype(arg) always gives the same answer for this object, so that it may be cached by
/// identity: an exact str, an immutable type (int, float, NumPy's scalar types: not a class whose `dtype`
/// attribute may be reassigned), or a NumPy dtype without fields (a structured dtype's names may be).
inline bool same_dtype_forever(nb::handle arg, const nb::object& resolved) {
  if (PyUnicode_CheckExact(arg.ptr())) return true;
  if (PyType_Check(arg.ptr()))
    return PyType_HasFeature(reinterpret_cast<PyTypeObject*>(arg.ptr()), Py_TPFLAGS_IMMUTABLETYPE);
  return arg.ptr() == resolved.ptr() && resolved.attr("fields").is_none();
}

/// numpy.dtype(arg) costs more than an allocation, so dtype arguments that cannot change their answer
/// (same_dtype_forever) are resolved once per process and looked up by identity; the cache is bounded,
/// since the dtype arguments of a program are few. Anything else is resolved every time.
inline ResolvedDtype resolve_dtype(nb::handle arg) {
  static std::vector<ResolvedDtype>* cache = new std::vector<ResolvedDtype>();  // process lifetime: no decref at exit
  for (const ResolvedDtype& r : *cache)
    if (r.key.ptr() == arg.ptr()) return r;
  nb::object dt;
  try {
    dt = numpy_dtype_type()(arg);
  } catch (nb::python_error& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    std::string why = nb::str(e.value()).c_str();
    throw nb::type_error(("device_array: " + py_repr(arg) + " is not a NumPy dtype (" + why + ")").c_str());
  }
  ResolvedDtype r{nb::borrow(arg), DType{}, nb::none(), {}};
  nb::object element = dt;
  if (!dt.attr("subdtype").is_none()) {  // (base, shape): NumPy moves the shape into the array's
    element = dt.attr("base");
    cai_detail::int_sequence(dt.attr("shape").ptr(), "['shape']", r.sub_shape);
  }
  r.dtype = parse_typestr(nb::cast<std::string>(element.attr("str")), "device_array: dtype");
  if (!element.attr("fields").is_none()) r.descr = element.attr("descr");
  for (const ResolvedDtype& c : *cache)  // the call above may have let another thread resolve it
    if (c.key.ptr() == arg.ptr()) return c;
  if (same_dtype_forever(arg, dt) && cache->size() < 256) cache->push_back(r);
  return r;
}

/// What resolve_dtype made of `arg`: (typestr, subarray extents, descr or None), as device_array uses them.
inline nb::tuple resolved_dtype_facts(nb::handle arg) {
  ResolvedDtype r = resolve_dtype(arg);
  return nb::make_tuple(nb::str(r.dtype.typestr()), nb::steal(cai_detail::int_tuple(r.sub_shape)), r.descr);
}

/// The context of `device=`: None (the current device's), or an int ordinal or a cubridge.Device.
inline std::shared_ptr<Context> context_of_device_arg(nb::handle device, const char* what) {
  if (device.is_none()) return nullptr;
  if (nb::isinstance<Device>(device)) return Context::primary(nb::cast<const Device&>(device));
  std::int64_t ordinal = 0;
  if (PyBool_Check(device.ptr()) || !cai_detail::to_int64(device.ptr(), ordinal))
    throw nb::type_error((std::string(what) + ": device=" + py_repr(device) +
                          " is not an int ordinal, a cubridge.Device or None (the current device)").c_str());
  const int count = Device::count();
  if (ordinal < 0 || ordinal >= count)
    throw nb::value_error((std::string(what) + ": device=" + std::to_string(ordinal) + " is not a device of this machine (" +
                           std::to_string(count) + " CUDA device(s), ordinals 0.." + std::to_string(count - 1) + ")").c_str());
  return Context::primary(Device(static_cast<int>(ordinal)));
}

/// How many extents device_array takes: NumPy's limit (NPY_MAXDIMS of NumPy 2).
inline constexpr Py_ssize_t kMaxDeviceArrayDims = 64;

/// `device_array(shape, dtype=float, order="C", stream=None, *, device=None)`, whole in C++: the hot path
/// of allocation from Python (numba.cuda.device_array's signature; `device` allocates on a device that
/// need not be current, from that device's context's manager).
inline PyDeviceArray device_array(nb::handle shape_obj, nb::handle dtype_arg, nb::handle order, nb::handle stream,
                                  nb::handle device) {
  auto bad_shape = [&] {
    return nb::type_error(("device_array: shape must be an int or a tuple of int, got " + py_repr(shape_obj)).c_str());
  };
  cai_detail::Dims shape;
  if (PyLong_Check(shape_obj.ptr()) || (PyIndex_Check(shape_obj.ptr()) && !PySequence_Check(shape_obj.ptr()))) {
    if (!cai_detail::to_int64(shape_obj.ptr(), *shape.resize(1))) throw bad_shape();  // bool is refused here
  } else {
    nb::object items;
    if (PyTuple_Check(shape_obj.ptr()) || PyList_Check(shape_obj.ptr())) {
      items = cai_detail::stable_items(shape_obj.ptr());  // __index__ below may mutate a list
    } else if (shape_obj.is_none() || PyUnicode_Check(shape_obj.ptr()) || PyBytes_Check(shape_obj.ptr()) ||
               !PySequence_Check(shape_obj.ptr())) {
      throw bad_shape();  // NumPy's rule: a sequence, never an iterator (itertools.count() never ends)
    } else {
      // Any other sequence (numpy's shape, a range, an array): read by index up to its length, so a
      // __getitem__ that never raises IndexError still ends.
      const Py_ssize_t len = PySequence_Size(shape_obj.ptr());
      if (len < 0) {
        PyErr_Clear();
        throw bad_shape();
      }
      if (len > kMaxDeviceArrayDims)
        throw nb::value_error(("device_array: shape " + py_repr(shape_obj) + " has " + std::to_string(len) +
                               " extents; at most " + std::to_string(kMaxDeviceArrayDims) + " (NumPy's limit)").c_str());
      items = nb::steal(PyTuple_New(len));
      if (!items.is_valid()) throw nb::python_error();
      for (Py_ssize_t i = 0; i < len; ++i) {
        PyObject* e = PySequence_GetItem(shape_obj.ptr(), i);
        if (e == nullptr) {
          PyErr_Clear();
          throw bad_shape();
        }
        PyTuple_SET_ITEM(items.ptr(), i, e);
      }
    }
    Py_ssize_t n = PyTuple_GET_SIZE(items.ptr());
    if (n > kMaxDeviceArrayDims)
      throw nb::value_error(("device_array: shape has " + std::to_string(n) + " extents; at most " +
                             std::to_string(kMaxDeviceArrayDims) + " (NumPy's limit)").c_str());
    std::int64_t* out = shape.resize(static_cast<std::size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i)
      if (!cai_detail::to_int64(PyTuple_GET_ITEM(items.ptr(), i), out[i])) throw bad_shape();
  }
  bool fortran = parse_order(order);
  ResolvedDtype r = resolve_dtype(dtype_arg);
  if (!r.sub_shape.empty()) {
    std::vector<std::int64_t> full(shape.span().begin(), shape.span().end());
    full.insert(full.end(), r.sub_shape.begin(), r.sub_shape.end());
    std::int64_t* out = shape.resize(full.size());
    std::copy(full.begin(), full.end(), out);
  }
  return allocate_device_array(shape.span(), r.dtype, fortran, stream, r.descr,
                               context_of_device_arg(device, "device_array"));
}

inline PyDeviceArray derived_array(nb::handle self, const PyDeviceArray& a, ArrayView v) {
  PyDeviceArray out;
  out.view = std::move(v);
  out.producer = nb::borrow(self);  // the parent keeps the memory and the producer alive
  out.descr = a.descr;
  out.owned_stream = a.owned_stream;
  out.stream_owner = a.stream_owner;
  out.pending = a.pending;
  return out;
}

inline nb::object array_getitem(nb::handle self, PyDeviceArray& a, nb::handle key) {
  std::vector<PyObject*> items;
  if (PyTuple_Check(key.ptr()))
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(key.ptr()); ++i) items.push_back(PyTuple_GET_ITEM(key.ptr(), i));
  else
    items.push_back(key.ptr());
  int consuming = 0;
  bool ellipsis = false;
  for (PyObject* it : items) {
    if (it == Py_Ellipsis) {
      if (ellipsis) throw nb::index_error("DeviceArray index: only one Ellipsis ('...') is allowed");
      ellipsis = true;
    } else {
      ++consuming;
    }
  }
  if (consuming > a.view.ndim())
    throw nb::index_error(("DeviceArray index: too many indices (" + std::to_string(consuming) +
                           ") for an array of " + std::to_string(a.view.ndim()) + " dimension(s)").c_str());
  ArrayView v = a.view;
  int axis = 0;
  for (PyObject* it : items) {
    if (it == Py_Ellipsis) {
      axis += a.view.ndim() - consuming;
    } else if (PySlice_Check(it)) {
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(it, &start, &stop, &step) != 0) throw nb::python_error();
      v = v.slice(axis, start, stop, step);
      ++axis;
    } else if (!PyBool_Check(it) && PyIndex_Check(it)) {
      Py_ssize_t i = PyNumber_AsSsize_t(it, PyExc_IndexError);
      if (i == -1 && PyErr_Occurred()) throw nb::python_error();
      v = v.index(axis, i);
    } else {
      throw nb::type_error(("DeviceArray indices must be ints, slices or '...', got " + py_repr(it) + " (" +
                            py_type_name(it) + ")").c_str());
    }
  }
  PyDeviceArray out = derived_array(self, a, std::move(v));
  if (a.mask.is_valid() && !a.mask.is_none()) out.mask = nb::steal(PyObject_GetItem(a.mask.ptr(), key.ptr()));
  if (out.mask.is_valid() == false && PyErr_Occurred()) throw nb::python_error();
  return wrap(std::move(out));
}

inline nb::object stream_of(const PyDeviceArray& a) {
  if (!a.view.stream()) return nb::none();
  return nb::cast(PyStream{a.owned_stream, a.view.stream()->handle(), nb::none()});
}

/// A writable (or readable) contiguous Python buffer.
struct HostBuffer {
  Py_buffer view{};
  HostBuffer(nb::handle obj, bool writable) {
    if (PyObject_GetBuffer(obj.ptr(), &view, (writable ? PyBUF_WRITABLE : 0) | PyBUF_C_CONTIGUOUS) != 0)
      throw nb::python_error();
  }
  ~HostBuffer() { PyBuffer_Release(&view); }
};

inline void copy_extent_to_host_py(PyDeviceArray& a, nb::handle buffer, nb::handle stream) {
  StreamRef s = work_stream(a, stream);
  HostBuffer b(buffer, true);
  prepare_use(a, s);
  {
    GilReleased release;
    copy_extent_to_host(a.view, b.view.buf, static_cast<std::size_t>(b.view.len), s);
  }
}

inline void copy_from_host_py(PyDeviceArray& a, nb::handle buffer, nb::handle stream) {
  StreamRef s = work_stream(a, stream);
  HostBuffer b(buffer, false);
  prepare_use(a, s);
  copy_extent_from_host(a.view, b.view.buf, static_cast<std::size_t>(b.view.len), s);
  note_use(a, s);
}

inline void copy_from_device_py(PyDeviceArray& a, nb::handle src, nb::handle stream) {
  nb::object other = as_cuda_array(src, nb::none());
  PyDeviceArray& b = nb::cast<PyDeviceArray&>(other);
  StreamRef s = work_stream(a, stream);
  prepare_use(a, s);
  if (&a != &b) prepare_use(b, s);
  copy_between_views(a.view, b.view, s);
  note_use(a, s);
  note_use(b, s);
}

inline nb::dict pointer_attributes_of(const PyDeviceArray& a) {
  PointerAttributes p = query_pointer_attributes(a.view.address());
  nb::dict d;
  const char* kind = p.managed ? "managed" : p.memory_type == CU_MEMORYTYPE_DEVICE ? "device"
                     : p.memory_type == CU_MEMORYTYPE_HOST ? "host" : p.memory_type == CU_MEMORYTYPE_UNIFIED
                     ? "unified" : "unknown";
  d["context"] = reinterpret_cast<std::uintptr_t>(p.context);
  d["device"] = p.device;
  d["memory_type"] = kind;
  d["managed"] = p.managed;
  d["device_accessible"] = p.device_accessible();
  d["range_start"] = p.range_start;
  d["range_size"] = p.range_size;
  return d;
}

}  // namespace cubridge::python
