// Internal (Python glue of the array face): the one place that decides how a Python object becomes an
// array: our DeviceArray as it is; a type publishing the DLPack C exchange table through the table (it
// names the producer's current stream, where PyTorch's CAI is version 2 without one); CuPy's ndarray
// through its attributes; else the object's `__cuda_array_interface__`; else its `__dlpack__`. The route
// is decided once per Python type (a bounded cache that holds no reference to the types). import_array is the
// readers' part (reader_view: the exchange table, CuPy's and numba's readers) then the protocols' (import_protocols);
// a lazy launch asks the two parts itself, taking a reader's view straight into its slot. Used by as_cuda_array,
// the C API, kernel arguments and @jit's typeof.
// Implements: CAI v3 "stream" (consumer side) for every route; DLPack "Python specification" (consumer).
#pragma once

#include <array>
#include <optional>

#include "py_cai.hpp"
#include "py_bfloat16.hpp"
#include "py_cupy_layout.hpp"
#include "py_dlpack.hpp"
#include "py_dict_version.hpp"
#include "py_identity_cache.hpp"
#include "py_import_memo.hpp"
#include "py_numba_reader.hpp"
#include "py_torch_bits.hpp"

namespace cubridge::python {

/// How objects of one Python type are imported.
enum class Route : std::uint8_t { ours, exchange, cupy, numba, attributes };

/// What a caller asks of an import.
struct ImportRequest {
  bool sync = true;  // the consumer rule of CAI v3 "stream" (ordering with the producer's stream)
  /// The consumer's stream for a DLPack producer (`__dlpack__(stream=...)`); null or None: the legacy
  /// default stream for `__dlpack__`, the producer's current work stream for the exchange table.
  nb::handle stream;
  nb::handle stream_or_none() const noexcept { return stream.is_valid() ? stream : nb::handle(Py_None); }
  /// The caller keeps the object alive for as long as it uses the view (a launch holds its arguments):
  /// the view gets no owner, and an exchange-table producer's borrowed DLTensor is read with no copy.
  bool borrow = false;
  /// A `__dlpack__`-only producer is not imported but reported deferred (a launch first learns its stream).
  bool defer_dlpack = false;
  /// An exchange-table export that fails (DLPack cannot express record dtypes) falls back to the
  /// object's CAI when it has one (kernel arguments: a structured array).
  bool cai_after_exchange = false;
  /// Ask the driver whether a CAI pointer is GPU-accessible. `typeof` reads only the description (as
  /// numba's does) and turns it off; everything that will use the memory keeps it.
  bool check_pointer = true;
  /// The caller borrows a view the import memo holds (py_import_memo.hpp), in ImportedArray::remembered,
  /// instead of a copy in `made`: a launch, whose MemoPins keep the view until it returns.
  bool share_remembered = false;
  /// What a CuPy array's CAI would say of CuPy's state (its export version, and for version 3 the stream
  /// it names), read for the first CuPy array of a request and reused by the others: a launch shares one
  /// request among its arguments, and CuPy's export reads the same thread state for each of them.
  struct CupyState {
    long version = 0;
    std::uintptr_t stream = 0;
  };
  mutable std::optional<CupyState> cupy_state;
  /// An exchange-table producer's current work stream on one device, asked for the first tensor of a
  /// request on that device and reused by the next ones (a launch's tensors: PyTorch answers from the same
  /// thread state for each). Forgotten when an import on another route runs, which may run Python code
  /// (a CAI getter) that changes the producer's current stream.
  struct ExchangeStream {
    const CubridgeDLPackExchangeAPI* api = nullptr;
    int device_type = 0;
    int device_id = 0;
    StreamRef stream = StreamRef::legacy();
  };
  mutable std::optional<ExchangeStream> exchange_stream;
};

/// A foreign array's view as a reader gives it: made for this import, or one the import memo holds
/// (borrowed: see remembered_view); empty when the reader declines.
struct ImportedView {
  std::optional<ArrayView> owned;
  const ArrayView* remembered = nullptr;

  // Not an aggregate: a launch value-initializes one per argument, which would zero the whole storage first.
  ImportedView() noexcept {}
  explicit ImportedView(ArrayView&& v) noexcept : owned(std::move(v)) {}
  explicit ImportedView(const ArrayView* r) noexcept : remembered(r) {}

  explicit operator bool() const noexcept { return owned.has_value() || remembered != nullptr; }
  const ArrayView& get() const noexcept { return owned ? *owned : *remembered; }
  /// The view itself (the memo's is copied).
  ArrayView take() && { return owned ? std::move(*owned) : ArrayView(*remembered); }
};

/// The result of import_array: our own array (not copied), a new one, a remembered view (only where the
/// request shares them), or nothing.
struct ImportedArray {
  PyDeviceArray* ours = nullptr;
  std::optional<PyDeviceArray> made;
  const ArrayView* remembered = nullptr;  // ImportRequest::share_remembered: valid while the launch's MemoPins live
  bool deferred = false;  // a DLPack-only producer left for the caller (ImportRequest::defer_dlpack)

  ImportedArray() noexcept {}  // not an aggregate: see ImportedView

  explicit operator bool() const noexcept { return ours != nullptr || made.has_value() || remembered != nullptr; }
  /// Our array or the new one (not for a remembered view).
  PyDeviceArray& get() noexcept { return ours != nullptr ? *ours : *made; }

  /// A new array of `view`, with `obj` as its producer (held) unless the request borrows the object.
  static ImportedArray make(ArrayView&& view, nb::handle obj, const ImportRequest& req) {
    ImportedArray out;
    out.made.emplace();
    out.made->view = std::move(view);
    if (!req.borrow) out.made->producer = nb::borrow(obj);
    return out;
  }
};

namespace import_detail {

/// CuPy's ndarray type and the module state its `__cuda_array_interface__` reads (the export version
/// and the current stream), resolved once when CuPy is first seen; every field null when CuPy is not
/// imported or does not look as expected (then CuPy arrays go through their CAI like anybody's).
struct CupyFacts {
  PyTypeObject* ndarray = nullptr;
  PyObject* util = nullptr;                // cupy._util: CUDA_ARRAY_INTERFACE_EXPORT_VERSION
  PyObject* current_stream = nullptr;      // cupy.cuda.stream.get_current_stream (its .ptr)
  PyObject* default_stream_ptr = nullptr;  // cupy_backends.cuda.stream.get_default_stream_ptr
  // The C functions CuPy's export itself calls for these two, where CuPy exports them: no Python call.
  cupy_layout::StreamFunctions stream_functions;
  // Where an ndarray keeps its facts: read from the object when known, else through its attributes.
  cupy_layout::Offsets layout;

  bool usable() const noexcept { return ndarray != nullptr; }
};

/// Resolved at most once per process, and only after the program imported CuPy itself (never imported
/// here first: a process without CuPy pays nothing). The references are kept for the process.
inline const CupyFacts& cupy_facts() {
  static CupyFacts facts;
  static bool resolved = false;
  if (resolved) return facts;
  if (!module_imported("cupy")) return facts;  // asked again later: CuPy may be imported after our first import
  resolved = true;
  CupyFacts f;
  PyObject* type = module_attribute("cupy", "ndarray");
  f.util = module_attribute("cupy._util", nullptr);
  f.current_stream = module_attribute("cupy.cuda.stream", "get_current_stream");
  f.default_stream_ptr = module_attribute("cupy_backends.cuda.stream", "get_default_stream_ptr");
  if (type != nullptr && PyType_Check(type) && f.util != nullptr && f.current_stream != nullptr &&
      f.default_stream_ptr != nullptr) {
    f.ndarray = reinterpret_cast<PyTypeObject*>(type);
    f.stream_functions = cupy_layout::stream_functions();
    f.layout = cupy_layout::learn();
    facts = f;
  } else {
    Py_XDECREF(type);
    Py_XDECREF(f.util);
    Py_XDECREF(f.current_stream);
    Py_XDECREF(f.default_stream_ptr);
  }
  return facts;
}

inline Route decide_route(PyTypeObject* tp) {
  if (PyType_IsSubtype(tp, reinterpret_cast<PyTypeObject*>(nb::type<PyDeviceArray>().ptr()))) return Route::ours;
  if (_PyType_Lookup(tp, Keys::get().exchange_api) != nullptr) return Route::exchange;
  // Only CuPy's own type: a subclass may redefine what its interface says.
  if (const CupyFacts& c = cupy_facts(); c.usable() && tp == c.ndarray) return Route::cupy;
  if (numba_reader::is_device_ndarray(tp)) return Route::numba;
  return Route::attributes;
}

/// Whether the weak reference `weak` still refers to `tp`.
inline bool refers_to(PyObject* weak, PyTypeObject* tp) {
#if PY_VERSION_HEX >= 0x030D0000
  PyObject* o = nullptr;
  if (PyWeakref_GetRef(weak, &o) < 0) PyErr_Clear();
  Py_XDECREF(o);  // only compared: the caller holds an object of type `tp`, which keeps `tp` alive
  return o == reinterpret_cast<PyObject*>(tp);
#else
  return PyWeakref_GET_OBJECT(weak) == reinterpret_cast<PyObject*>(tp);
#endif
}

/// How many types the route cache remembers (a program passes few array types; a miss costs a few
/// type lookups, never a wrong answer).
inline constexpr std::size_t kRouteCacheSize = 16;

}  // namespace import_detail

/// The route of `tp`, decided once and cached by the type's identity (route_of below asks it for every type but our
/// own arrays'). A type with a version tag is matched by its tag too: CPython gives every type a tag never given to
/// another and clears it when the type is changed, so a freed type's address reused by a new type, or a type given a
/// new attribute, is decided again. A type without a tag (CPython gives up tagging a type that changed too often, as
/// Python 3.12+ may do for torch.Tensor, changed hundreds of times while PyTorch loads) is matched by a weak reference
/// instead, which dies with the type; such a type keeps the route of its first import, as exchange_api_of keeps its
/// table (the route reads only the bases and `__dlpack_c_exchange_api__`, which a library sets when it makes the
/// class). No strong reference to a type is held.
inline Route cached_route_of(PyTypeObject* tp) {
  struct Entry {
    PyTypeObject* type = nullptr;
    unsigned int tag = 0;
    PyObject* weak = nullptr;  // for a type without a tag: a weak reference to it, else null
    Route route = Route::attributes;
  };
  static std::array<Entry, import_detail::kRouteCacheSize> cache;  // guarded by the GIL
  static std::size_t next = 0;
  // A tag of 0 is no tag (CPython zeroes it when the type changes; Python 3.12 no longer keeps the
  // VALID_VERSION_TAG flag in step, so the tag alone is the test).
  const unsigned int tag = tp->tp_version_tag;
  auto matches = [&](const Entry& e) {
    return e.type == tp && (tag != 0 ? e.tag == tag : e.weak != nullptr && import_detail::refers_to(e.weak, tp));
  };
  static std::size_t last = 0;  // the entry that answered last: a launch's arrays are mostly of one type
  if (matches(cache[last])) return cache[last].route;
  for (std::size_t i = 0; i < cache.size(); ++i)
    if (matches(cache[i])) {
      last = i;
      return cache[i].route;
    }
  const Route r = import_detail::decide_route(tp);
  // _PyType_Lookup above gives the type a tag when it can have one.
  Entry fresh{tp, tp->tp_version_tag, nullptr, r};
  if (fresh.tag == 0) {
    fresh.weak = PyWeakref_NewRef(reinterpret_cast<PyObject*>(tp), nullptr);
    if (fresh.weak == nullptr) {
      PyErr_Clear();  // a type that takes no weak reference is decided at every import
      return r;
    }
  }
  Entry& slot = cache[next++ % cache.size()];
  Py_XDECREF(slot.weak);
  slot = fresh;
  return r;
}

/// route_of with its hottest case, our own arrays, decided inline (a launch asks it of each array argument).
inline Route route_of(PyTypeObject* tp) {
  static PyTypeObject* const ours = reinterpret_cast<PyTypeObject*>(nb::type<PyDeviceArray>().ptr());
  if (tp == ours) return Route::ours;  // a type that lives for the process
  return cached_route_of(tp);
}

namespace import_detail {

/// The memo key of a borrowed DLTensor's view on the producer's work stream `stream`; nullopt where the
/// tensor gives no strides (the memo keeps a view's strides as the reader read them).
inline std::optional<ImportKey> exchange_key(nb::handle obj, const CubridgeDLPackExchangeAPI* api,
                                             const CubridgeDLTensor& t, StreamRef stream, const ImportRequest& req) {
  if (t.ndim < 0 || (t.ndim > 0 && (t.shape == nullptr || t.strides == nullptr))) return std::nullopt;
  const std::size_t n = static_cast<std::size_t>(t.ndim);
  const std::uint64_t dtype = std::uint64_t{t.dtype.code} | std::uint64_t{t.dtype.bits} << 8 |
                              std::uint64_t{t.dtype.lanes} << 16 |
                              std::uint64_t{static_cast<std::uint32_t>(t.device.device_type)} << 32;
  return ImportKey{api, obj.ptr(), nullptr, dtype, reinterpret_cast<std::uintptr_t>(dltensor_data(t)),
                   {t.shape, n}, {t.strides, n}, t.device.device_id, stream.cai_value(), req.sync, req.check_pointer};
}

/// An exchange-table producer's view: the borrowed DLTensor when the caller keeps the object alive and
/// the table has the function (remembered by the import memo), else an owned export; on the producer's
/// current work stream unless the caller named a stream. `described`: the borrowed DLTensor read already
/// (torch_bits::described), else null.
inline ImportedView exchange_view(nb::handle obj, const CubridgeDLPackExchangeAPI* api, const ImportRequest& req,
                                  const CubridgeDLTensor* described) {
  if (req.borrow && (described != nullptr || api->dltensor_from_py_object_no_sync != nullptr)) {
    CubridgeDLTensor t{};
    if (described != nullptr)
      t = *described;
    else
      check_producer_call(api->dltensor_from_py_object_no_sync(obj.ptr(), &t), obj.ptr(),
                          "dltensor_from_py_object_no_sync");
    if (!req.stream_or_none().is_none())  // a borrowed DLTensor carries no read-only flag (the C API reads it so)
      return ImportedView{view_of_dltensor(t, false, nullptr)
                              .with_stream(to_stream_ref(req.stream, StreamRef::legacy(), "from_dlpack: stream"), req.sync)};
    std::optional<ImportRequest::ExchangeStream>& memo = req.exchange_stream;
    if (!memo || memo->api != api || memo->device_type != t.device.device_type || memo->device_id != t.device.device_id)
      memo = ImportRequest::ExchangeStream{api, t.device.device_type, t.device.device_id,
                                           exchange_work_stream(api, t.device.device_type, t.device.device_id)};
    // The producer's answers above ran no Python code: the tensor's shape and strides are still the ones read.
    const std::optional<ImportKey> key = exchange_key(obj, api, t, memo->stream, req);
    if (key)
      if (const ArrayView* seen = remembered_view(*key)) return ImportedView{seen};
    ArrayView v = view_of_dltensor(t, false, nullptr).with_stream(memo->stream, req.sync);
    if (key)
      if (const ArrayView* kept = remember_view(*key, std::move(v))) return ImportedView{kept};
    return ImportedView{std::move(v)};
  }
  return ImportedView{array_from_dlpack(obj, req.stream_or_none(), req.sync).view};
}

/// remember_view for a view view_from_interface made: only where its pointer check, if one was made, is answered
/// by the range cache (pointer_check_cached). Memory the range cache does not keep is asked of the driver at every
/// import, and stays so through the memo.
inline const ArrayView* remember_checked_view(const ImportKey& key, ArrayView&& view) {
  if (key.check_pointer && !view.empty() && !pointer_check_cached(view.address())) return nullptr;
  return remember_view(key, std::move(view));
}

/// A small int attribute value (CuPy's export version) or nullopt when it is not an int.
inline std::optional<long> int_attr(PyObject* o, PyObject* name) {
  PyObject* v = PyObject_GetAttr(o, name);
  if (v == nullptr) {
    PyErr_Clear();
    return std::nullopt;
  }
  long x = PyLong_Check(v) ? PyLong_AsLong(v) : -1;
  Py_DECREF(v);
  if (PyErr_Occurred()) PyErr_Clear();
  return x;
}

/// What cupy_view needs of a NumPy dtype object: its typestr (dtype.str), parsed.
struct DtypeFacts {
  DType parsed;
  bool bfloat16 = false;  // ml_dtypes.bfloat16, whose typestr '<V2' does not say so
};

/// The facts of a NumPy dtype object, cached by the dtype's identity (py_identity_cache.hpp): the dtypes a program
/// uses are few and NumPy's builtin ones live for the process. Null for a structured dtype (its descr matters,
/// which only the CAI path carries).
inline std::optional<DtypeFacts> dtype_facts(PyObject* dtype) {
  static IdentityCache<DtypeFacts, 16> cache;
  if (const DtypeFacts* known = cache.find(dtype)) return *known;
  nb::object fields = nb::steal(PyObject_GetAttrString(dtype, "fields"));
  if (!fields.is_valid()) throw nb::python_error();
  if (!fields.is_none()) return std::nullopt;
  nb::object s = nb::steal(PyObject_GetAttrString(dtype, "str"));
  if (!s.is_valid()) throw nb::python_error();
  if (!PyUnicode_Check(s.ptr())) return std::nullopt;
  const char* text = PyUnicode_AsUTF8(s.ptr());
  if (text == nullptr) throw nb::python_error();
  const DType parsed = parse_typestr(text, "__cuda_array_interface__['typestr']");
  const bool bfloat16 = parsed.kind == 'V' && parsed.itemsize == 2 && is_ml_dtypes_bfloat16(dtype);
  return cache.keep(dtype, DtypeFacts{parsed, bfloat16});
}

/// CuPy's current stream as its CAI export names it (version 3): the current stream's pointer, the default
/// stream's CAI value (1 or 2) where that is 0; nullopt for a negative value (the CAI path words it).
inline std::optional<std::uintptr_t> cupy_stream(const CupyFacts& c) {
  static PyObject* const ptr_name = PyUnicode_InternFromString("ptr");
  auto checked = [](std::intptr_t v) {
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    return v;
  };
  auto python_int = [](PyObject* o) {
    nb::object held = nb::steal(o);
    if (!held.is_valid()) throw nb::python_error();
    const long long v = PyLong_AsLongLong(held.ptr());  // CuPy's stream pointers are intptr_t
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    return static_cast<std::intptr_t>(v);
  };
  const cupy_layout::StreamFunctions& f = c.stream_functions;
  std::intptr_t v = 0;
  if (f.current != nullptr) {
    v = checked(f.current());
  } else {
    nb::object stream = nb::steal(PyObject_CallNoArgs(c.current_stream));
    if (!stream.is_valid()) throw nb::python_error();
    v = python_int(PyObject_GetAttr(stream.ptr(), ptr_name));
  }
  if (v == 0)  // CAI v3 disallows 0: CuPy names its default stream instead
    v = f.default_stream != nullptr ? checked(f.default_stream(0)) : python_int(PyObject_CallNoArgs(c.default_stream_ptr));
  if (v < 0) return std::nullopt;
  return static_cast<std::uintptr_t>(v);
}

}  // namespace import_detail

/// The request's CuPy state (CuPy's export version and, for version 3, its stream), read for its first CuPy
/// array; false when CuPy's state is one only its CAI words (an export version it refuses, a negative stream).
inline bool cupy_state_of(const import_detail::CupyFacts& c, const ImportRequest& req) {
  if (req.cupy_state) return true;
  static PyObject* const version_name = PyUnicode_InternFromString("CUDA_ARRAY_INTERFACE_EXPORT_VERSION");
  // CuPy's export version, read again only once its module's dict has changed (its version tag: py_dict_version.hpp;
  // a module attribute read costs a type lookup and a dict lookup at every launch on CuPy arrays).
  struct Seen {
    PyObject* dict = nullptr;
    std::uint64_t tag = 0;
    std::optional<long> version;
  };
  static Seen seen;
  // A plain module only (a subclass's property or a module __getattr__ answers without the dict), holding the name
  // in its dict (read there: no Python code runs between the tag and the value).
  PyObject* dict = PyModule_CheckExact(c.util) ? PyModule_GetDict(c.util) : nullptr;
  const std::uint64_t tag = dict != nullptr ? dict_version(dict) : 0;
  std::optional<long> version;
  if (tag != 0 && seen.dict == dict && seen.tag == tag) {
    version = seen.version;
  } else if (PyObject* v = tag != 0 ? PyDict_GetItemWithError(dict, version_name) : nullptr;
             v != nullptr && PyLong_CheckExact(v)) {
    version = PyLong_AsLong(v);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      version = -1;  // out of a long's range: no version CuPy knows, as int_attr answers
    }
    if (dict_version(dict) == tag) seen = Seen{dict, tag, version};  // unchanged by the lookup (a non-str key's __eq__)
  } else {
    if (PyErr_Occurred()) PyErr_Clear();
    version = import_detail::int_attr(c.util, version_name);
  }
  if (!version || (*version != 2 && *version != 3)) return false;
  ImportRequest::CupyState state{*version, 0};
  if (*version == 3) {
    const std::optional<std::uintptr_t> stream = import_detail::cupy_stream(c);
    if (!stream) return false;  // not a stream: the CAI path says so in its words
    state.stream = *stream;
  }
  req.cupy_state = state;
  return true;
}

/// The memo key of a CuPy array whose fields were read from the object.
inline ImportKey cupy_key(nb::handle obj, const cupy_layout::Fields& f, const ImportRequest& req) {
  static const char reader = 0;  // this reader's identity in the memo
  return ImportKey{&reader, obj.ptr(), f.dtype, 0, static_cast<std::uintptr_t>(f.address), f.shape, f.strides,
                   req.cupy_state->version, req.cupy_state->stream, req.sync, req.check_pointer};
}

/// A CuPy ndarray read without the dict its `__cuda_array_interface__` builds: from the object where
/// py_cupy_layout.hpp learnt where its fields are, else through its attributes (`.data.ptr`, `.shape`,
/// `.strides`, `.dtype`); with the facts that dict would hold: CuPy's export version (3: the current
/// stream's .ptr, the default stream's CAI value when that is 0; 2: no stream), data (0, False) when empty,
/// strides None when C-contiguous. The view comes from the same view_from_interface as the CAI path, so
/// every rule is the array layer's. Empty when the array has something only the dict says (a structured
/// dtype's descr, an export version CuPy refuses, a negative pointer or stream): the caller then reads the
/// CAI, which raises in its own words.
inline ImportedView cupy_view(nb::handle obj, const import_detail::CupyFacts& c, const ImportRequest& req) {
  using namespace cai_detail;
  if (!cupy_state_of(c, req)) return {};
  // The fields from the object: a launch's arrays are usually the ones the memo holds views of.
  cupy_layout::Fields fields;
  const bool from_object = c.layout.known() && cupy_layout::read(obj.ptr(), c.layout, fields);
  if (from_object)
    if (const ArrayView* seen = remembered_view(cupy_key(obj, fields, req))) return ImportedView{seen};
  struct Names {
    PyObject *dtype, *shape, *strides, *data, *ptr;
  };
  static const Names k = [] {
    auto s = [](const char* t) { return PyUnicode_InternFromString(t); };
    return Names{s("dtype"), s("shape"), s("strides"), s("data"), s("ptr")};
  }();
  auto get = [](PyObject* o, PyObject* name) {
    nb::object v = nb::steal(o != nullptr ? PyObject_GetAttr(o, name) : nullptr);  // null o: a failed call
    if (!v.is_valid()) throw nb::python_error();
    return v;
  };
  const long version = req.cupy_state->version;
  // The dtype first: learning a new dtype's facts runs Python code, after which the fields are read again.
  nb::object dtype = from_object ? nb::borrow(fields.dtype) : get(obj.ptr(), k.dtype);
  const std::optional<import_detail::DtypeFacts> facts = import_detail::dtype_facts(dtype.ptr());
  if (!facts) return {};
  // ml_dtypes.bfloat16: its CAI says only '<V2'; CuPy's DLPack export says kDLBfloat, which is how
  // numba-cuda types the array too (through __dlpack__ first).
  if (facts->bfloat16) return ImportedView{array_from_dlpack(obj, req.stream_or_none(), req.sync).view};
  const DType parsed = facts->parsed;  // the attribute reads below run Python code
  Dims shape_dims, strides_dims;
  std::span<const std::int64_t> shape, strides;
  std::optional<std::intptr_t> address;
  std::optional<ImportKey> key;  // the facts read from the object: its view may be remembered
  if (from_object && cupy_layout::read(obj.ptr(), c.layout, fields) && fields.dtype == dtype.ptr()) {
    shape = fields.shape;  // no Python code runs from here to the view's construction, which copies them
    strides = fields.strides;
    address = fields.address;
    key = cupy_key(obj, fields, req);
  } else {
    int_sequence(get(obj.ptr(), k.shape).ptr(), "['shape']", shape_dims);
    int_sequence(get(obj.ptr(), k.strides).ptr(), "['strides']", strides_dims);
    shape = shape_dims.span();
    strides = strides_dims.span();
  }
  ArrayInterface ai;
  ai.version = static_cast<int>(version);
  ai.shape = shape;
  ai.parsed = parsed;
  ai.strides = strides;
  // CuPy exports strides None when the array is C-contiguous by its own rule: an empty array is, and
  // extents of 1 may carry any stride. The product of the extents is its `size`.
  std::int64_t n = 1, expected = parsed.itemsize;
  bool c_contiguous = strides.size() == shape.size();
  for (std::size_t i = shape.size(); i-- > 0;) {
    const std::int64_t extent = shape[i];
    if (c_contiguous && extent != 1 && strides[i] != expected) c_contiguous = false;
    expected *= extent;
    n *= extent;
  }
  if (c_contiguous || n == 0) ai.strides.reset();
  if (n > 0) {
    if (!address) {
      nb::object ptr = get(get(obj.ptr(), k.data).ptr(), k.ptr);
      const long long p = PyLong_AsLongLong(ptr.ptr());  // CuPy's pointers are intptr_t
      if (p == -1 && PyErr_Occurred()) throw nb::python_error();
      address = static_cast<std::intptr_t>(p);
      // The attribute reads ran Python code: the dims read before are Python objects' copies, still valid.
    }
    if (*address < 0) return {};  // not a pointer: the CAI path says so in its words
    ai.data = static_cast<std::uintptr_t>(*address);
  }
  if (version == 3) ai.stream = req.cupy_state->stream;
  ArrayView view = view_from_interface(ai, nullptr, ImportOptions{req.sync, req.check_pointer});
  if (key)
    if (const ArrayView* kept = import_detail::remember_checked_view(*key, std::move(view))) return ImportedView{kept};
  return ImportedView{std::move(view)};  // not kept: remember_view leaves it as it was
}

/// A numba-cuda DeviceNDArray read through the attributes its `__cuda_array_interface__` property reads
/// (py_numba_reader.hpp), with the facts that property reports: version 3, no stream (the reader takes only
/// arrays with stream 0), strides None where numba's is_contiguous holds, the memory's address as data, never
/// read-only. Empty where the property must be asked itself (the caller reads the CAI).
inline ImportedView numba_view(nb::handle obj, const ImportRequest& req) {
  numba_reader::Fields held;
  numba_reader::Borrowed b;
  if (!numba_reader::read(obj, numba_reader::classes(), held, b)) return {};
  static const char reader = 0;  // this reader's identity in the memo
  // Found by the dtype and the shape and strides tuples themselves (no Python code runs from the read to the memo's
  // answer: the borrowed objects are the array's); their values are read only to make the view. Only views of
  // dtypes the reader takes are kept.
  ImportKey key{&reader, obj.ptr(), b.dtype, 0, b.address, {}, {}, 0, 0, req.sync, req.check_pointer, b.shape, b.strides};
  if (const ArrayView* seen = remembered_view(key)) return ImportedView{seen};
  // Held from here: learning a new dtype's facts may run Python code.
  const numba_reader::Fields f{nb::borrow(b.shape), nb::borrow(b.strides), nb::borrow(b.dtype), b.address};
  const std::optional<import_detail::DtypeFacts> facts = import_detail::dtype_facts(f.dtype.ptr());
  if (!facts || facts->bfloat16) return {};  // a record's descr or ml_dtypes' bfloat16: the CAI path
  const DType parsed = facts->parsed;
  cai_detail::Dims shape, strides;
  cai_detail::int_sequence(f.shape.ptr(), "['shape']", shape);  // tuples: reading them runs no Python code
  cai_detail::int_sequence(f.strides.ptr(), "['strides']", strides);
  if (shape.n != strides.n) return {};  // no DeviceNDArray has these: the property reports them in its words
  key.shape = shape.span();
  key.strides = strides.span();
  ArrayInterface ai;
  ai.version = 3;
  ai.shape = shape.span();
  ai.parsed = parsed;
  ai.data = f.address;
  if (!numba_reader::numba_contiguous(shape.span(), strides.span(), parsed.itemsize)) ai.strides = strides.span();
  ArrayView view = view_from_interface(ai, nullptr, ImportOptions{req.sync, req.check_pointer});
  if (const ArrayView* kept = import_detail::remember_checked_view(key, std::move(view))) return ImportedView{kept};
  return ImportedView{std::move(view)};  // not kept: remember_view leaves it as it was
}

/// The readers' part of the import (after our own arrays, before the protocols): the exchange table's view, or
/// CuPy's or numba's reader's; a PyTorch tensor with its conjugate or negative bit refused on the way. Empty where
/// no reader answers (another route, a reader that declines, an exchange export that fails where the request lets
/// the CAI answer): the caller then asks import_protocols. `route` is route_of(Py_TYPE(obj)), not Route::ours.
inline ImportedView reader_view(nb::handle obj, const ImportRequest& req, Route route) {
  if (route != Route::exchange) req.exchange_stream.reset();
  // The table first: finding it may run Python code (its first lookup), which must not come between the tensor's
  // description and its use.
  const CubridgeDLPackExchangeAPI* api = route == Route::exchange ? exchange_api_of(Py_TYPE(obj.ptr())) : nullptr;
  // A PyTorch tensor to borrow, read through cubridge._torch_glue where it can: refused or described in one call.
  const std::optional<CubridgeDLTensor> described =
      api != nullptr && req.borrow ? torch_bits::described(obj.ptr()) : std::nullopt;
  if (!described && (route == Route::exchange || route == Route::attributes)) torch_bits::refuse_unresolved(obj.ptr());
  if (route == Route::exchange && api != nullptr) {
    try {
      return import_detail::exchange_view(obj, api, req, described ? &*described : nullptr);
    } catch (const std::exception&) {
      if (!req.cai_after_exchange || !PyObject_HasAttr(obj.ptr(), Keys::get().cai)) throw;
    }
  } else if (route == Route::cupy) {
    return cupy_view(obj, import_detail::cupy_facts(), req);
  } else if (route == Route::numba) {
    return numba_view(obj, req);
  }
  return {};
}

/// The protocols' part of the import, where no reader answered: the object's `__cuda_array_interface__`, else its
/// `__dlpack__` (or, where the request defers DLPack, the result marked deferred); an empty result when `obj`
/// offers neither. Raises what the producer's protocol raised.
inline ImportedArray import_protocols(nb::handle obj, const ImportRequest& req) {
  ImportedArray out;
  PyObject* cai = PyObject_GetAttr(obj.ptr(), Keys::get().cai);
  if (cai != nullptr) {
    nb::object desc = nb::steal(cai);
    out.made.emplace(array_from_cai(desc, req.borrow ? nb::handle() : obj, ImportOptions{req.sync, req.check_pointer}));
    return out;
  }
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw nb::python_error();  // the getter failed
  PyErr_Clear();
  if (PyObject_HasAttr(obj.ptr(), Keys::get().dlpack)) {
    if (req.defer_dlpack) {
      out.deferred = true;
      return out;
    }
    return ImportedArray::make(array_from_dlpack(obj, req.stream_or_none(), req.sync).view, obj, req);
  }
  return out;
}

/// The one import: see the file's opening comment for the order. Raises what the producer's protocol
/// raised; an empty result when `obj` offers no GPU-array protocol. `route` is route_of(Py_TYPE(obj)).
inline ImportedArray import_array(nb::handle obj, const ImportRequest& req, Route route) {
  ImportedArray out;
  if (route == Route::ours) {
    out.ours = nb::inst_ptr<PyDeviceArray>(obj);  // the route checked the type: no second lookup
    return out;
  }
  ImportedView v = reader_view(obj, req, route);
  if (!v) return import_protocols(obj, req);
  if (req.share_remembered && v.remembered) {  // the memo's view, borrowed
    out.remembered = v.remembered;
    return out;
  }
  return ImportedArray::make(std::move(v).take(), obj, req);
}

inline ImportedArray import_array(nb::handle obj, const ImportRequest& req) {
  return import_array(obj, req, route_of(Py_TYPE(obj.ptr())));
}

}  // namespace cubridge::python
