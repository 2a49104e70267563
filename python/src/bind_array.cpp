// Internal: bindings of the array face (cubridge.DeviceArray and the import functions). The rules live
// in src/array/ (C++) and src/array/python/ (the Python-object glue, header-only, included here only).
#include <nanobind/stl/string.h>

#include <chrono>

#include "array/python/py_c_api.hpp"
#include "bindings.hpp"
#include "cubridge/array.hpp"
#include "cubridge/array/python_array.hpp"

namespace cubridge::python {

namespace {

bool sync_arg(nb::handle sync) {
  if (sync.is_none()) return consumer_sync_default();
  if (!PyBool_Check(sync.ptr()))
    throw nb::type_error(("sync: expected True, False or None (the default: on unless "
                          "CUBRIDGE_CUDA_ARRAY_INTERFACE_SYNC=0), got " + py_repr(sync)).c_str());
  return sync.ptr() == Py_True;
}

/// as_cuda_array: our arrays as they are; a type publishing the DLPack C exchange table through it (it
/// names the producer's current stream, where PyTorch's CAI is version 2 without one); else the CAI;
/// else `__dlpack__`.
nb::object as_cuda_array(nb::handle obj, nb::handle sync) {
  if (nb::isinstance<PyDeviceArray>(obj)) return nb::borrow(obj);
  if (exchange_api_of(Py_TYPE(obj.ptr())) != nullptr) {
    PyDeviceArray a = array_from_dlpack(obj, nb::none(), sync_arg(sync));
    a.producer = nb::borrow(obj);
    return wrap(std::move(a));
  }
  PyObject* cai = PyObject_GetAttr(obj.ptr(), Keys::get().cai);
  if (cai != nullptr) {
    nb::object desc = nb::steal(cai);
    return wrap(array_from_cai(desc, obj, sync_arg(sync)));
  }
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw nb::python_error();
  PyErr_Clear();
  if (PyObject_HasAttr(obj.ptr(), Keys::get().dlpack)) {
    PyDeviceArray a = array_from_dlpack(obj, nb::none(), sync_arg(sync));
    a.producer = nb::borrow(obj);
    return wrap(std::move(a));
  }
  throw nb::type_error(("as_cuda_array: " + py_type_name(obj) +
                        " is not a GPU array (expected an object with __cuda_array_interface__ or "
                        "__dlpack__, e.g. a CuPy, PyTorch, Numba, JAX or cubridge array)").c_str());
}

nb::object from_cai(nb::handle desc, nb::handle owner, nb::handle sync) {
  return wrap(array_from_cai(desc, owner, sync_arg(sync)));
}

nb::object from_dlpack(nb::handle obj, nb::handle stream, nb::handle sync) {
  if (nb::isinstance<PyDeviceArray>(obj)) return nb::borrow(obj);
  return wrap(array_from_dlpack(obj, stream, sync_arg(sync)));
}

/// The stream work on `a` goes to: the one given, else the array's default, else the legacy default.
StreamRef work_stream(const PyDeviceArray& a, nb::handle stream) {
  return to_stream_ref(stream, a.view.stream() ? *a.view.stream() : StreamRef::legacy());
}

void note_use(PyDeviceArray& a, StreamRef s) {
  if (a.view.stream() && *a.view.stream() == s) return;
  if (a.view.stream() && a.view.synchronizes()) return;  // ScopedStreamUse already ordered it
  for (StreamRef p : a.pending)
    if (p == s) return;
  a.pending.push_back(s);
}

/// Before work on `s`: order it after our other pending streams (producer rule), and forget them.
void prepare_use(PyDeviceArray& a, StreamRef s) {
  if (a.pending.empty()) return;
  std::vector<StreamRef> others;
  for (StreamRef p : a.pending)
    if (!(p == s)) others.push_back(p);
  join_streams(s, others, a.view.device());
  a.pending.clear();
}

PyDeviceArray empty(nb::handle shape_obj, const std::string& typestr, const std::string& order,
                    nb::handle stream, nb::handle descr) {
  std::vector<std::int64_t> shape;
  cai_detail::int_sequence(shape_obj.ptr(), "['shape']", shape);
  if (order != "C" && order != "F")
    throw nb::value_error(("device_array: order " + py_repr(nb::str(order.c_str())) + " is not 'C' or 'F'").c_str());
  DType dtype = parse_typestr(typestr, "device_array: dtype");
  std::vector<std::int64_t> strides = order == "F" ? f_strides(shape, dtype.itemsize) : std::vector<std::int64_t>{};
  ArrayView::Layout l{nullptr, dtype, shape, std::nullopt, false};
  if (order == "F") l.strides = std::span<const std::int64_t>(strides);
  ArrayView probe(l, nullptr, "device_array");  // validates shape and size before allocating
  PyDeviceArray a;
  std::shared_ptr<Context> context;
  if (nb::isinstance<PyStream>(stream) && nb::cast<const PyStream&>(stream).owned) {
    a.owned_stream = nb::cast<const PyStream&>(stream).owned;
    context = a.owned_stream->context();
  } else {
    context = Context::current();
  }
  auto mem = array_detail::allocate_device(static_cast<std::size_t>(probe.nbytes()), context);
  l.data = mem.get();
  a.view = ArrayView(l, mem, "device_array").with_device(context->device().ordinal());
  if (!stream.is_none()) a.view = std::move(a.view).with_stream(to_stream_ref(stream, StreamRef::legacy()), true);
  if (!descr.is_none()) {
    std::int64_t size = cai_detail::descr_size(descr.ptr(), "device_array: descr");
    if (size != dtype.itemsize)
      throw nb::value_error(("device_array: descr describes " + std::to_string(size) + " bytes, dtype has " +
                             std::to_string(dtype.itemsize)).c_str());
    a.descr = nb::borrow(descr);
  }
  return a;
}

PyDeviceArray derived(nb::handle self, const PyDeviceArray& a, ArrayView v) {
  PyDeviceArray out;
  out.view = std::move(v);
  out.producer = nb::borrow(self);  // the parent keeps the memory and the producer alive
  out.descr = a.descr;
  out.owned_stream = a.owned_stream;
  out.pending = a.pending;
  return out;
}

nb::object getitem(nb::handle self, PyDeviceArray& a, nb::handle key) {
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
  PyDeviceArray out = derived(self, a, std::move(v));
  if (a.mask.is_valid() && !a.mask.is_none()) out.mask = nb::steal(PyObject_GetItem(a.mask.ptr(), key.ptr()));
  if (out.mask.is_valid() == false && PyErr_Occurred()) throw nb::python_error();
  return wrap(std::move(out));
}

nb::object stream_of(const PyDeviceArray& a) {
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

void copy_extent_to_host_py(PyDeviceArray& a, nb::handle buffer, nb::handle stream) {
  StreamRef s = work_stream(a, stream);
  HostBuffer b(buffer, true);
  prepare_use(a, s);
  {
    nb::gil_scoped_release release;
    copy_extent_to_host(a.view, b.view.buf, static_cast<std::size_t>(b.view.len), s);
  }
}

void copy_from_host_py(PyDeviceArray& a, nb::handle buffer, nb::handle stream) {
  StreamRef s = work_stream(a, stream);
  HostBuffer b(buffer, false);
  prepare_use(a, s);
  copy_extent_from_host(a.view, b.view.buf, static_cast<std::size_t>(b.view.len), s);
  note_use(a, s);
}

void copy_from_device_py(PyDeviceArray& a, nb::handle src, nb::handle stream) {
  nb::object other = as_cuda_array(src, nb::none());
  PyDeviceArray& b = nb::cast<PyDeviceArray&>(other);
  StreamRef s = work_stream(a, stream);
  prepare_use(a, s);
  if (&a != &b) prepare_use(b, s);
  copy_between_views(a.view, b.view, s);
  note_use(a, s);
  note_use(b, s);
}

nb::dict pointer_attributes_of(const PyDeviceArray& a) {
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

nb::dict c_import_for_tests(nb::handle obj, std::uint32_t flags, std::uintptr_t consumer_stream) {
  CubridgeArray a{};
  if (c_array_from_pyobject(obj.ptr(), flags, consumer_stream, &a) != 0) throw nb::python_error();
  nb::dict d;
  d["version"] = a.version;
  d["flags"] = a.flags;
  d["data"] = reinterpret_cast<std::uintptr_t>(a.data);
  d["typestr"] = std::string(a.typestr);
  d["itemsize"] = a.itemsize;
  d["device_id"] = a.device_id;
  d["stream"] = a.stream;
  d["shape"] = nb::steal(cai_detail::int_tuple({a.shape, static_cast<std::size_t>(a.ndim)}));
  d["strides"] = nb::steal(cai_detail::int_tuple({a.strides, static_cast<std::size_t>(a.ndim)}));
  d["owner"] = a.owner ? nb::borrow(static_cast<PyObject*>(a.owner)) : nb::none();
  d["mask"] = a.mask ? nb::borrow(static_cast<PyObject*>(a.mask)) : nb::none();
  c_array_release(&a);
  return d;
}

/// Nanoseconds per from_pyobject + release pair, timed inside C++ (what a C/C++ caller pays).
double c_import_ns(nb::handle obj, int repeat) {
  CubridgeArray a{};
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < repeat; ++i) {
    if (c_array_from_pyobject(obj.ptr(), 0, CUBRIDGE_ARRAY_NO_STREAM, &a) != 0) throw nb::python_error();
    c_array_release(&a);
  }
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / repeat;
}

/// Exercises the header-only extension-author helper (cubridge/array/python_array.hpp) from Python tests.
nb::dict cpp_helper_import(nb::handle obj, nb::handle typestr, int ndim, const std::string& order, bool writable,
                           std::uintptr_t consumer_stream) {
  ArrayRequirements req;
  if (!typestr.is_none()) req.dtype = parse_typestr(nb::cast<std::string>(typestr), "typestr");
  req.ndim = ndim;
  req.order = order == "C" ? ArrayRequirements::Order::c : order == "F" ? ArrayRequirements::Order::f
              : order == "CF" ? ArrayRequirements::Order::c_or_f : ArrayRequirements::Order::any;
  req.writable = writable;
  std::optional<StreamRef> consumer;
  if (consumer_stream != 0) consumer = StreamRef::from_cai(consumer_stream);
  ArrayView v = array_from_python(obj.ptr(), req, consumer);
  nb::dict d;
  d["ptr"] = v.address();
  d["shape"] = nb::steal(cai_detail::int_tuple(v.shape()));
  d["strides"] = nb::steal(cai_detail::int_tuple(v.strides()));
  d["typestr"] = std::string(v.dtype().typestr());
  d["readonly"] = v.read_only();
  d["stream"] = v.stream() ? nb::object(nb::int_(v.stream()->cai_value())) : nb::object(nb::none());
  d["owner_count"] = v.owner().use_count();
  return d;
}

/// Drives a type's published DLPack exchange table the way a C consumer would (tests only): borrowed
/// export, owning export and re-import through the table, and the current work stream.
nb::dict exchange_table_selftest(nb::handle obj) {
  const CubridgeDLPackExchangeAPI* api = exchange_api_of(Py_TYPE(obj.ptr()));
  if (api == nullptr) throw nb::type_error("the type publishes no usable __dlpack_c_exchange_api__");
  nb::dict d;
  d["version"] = nb::make_tuple(api->header.version.major, api->header.version.minor);
  CubridgeDLTensor t{};
  if (api->dltensor_from_py_object_no_sync(obj.ptr(), &t) != 0) throw nb::python_error();
  d["borrowed_shape"] = nb::steal(cai_detail::int_tuple({t.shape, static_cast<std::size_t>(t.ndim)}));
  d["borrowed_strides"] = nb::steal(cai_detail::int_tuple({t.strides, static_cast<std::size_t>(t.ndim)}));
  d["borrowed_data"] = reinterpret_cast<std::uintptr_t>(t.data);
  CubridgeDLManagedTensorVersioned* mt = nullptr;
  if (api->managed_tensor_from_py_object_no_sync(obj.ptr(), &mt) != 0) throw nb::python_error();
  d["flags"] = mt->flags;
  void* back = nullptr;
  if (api->managed_tensor_to_py_object_no_sync(mt, &back) != 0) throw nb::python_error();
  d["reimported"] = nb::steal(static_cast<PyObject*>(back));
  void* stream = nullptr;
  if (api->current_work_stream(CUBRIDGE_DL_CUDA, 0, &stream) != 0) throw nb::python_error();
  d["work_stream"] = reinterpret_cast<std::uintptr_t>(stream);
  return d;
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const MaskNotSupported& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (const ExportError& e) {
    PyErr_SetString(PyExc_BufferError, e.what());
  } catch (const PythonArrayError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  }
}

}  // namespace

namespace {

/// The hot path of the C API for producers that publish a borrowed DLPack export (PyTorch, us):
/// fills the struct straight from the DLTensor, with no allocation.
void fill_from_dltensor(const CubridgeDLTensor& t, PyObject* owner, StreamRef stream, bool sync, CubridgeArray* out) {
  DType dtype = from_dlpack_dtype(t.dtype);
  if (t.device.device_type != CUBRIDGE_DL_CUDA && t.device.device_type != CUBRIDGE_DL_CUDA_MANAGED &&
      t.device.device_type != CUBRIDGE_DL_CUDA_HOST)
    throw nb::value_error(("cubridge array C API: DLPack device type " + std::to_string(t.device.device_type) +
                           " is not GPU-accessible (accepted: 2, 3, 13)").c_str());
  if (t.ndim < 0 || t.ndim > CUBRIDGE_ARRAY_MAX_NDIM)
    throw nb::value_error(("cubridge array C API: ndim " + std::to_string(t.ndim) + " is outside 0.." +
                           std::to_string(CUBRIDGE_ARRAY_MAX_NDIM)).c_str());
  out->version = CUBRIDGE_ARRAY_VERSION;
  out->data = static_cast<char*>(t.data) + t.byte_offset;
  out->ndim = t.ndim;
  out->device_id = t.device.device_id;
  std::strncpy(out->typestr, dtype.typestr(), sizeof(out->typestr) - 1);
  out->typestr[sizeof(out->typestr) - 1] = '\0';
  out->itemsize = dtype.itemsize;
  out->kind = dtype.kind;
  out->byteorder = dtype.byteorder;
  out->reserved0 = 0;
  for (auto& r : out->reserved) r = 0;
  std::int64_t step = dtype.itemsize;
  bool c = true;
  for (int i = t.ndim; i-- > 0;) {
    out->shape[i] = t.shape[i];
    out->strides[i] = t.strides ? t.strides[i] * static_cast<std::int64_t>(dtype.itemsize) : step;
    if (t.shape[i] != 1 && out->strides[i] != step) c = false;
    step *= t.shape[i];
  }
  out->flags = CUBRIDGE_ARRAY_HAS_STREAM | (c ? CUBRIDGE_ARRAY_C_CONTIGUOUS : 0u) | (sync ? CUBRIDGE_ARRAY_SYNC : 0u);
  if (t.ndim <= 1 && c) out->flags |= CUBRIDGE_ARRAY_F_CONTIGUOUS;
  out->stream = stream.cai_value();
  Py_INCREF(owner);
  out->owner = owner;
  out->mask = nullptr;
}

}  // namespace

int c_array_from_pyobject(void* obj, std::uint32_t flags, std::uintptr_t consumer_stream, CubridgeArray* out) noexcept {
  if (out == nullptr) {
    PyErr_SetString(PyExc_ValueError, "cubridge array C API: `out` is NULL");
    return -1;
  }
  out->owner = nullptr;
  out->mask = nullptr;
  try {
    nb::handle h(static_cast<PyObject*>(obj));
    const bool sync = (flags & CUBRIDGE_IMPORT_NO_SYNC) == 0 && consumer_sync_default();
    std::optional<StreamRef> consumer;
    if (consumer_stream != CUBRIDGE_ARRAY_NO_STREAM) consumer = StreamRef::from_cai(consumer_stream);
    std::optional<StreamRef> producer;
    int device = -1;
    if (nb::isinstance<PyDeviceArray>(h)) {
      PyDeviceArray& a = nb::cast<PyDeviceArray&>(h);
      c_api_detail::fill(a.view, h.ptr(), a.mask.is_valid() ? a.mask.ptr() : nullptr, out);
      producer = a.view.stream();
      device = a.view.device();
      if (!a.view.synchronizes()) producer.reset();
    } else if (const CubridgeDLPackExchangeAPI* api = exchange_api_of(Py_TYPE(h.ptr()));
               api != nullptr && api->dltensor_from_py_object_no_sync != nullptr) {
      CubridgeDLTensor t{};
      if (api->dltensor_from_py_object_no_sync(h.ptr(), &t) != 0) throw nb::python_error();
      StreamRef work = exchange_work_stream(api, t.device.device_type, t.device.device_id);
      fill_from_dltensor(t, h.ptr(), work, sync, out);
      producer = work;
      device = t.device.device_id;
    } else {
      nb::object stream_obj = consumer ? nb::object(nb::int_(consumer->cai_value())) : nb::object(nb::none());
      nb::object made;
      if (exchange_api_of(Py_TYPE(h.ptr())) != nullptr || PyObject_HasAttr(h.ptr(), Keys::get().dlpack)) {
        PyDeviceArray a = array_from_dlpack(h, stream_obj, sync);
        a.producer = nb::borrow(h);
        made = wrap(std::move(a));
      } else {
        made = as_cuda_array(h, sync ? nb::handle(Py_True) : nb::handle(Py_False));
      }
      PyDeviceArray& a = nb::cast<PyDeviceArray&>(made);
      c_api_detail::fill(a.view, made.ptr(), a.mask.is_valid() ? a.mask.ptr() : nullptr, out);
      producer = a.view.synchronizes() ? a.view.stream() : std::nullopt;
      device = a.view.device();
    }
    if ((flags & CUBRIDGE_IMPORT_WRITABLE) && (out->flags & CUBRIDGE_ARRAY_READ_ONLY))
      throw nb::value_error("cubridge array C API: the array is read-only but CUBRIDGE_IMPORT_WRITABLE was requested");
    if (sync && consumer && producer && !(*producer == *consumer)) {
      StreamRef p[] = {*producer};
      join_streams(*consumer, p, device);
    }
    return 0;
  } catch (...) {
    c_array_release(out);
    set_python_error();
    return -1;
  }
}

void bind_array(nb::module_& m) {
  nb::register_exception_translator(translate);
  auto cls = nb::class_<PyDeviceArray>(m, "DeviceArray",
      "A view of GPU memory (cubridge's own, or another library's through CAI v3 / DLPack).")
      .def_prop_ro("__cuda_array_interface__", [](PyDeviceArray& a) { return cai_dict(a); })
      .def_prop_ro("shape", [](PyDeviceArray& a) { return shape_tuple(a); })
      .def_prop_ro("strides", [](PyDeviceArray& a) { return strides_tuple(a); })
      .def_prop_ro("ndim", [](const PyDeviceArray& a) { return a.view.ndim(); })
      .def_prop_ro("size", [](const PyDeviceArray& a) { return a.view.size(); })
      .def_prop_ro("itemsize", [](const PyDeviceArray& a) { return a.view.itemsize(); })
      .def_prop_ro("nbytes", [](const PyDeviceArray& a) { return a.view.nbytes(); })
      .def_prop_ro("typestr", [](PyDeviceArray& a) { return typestr_str(a); })
      .def_prop_ro("descr", [](const PyDeviceArray& a) { return a.descr.is_valid() ? a.descr : nb::none(); })
      .def_prop_ro("readonly", [](const PyDeviceArray& a) { return a.view.read_only(); })
      .def_prop_ro("device_id", [](const PyDeviceArray& a) { return a.view.device(); })
      .def_prop_ro("ptr", [](const PyDeviceArray& a) { return a.view.address(); })
      .def_prop_ro("stream", &stream_of, "The default stream (CAI v3 'stream' of the producer), or None.")
      .def_prop_ro("sync", [](const PyDeviceArray& a) { return a.view.synchronizes(); })
      .def_prop_ro("mask", [](const PyDeviceArray& a) { return a.mask.is_valid() ? a.mask : nb::none(); })
      .def_prop_ro("base", [](const PyDeviceArray& a) { return a.producer.is_valid() ? a.producer : nb::none(); })
      .def_prop_ro("pointer_attributes", &pointer_attributes_of)
      .def_prop_ro("_extent", [](const PyDeviceArray& a) { auto e = a.view.extent(); return nb::make_tuple(e.begin, e.size()); })
      .def("is_c_contiguous", [](const PyDeviceArray& a) { return a.view.is_c_contiguous(); })
      .def("is_f_contiguous", [](const PyDeviceArray& a) { return a.view.is_f_contiguous(); })
      .def("__len__", [](const PyDeviceArray& a) {
        if (a.view.ndim() == 0) throw nb::type_error("len() of a 0-d DeviceArray");
        return a.view.shape()[0]; })
      .def("__getitem__", [](nb::handle self, nb::handle key) { return getitem(self, nb::cast<PyDeviceArray&>(self), key); })
      .def("reshape", [](nb::handle self, nb::handle shape, const std::string& order) {
        PyDeviceArray& a = nb::cast<PyDeviceArray&>(self);
        std::vector<std::int64_t> s;
        cai_detail::int_sequence(shape.ptr(), "['shape']", s);
        return wrap(derived(self, a, a.view.reshape(s, order.empty() ? 'C' : order[0]))); },
        nb::arg("shape"), nb::arg("order") = "C")
      .def("transpose", [](nb::handle self) { PyDeviceArray& a = nb::cast<PyDeviceArray&>(self); return wrap(derived(self, a, a.view.transposed())); })
      .def_prop_ro("T", [](nb::handle self) { PyDeviceArray& a = nb::cast<PyDeviceArray&>(self); return wrap(derived(self, a, a.view.transposed())); })
      .def("__dlpack__", [](nb::handle self, nb::handle stream, nb::handle max_version, nb::handle dl_device, nb::handle copy) {
        return dlpack_export(self, nb::cast<PyDeviceArray&>(self), stream, max_version, dl_device, copy); },
        nb::kw_only(), nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(),
        nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none())
      .def("__dlpack_device__", [](const PyDeviceArray& a) { auto d = dlpack_device_of(a); return nb::make_tuple(d.type, d.id); })
      .def("_copy_extent_to_host", &copy_extent_to_host_py, nb::arg("buffer"), nb::arg("stream").none() = nb::none())
      .def("_copy_from_host", &copy_from_host_py, nb::arg("buffer"), nb::arg("stream").none() = nb::none())
      .def("copy_from", &copy_from_device_py, nb::arg("src"), nb::arg("stream").none() = nb::none(),
           "Copies another GPU array (same dtype, shape and layout) into this one, stream-ordered.")
      .def("_note_pending", [](PyDeviceArray& a, nb::handle s) { note_use(a, to_stream_ref(s, StreamRef::legacy())); })
      .def("__repr__", [](PyDeviceArray& a) {
        return "<cubridge.DeviceArray shape=" + py_repr(shape_tuple(a)) + " typestr='" + a.view.dtype().typestr() +
               "' device=" + std::to_string(a.view.device()) + (a.view.read_only() ? " read-only" : "") + ">"; });
  cls.attr("__dlpack_c_exchange_api__") = nb::capsule(dlpack_exchange_table(), CUBRIDGE_DLPACK_EXCHANGE_API_CAPSULE);

  m.def("as_cuda_array", &as_cuda_array, nb::arg("obj"), nb::arg("sync").none() = nb::none(),
        "A DeviceArray viewing `obj` (CAI v3, else DLPack) that keeps `obj` alive.");
  m.def("from_cuda_array_interface", &from_cai, nb::arg("desc"), nb::arg("owner").none() = nb::none(),
        nb::arg("sync").none() = nb::none(), "A DeviceArray from a CAI dict; keeps `owner` alive.");
  m.def("from_dlpack", &from_dlpack, nb::arg("obj"), nb::arg("stream").none() = nb::none(),
        nb::arg("sync").none() = nb::none(), "A DeviceArray from a DLPack producer (exchange table, then __dlpack__).");
  m.def("_empty", &empty, nb::arg("shape"), nb::arg("typestr"), nb::arg("order"), nb::arg("stream").none(),
        nb::arg("descr").none());
  m.def("array_options", [](nb::handle sync, nb::handle export_stream) {
        if (!sync.is_none()) set_consumer_sync_default(sync_arg(sync));
        if (!export_stream.is_none()) set_export_stream_enabled(sync_arg(export_stream));
        nb::dict d;
        d["sync"] = consumer_sync_default();
        d["export_stream"] = export_stream_enabled();
        return d; }, nb::arg("sync").none() = nb::none(), nb::arg("export_stream").none() = nb::none(),
        "Process-wide array switches: consumer sync (default on) and whether exports name their stream.");
  m.def("_c_import", &c_import_for_tests, nb::arg("obj"), nb::arg("flags") = 0, nb::arg("consumer_stream") = 0);
  m.def("_cpp_helper_import", &cpp_helper_import, nb::arg("obj"), nb::arg("typestr").none() = nb::none(),
        nb::arg("ndim") = -1, nb::arg("order") = "any", nb::arg("writable") = false, nb::arg("consumer_stream") = 0);
  m.def("_exchange_table_selftest", &exchange_table_selftest, nb::arg("obj"));
  m.def("_c_import_ns", &c_import_ns, nb::arg("obj"), nb::arg("repeat") = 100000);
  m.attr("_array_c_api") = nb::capsule(array_c_api_table(), CUBRIDGE_ARRAY_API_CAPSULE);
}

}  // namespace cubridge::python
