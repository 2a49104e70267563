// Internal: bindings of the array face (cubridge.DeviceArray and the import functions). The rules live
// in src/array/ (C++) and python/src/py_*.hpp (the Python-object glue, header-only, included here only).
#include <nanobind/stl/string.h>

#include <chrono>
#include <utility>

#include "py_c_api.hpp"
#include "bindings.hpp"
#include "cubridge/array.hpp"
#include "cubridge/array/python_array.hpp"

namespace cubridge::python {

namespace {

PyObject* g_array_interface_error = nullptr;  // cubridge.ArrayInterfaceError

// ---- test and benchmark hooks (underscore names) ----

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

/// Nanoseconds per call of each step the C API's import of a PyTorch tensor takes, each timed alone in a C++ loop
/// (benches: bench/probe_torch_import.py): {step: ns}; the glue's step is absent where the glue is not usable.
nb::dict torch_import_steps_ns(nb::handle obj, int repeat) {
  auto timed = [repeat](auto&& step) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < repeat; ++i) step();
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / repeat;
  };
  const CubridgeDLPackExchangeAPI* api = exchange_api_of(Py_TYPE(obj.ptr()));
  if (api == nullptr) throw nb::type_error(("_torch_import_steps_ns: " + py_type_name(obj) + " has no exchange table").c_str());
  nb::dict d;
  std::optional<CubridgeDLTensor> described = torch_bits::described(obj.ptr());
  if (described) d["glue dltensor (conj/neg bits included)"] = timed([&] { described = torch_bits::described(obj.ptr()); });
  CubridgeDLTensor t{};
  d["exchange table dltensor_from_py_object_no_sync"] = timed([&] {
    check_producer_call(api->dltensor_from_py_object_no_sync(obj.ptr(), &t), obj.ptr(), "dltensor_from_py_object_no_sync");
  });
  d["exchange table current_work_stream"] = timed([&] { (void)exchange_work_stream(api, t.device.device_type, t.device.device_id); });
  CubridgeArray a{};
  d["the struct filled from the DLTensor + release"] = timed([&] {
    c_api_detail::fill_from_dltensor(t, obj.ptr(), StreamRef::legacy(), true, &a);
    c_array_release(&a);
  });
  d["from_pyobject + release"] = c_import_ns(obj, repeat);
  return d;
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
  check_producer_call(api->dltensor_from_py_object_no_sync(obj.ptr(), &t), obj.ptr(), "dltensor_from_py_object_no_sync");
  d["borrowed_shape"] = nb::steal(cai_detail::int_tuple({t.shape, static_cast<std::size_t>(t.ndim)}));
  d["borrowed_strides"] = nb::steal(cai_detail::int_tuple({t.strides, static_cast<std::size_t>(t.ndim)}));
  d["borrowed_data"] = reinterpret_cast<std::uintptr_t>(t.data);
  CubridgeDLManagedTensorVersioned* mt = nullptr;
  check_producer_call(api->managed_tensor_from_py_object_no_sync(obj.ptr(), &mt), obj.ptr(), "managed_tensor_from_py_object_no_sync");
  d["flags"] = mt->flags;
  void* back = nullptr;
  check_producer_call(api->managed_tensor_to_py_object_no_sync(mt, &back), obj.ptr(), "managed_tensor_to_py_object_no_sync");
  d["reimported"] = nb::steal(static_cast<PyObject*>(back));
  void* stream = nullptr;
  check_producer_call(api->current_work_stream(CUBRIDGE_DL_CUDA, 0, &stream), obj.ptr(), "current_work_stream");
  d["work_stream"] = reinterpret_cast<std::uintptr_t>(stream);
  return d;
}

/// A borrowed DLTensor's facts as a dict (tests).
nb::dict dltensor_facts(const CubridgeDLTensor& t) {
  nb::dict d;
  d["data"] = reinterpret_cast<std::uintptr_t>(t.data);
  d["device"] = nb::make_tuple(t.device.device_type, t.device.device_id);
  d["dtype"] = nb::make_tuple(t.dtype.code, t.dtype.bits, t.dtype.lanes);
  d["shape"] = nb::steal(cai_detail::int_tuple({t.shape, static_cast<std::size_t>(t.ndim)}));
  d["strides"] = t.strides == nullptr ? nb::object(nb::none())
                                      : nb::steal(cai_detail::int_tuple({t.strides, static_cast<std::size_t>(t.ndim)}));
  d["byte_offset"] = t.byte_offset;
  return d;
}

/// A PyTorch tensor described both ways (tests: the glue's reader equals the protocol's): {"glue": facts or None
/// where the glue declines, "exchange": facts from the exchange table's dltensor_from_py_object_no_sync}. Raises
/// what either raises (the glue's refusal of a conjugated or negated tensor).
nb::dict torch_dltensor_both(nb::handle obj) {
  nb::dict d;
  const std::optional<CubridgeDLTensor> glue = torch_bits::described(obj.ptr());
  d["glue"] = glue ? nb::object(dltensor_facts(*glue)) : nb::object(nb::none());
  const CubridgeDLPackExchangeAPI* api = exchange_api_of(Py_TYPE(obj.ptr()));
  if (api == nullptr) throw nb::type_error("the type publishes no usable __dlpack_c_exchange_api__");
  CubridgeDLTensor t{};
  check_producer_call(api->dltensor_from_py_object_no_sync(obj.ptr(), &t), obj.ptr(), "dltensor_from_py_object_no_sync");
  d["exchange"] = dltensor_facts(t);
  return d;
}

/// The route import_array takes for `obj`'s type (tests: the per-type decision and its cache).
const char* import_route(nb::handle obj) {
  switch (route_of(Py_TYPE(obj.ptr()))) {
    case Route::ours: return "ours";
    case Route::exchange: return "exchange";
    case Route::cupy: return "cupy";
    case Route::numba: return "numba";
    case Route::attributes: break;
  }
  return "attributes";
}

/// The CuPy reader on any object, with the module state CuPy's export reads passed in as Python callables
/// (tests: a fake CuPy type on a machine without CuPy, and real CuPy arrays compared with their CAI on a
/// GPU): through the attributes, or with `from_object` through the fields' offsets this process learnt from
/// CuPy (py_cupy_layout.hpp). None when the reader declines (the CAI would be read instead).
nb::object cupy_view_for_tests(nb::handle obj, nb::handle util, nb::handle current_stream,
                               nb::handle default_stream_ptr, nb::handle sync, bool from_object) {
  import_detail::CupyFacts facts{Py_TYPE(obj.ptr()), util.ptr(), current_stream.ptr(), default_stream_ptr.ptr()};
  if (from_object) {
    const import_detail::CupyFacts& process = import_detail::cupy_facts();
    if (!process.layout.known() || Py_TYPE(obj.ptr()) != process.ndarray)
      throw nb::value_error("_cupy_view: from_object needs a cupy.ndarray in a process that learnt its layout");
    facts.layout = process.layout;
  }
  ImportRequest req;
  req.sync = sync_arg(sync);
  ImportedView v = cupy_view(obj, facts, req);
  if (!v) return nb::none();
  PyDeviceArray a;
  a.view = std::move(v).take();
  a.producer = nb::borrow(obj);
  return wrap(std::move(a));
}

/// What cupy_facts() resolved (see _cupy_reader's docstring); None before CuPy is imported.
nb::object cupy_reader_state() {
  const import_detail::CupyFacts& c = import_detail::cupy_facts();
  if (!c.usable()) return nb::none();
  nb::dict d;
  if (c.layout.known()) {
    nb::dict o;
    o["shape"] = c.layout.shape;
    o["strides"] = c.layout.strides;
    o["dtype"] = c.layout.dtype;
    o["data"] = c.layout.data;
    o["memory_pointer.ptr"] = c.layout.address;
    d["layout"] = o;
  } else {
    d["layout"] = nb::none();
  }
  d["stream_functions"] = c.stream_functions.current != nullptr && c.stream_functions.default_stream != nullptr;
  d["current_stream_from"] = c.stream_functions.current_from != nullptr ? nb::object(nb::str(c.stream_functions.current_from)) : nb::none();
  return d;
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const MaskNotSupported& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (const ExportError& e) {
    PyErr_SetString(PyExc_BufferError, e.what());
  } catch (const ArrayInterfaceError& e) {
    PyErr_SetString(g_array_interface_error, e.what());
  } catch (const PythonArrayError& e) {  // a description read from Python breaks the same specifications
    PyErr_SetString(g_array_interface_error, e.what());
  }
}

}  // namespace

void bind_array(nb::module_& m) {
  g_array_interface_error = PyErr_NewExceptionWithDoc(
      "cubridge.ArrayInterfaceError",
      "An array's __cuda_array_interface__ or DLPack description breaks its specification (the message names "
      "the key, the value and what would be accepted).",
      error_bases(m, PyExc_ValueError).ptr(), nullptr);
  m.attr("ArrayInterfaceError") = nb::handle(g_array_interface_error);
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
      .def("__getitem__", [](nb::handle self, nb::handle key) { return array_getitem(self, nb::cast<PyDeviceArray&>(self), key); })
      .def("reshape", [](nb::handle self, nb::handle shape, const std::string& order) {
        PyDeviceArray& a = nb::cast<PyDeviceArray&>(self);
        std::vector<std::int64_t> s;
        cai_detail::int_sequence(shape.ptr(), "['shape']", s);
        return wrap(derived_array(self, a, a.view.reshape(s, order.empty() ? 'C' : order[0]))); },
        nb::arg("shape"), nb::arg("order") = "C")
      .def("transpose", [](nb::handle self) { PyDeviceArray& a = nb::cast<PyDeviceArray&>(self); return wrap(derived_array(self, a, a.view.transposed())); })
      .def_prop_ro("T", [](nb::handle self) { PyDeviceArray& a = nb::cast<PyDeviceArray&>(self); return wrap(derived_array(self, a, a.view.transposed())); })
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
  m.def("device_array", &device_array, nb::arg("shape").none(),
        nb::arg("dtype") = nb::borrow(reinterpret_cast<PyObject*>(&PyFloat_Type)), nb::arg("order") = "C",
        nb::arg("stream").none() = nb::none(), nb::kw_only(), nb::arg("device").none() = nb::none(),
        "Uninitialised device memory (numba.cuda.device_array). `stream` becomes the array's default\n"
        "stream, which its `__cuda_array_interface__` names; without one it exports `stream: None`.\n"
        "`device` (an ordinal or a cubridge.Device) allocates there; None means the current device.");
  m.def("_resolve_dtype", &resolved_dtype_facts, nb::arg("dtype"),
        "(typestr, subarray extents, descr or None) that device_array reads from a dtype argument.");
  m.def("_empty", &empty_device_array, nb::arg("shape"), nb::arg("typestr"), nb::arg("order"), nb::arg("stream").none(),
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
  m.def("_import_route", &import_route, nb::arg("obj"));
  m.def("_cupy_view", &cupy_view_for_tests, nb::arg("obj"), nb::arg("util"), nb::arg("current_stream"),
        nb::arg("default_stream_ptr"), nb::arg("sync").none() = nb::none(), nb::arg("from_object") = false);
  m.def("_import_memo", [] {
    const memo_detail::Counts& c = memo_detail::counts();
    nb::dict d;
    d["hits"] = c.hits;
    d["kept"] = c.kept;
    d["cai_dict_hits"] = cai_memo::g_hits;
    return d;
  }, "The import memos' counts (py_import_memo.hpp): lookups that found their view, views kept; and "
     "`__cuda_array_interface__` dicts found unchanged (py_cai_dict_memo.hpp).");
  m.def("_with_memo_pins", [](nb::callable f) {
    MemoPins pins;
    return f();
  }, nb::arg("f"), "f() with the import memo's views pinned, as during a launch (tests).");
  m.def("_cupy_reader", &cupy_reader_state, "How this process reads CuPy arrays (tests, benches): the learnt "
        "offsets of an ndarray's fields (None: through its attributes), whether CuPy's C stream functions are used, and "
        "the module whose get_current_stream_ptr gives the current stream (None: through its Python function).");
  m.def("_exchange_table_selftest", &exchange_table_selftest, nb::arg("obj"));
  m.def("_c_import_ns", &c_import_ns, nb::arg("obj"), nb::arg("repeat") = 100000);
  m.def("_torch_dltensor_both", &torch_dltensor_both, nb::arg("obj"));
  m.def("_torch_import_steps_ns", &torch_import_steps_ns, nb::arg("obj"), nb::arg("repeat") = 100000,
        "{step: ns per call} of the C API's import of a PyTorch tensor, each step timed alone in C++ (benches).");
  m.def("_torch_glue_reader", [](bool on) { return std::exchange(torch_bits::glue_reader_on(), on); }, nb::arg("on"),
        "Whether the imports read PyTorch tensors through cubridge._torch_glue (where it is usable) from now on; the "
        "previous setting. Benches and tests compare the two paths with it.");
  m.def("_torch_glue_table", [] {
    const torch_bits::Torch& t = torch_bits::torch();
    return t.glue_capsule != nullptr ? nb::borrow(t.glue_capsule) : nb::none();
  }, "cubridge._torch_glue's table where the package was built against the PyTorch this process imported (None "
     "otherwise, or before torch is imported): the one decision, which the imports and cubridge.torch's direct call share.");
  m.attr("_array_c_api") = nb::capsule(array_c_api_table(), CUBRIDGE_ARRAY_API_CAPSULE);
}

}  // namespace cubridge::python
