// Internal (Python glue of the array face): the C function tables: cubridge's own array C API
// (include/cubridge/c/array.h, capsule "cubridge.array_c_api") and the DLPack 1.3 exchange table that
// DeviceArray publishes as `__dlpack_c_exchange_api__`. No C++ exception crosses these functions.
// Implements: the C-side interface CAI v3 anticipates; DLPack 1.3 DLPackExchangeAPI (producer side).
#pragma once

#include <cstring>

#include "cubridge/c/array.h"
#include "py_array_ops.hpp"
#include "py_import.hpp"

namespace cubridge::python {

/// Converts the in-flight C++ exception into a Python exception (for functions returning -1).
inline void set_python_error() noexcept {
  try {
    throw;
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const nb::builtin_exception& e) {
    PyObject* t = PyExc_RuntimeError;
    switch (e.type()) {
      case nb::exception_type::value_error: t = PyExc_ValueError; break;
      case nb::exception_type::type_error: t = PyExc_TypeError; break;
      case nb::exception_type::buffer_error: t = PyExc_BufferError; break;
      case nb::exception_type::index_error: t = PyExc_IndexError; break;
      default: break;
    }
    PyErr_SetString(t, e.what());
  } catch (const MaskNotSupported& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (const ExportError& e) {
    PyErr_SetString(PyExc_BufferError, e.what());
  } catch (const std::invalid_argument& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::out_of_range& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "cubridge: unknown C++ exception");
  }
}

namespace c_api_detail {

/// `dtype`'s typestr into the struct's field, NUL-padded as strncpy pads it: the last dtype's field is kept and
/// copied whole (an import runs in a loop over arrays of one dtype; spelling and padding it cost ~140 instructions
/// of an import's ~600). Guarded by the GIL, as every function of the table.
inline void write_typestr(const DType& dtype, char (&field)[sizeof(CubridgeArray::typestr)]) noexcept {
  static DType last{};
  static char last_field[sizeof(CubridgeArray::typestr)] = {};
  static bool known = false;
  if (!known || !(dtype == last)) {
    std::strncpy(last_field, dtype.typestr(), sizeof(last_field) - 1);
    last_field[sizeof(last_field) - 1] = '\0';
    last = dtype;
    known = true;
  }
  std::memcpy(field, last_field, sizeof(last_field));
}

/// The last DLPack dtype a borrowed export described and its DType (from_dlpack_dtype's answer): imports come in runs
/// of one dtype, and converting it was ~50 of the DLTensor route's ~390 instructions. Guarded by the GIL, as every
/// function of the table.
class LastDLPackDType {
 public:
  /// The DType of `d` where it is the last one learnt, else null.
  const DType* find(CubridgeDLDataType d) const noexcept { return known_ && key_ == key_of(d) ? &dtype_ : nullptr; }
  void learn(CubridgeDLDataType d, const DType& dtype) noexcept {
    key_ = key_of(d);
    dtype_ = dtype;
    known_ = true;
  }

 private:
  static std::uint32_t key_of(CubridgeDLDataType d) noexcept {
    return std::uint32_t{d.code} | std::uint32_t{d.bits} << 8 | std::uint32_t{d.lanes} << 16;
  }
  std::uint32_t key_ = 0;
  bool known_ = false;
  DType dtype_{};
};

/// Fills `out` from a view; `owner` and `mask` become new strong references.
inline void fill(const ArrayView& v, PyObject* owner, PyObject* mask, CubridgeArray* out) {
  if (v.ndim() > CUBRIDGE_ARRAY_MAX_NDIM)
    throw nb::value_error(("cubridge array C API: ndim " + std::to_string(v.ndim()) + " exceeds " +
                           std::to_string(CUBRIDGE_ARRAY_MAX_NDIM)).c_str());
  out->version = CUBRIDGE_ARRAY_VERSION;
  out->flags = (v.read_only() ? CUBRIDGE_ARRAY_READ_ONLY : 0u) |
               (v.is_c_contiguous() ? CUBRIDGE_ARRAY_C_CONTIGUOUS : 0u) |
               (v.is_f_contiguous() ? CUBRIDGE_ARRAY_F_CONTIGUOUS : 0u);
  out->data = v.data();
  out->ndim = v.ndim();
  out->device_id = v.device();
  write_typestr(v.dtype(), out->typestr);
  out->itemsize = v.itemsize();
  out->kind = v.dtype().kind;
  out->byteorder = v.dtype().byteorder;
  out->reserved0 = 0;
  out->stream = 0;
  if (v.stream()) {
    out->flags |= CUBRIDGE_ARRAY_HAS_STREAM;
    out->stream = v.stream()->cai_value();
  }
  if (v.synchronizes()) out->flags |= CUBRIDGE_ARRAY_SYNC;
  for (auto& r : out->reserved) r = 0;
  for (int i = 0; i < v.ndim(); ++i) {
    out->shape[i] = v.shape()[i];
    out->strides[i] = v.strides()[i];
  }
  Py_XINCREF(owner);
  out->owner = owner;
  out->mask = nullptr;
  if (mask != nullptr && mask != Py_None) {
    Py_INCREF(mask);
    out->mask = mask;
    out->flags |= CUBRIDGE_ARRAY_HAS_MASK;
  }
}

}  // namespace c_api_detail

inline void c_array_release(CubridgeArray* a) noexcept {
  if (a == nullptr) return;
  Py_XDECREF(static_cast<PyObject*>(a->owner));
  Py_XDECREF(static_cast<PyObject*>(a->mask));
  a->owner = nullptr;
  a->mask = nullptr;
}

namespace c_api_detail {

/// The hot path of the C API for producers that publish a borrowed DLPack export (PyTorch, us):
/// fills the struct straight from the DLTensor, with no allocation.
inline void fill_from_dltensor(const CubridgeDLTensor& t, PyObject* owner, StreamRef stream, bool sync, CubridgeArray* out) {
  // The same checker as from_dlpack: a producer's borrowed tensor is trusted no further than an owned one.
  static LastDLPackDType last;
  const DType* known = last.find(t.dtype);
  const DType dtype = check_dltensor(t, CUBRIDGE_ARRAY_MAX_NDIM, "cubridge array C API", known);
  if (known == nullptr) last.learn(t.dtype, dtype);
  out->version = CUBRIDGE_ARRAY_VERSION;
  out->data = dltensor_data(t);
  out->ndim = t.ndim;
  out->device_id = t.device.device_id;
  write_typestr(dtype, out->typestr);
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

}  // namespace c_api_detail

/// The C API import, in import_array's order (route_of decides); our arrays and an exchange-table producer
/// with a borrowed export (PyTorch) are read straight into `out`, with no allocation.
inline int c_array_from_pyobject(void* obj, std::uint32_t flags, std::uintptr_t consumer_stream, CubridgeArray* out) noexcept {
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
    const Route route = route_of(Py_TYPE(h.ptr()));
    const CubridgeDLPackExchangeAPI* api = route == Route::exchange ? exchange_api_of(Py_TYPE(h.ptr())) : nullptr;
    if (route == Route::ours) {  // import_array's first route, filled with no request to build
      const PyDeviceArray& a = *nb::inst_ptr<PyDeviceArray>(h);
      c_api_detail::fill(a.view, h.ptr(), a.mask.is_valid() ? a.mask.ptr() : nullptr, out);
      producer = a.view.synchronizes() ? a.view.stream() : std::nullopt;
      device = a.view.device();
    } else if (std::optional<CubridgeDLTensor> described;
               api != nullptr && ((described = torch_bits::described(h.ptr())) ||
                                  api->dltensor_from_py_object_no_sync != nullptr)) {
      CubridgeDLTensor t{};
      if (described) {  // read through cubridge._torch_glue, a conjugated or negated view refused
        t = *described;
      } else {
        torch_bits::refuse_unresolved(h.ptr());  // as import_array: a conjugated or negated view is refused
        check_producer_call(api->dltensor_from_py_object_no_sync(h.ptr(), &t), h.ptr(), "dltensor_from_py_object_no_sync");
      }
      StreamRef work = exchange_work_stream(api, t.device.device_type, t.device.device_id);
      c_api_detail::fill_from_dltensor(t, h.ptr(), work, sync, out);
      producer = work;
      device = t.device.device_id;
    } else {
      ImportRequest req;
      req.sync = sync;
      nb::object stream_obj = consumer ? nb::object(nb::int_(consumer->cai_value())) : nb::object(nb::none());
      req.stream = stream_obj;
      ImportedArray imported = import_array(h, req);
      if (!imported)
        throw nb::type_error(("as_cuda_array: " + py_type_name(h) +
                              " is not a GPU array (expected an object with __cuda_array_interface__ or "
                              "__dlpack__, e.g. a CuPy, PyTorch, Numba, JAX or cubridge array)").c_str());
      nb::object made = imported.ours != nullptr ? nb::borrow(h) : wrap(std::move(*imported.made));
      const PyDeviceArray& a = imported.ours != nullptr ? *imported.ours : *nb::inst_ptr<PyDeviceArray>(made);
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


inline const CubridgeArrayAPI* array_c_api_table() {
  static const CubridgeArrayAPI table{CUBRIDGE_ARRAY_API_VERSION, sizeof(CubridgeArrayAPI),
                                      &c_array_from_pyobject, &c_array_release};
  return &table;
}

// ---- DLPack 1.3 exchange table of cubridge.DeviceArray (producer side; no synchronisation) ----

namespace exchange_detail {

inline int allocator(CubridgeDLTensor* proto, CubridgeDLManagedTensorVersioned** out, void* error_ctx,
                     void (*set_error)(void*, const char*, const char*)) noexcept {
  try {
    DType dtype = from_dlpack_dtype(proto->dtype);
    std::span<const std::int64_t> shape(proto->shape, static_cast<std::size_t>(proto->ndim));
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    auto context = Context::primary(Device(proto->device.device_id));
    auto mem = array_detail::allocate_device(static_cast<std::size_t>(n) * dtype.itemsize, context);
    ArrayView::Layout l{mem.get(), dtype, shape, std::nullopt, false};
    ArrayView v = ArrayView(l, mem).with_device(proto->device.device_id);
    *out = to_dlpack_versioned(v, {CUBRIDGE_DL_CUDA, proto->device.device_id});
    return 0;
  } catch (const std::bad_alloc&) {
    if (set_error) set_error(error_ctx, "MemoryError", "cubridge: out of host memory");
  } catch (const std::exception& e) {
    if (set_error) set_error(error_ctx, "RuntimeError", e.what());
  }
  return -1;
}

inline int from_py_object(void* obj, CubridgeDLManagedTensorVersioned** out) noexcept {
  try {
    nb::handle h(static_cast<PyObject*>(obj));
    PyDeviceArray& a = nb::cast<PyDeviceArray&>(h);
    *out = to_dlpack_versioned(a.view.with_owner(py_ref_owner(h)), dlpack_device_of(a));
    return 0;
  } catch (...) {
    set_python_error();
    return -1;
  }
}

inline int to_py_object(CubridgeDLManagedTensorVersioned* t, void** out) noexcept {
  try {
    PyDeviceArray a;
    a.view = adopt_dlpack(t);
    *out = wrap(std::move(a)).release().ptr();
    return 0;
  } catch (...) {
    set_python_error();
    return -1;
  }
}

inline int dltensor_from_py_object(void* obj, CubridgeDLTensor* out) noexcept {
  try {
    nb::handle h(static_cast<PyObject*>(obj));
    PyDeviceArray& a = nb::cast<PyDeviceArray&>(h);
    const ArrayView& v = a.view;
    auto dt = to_dlpack_dtype(v.dtype());
    if (!dt) throw ExportError(std::string("dtype '") + v.dtype().typestr() + "' has no DLPack equivalent");
    if (a.dl_strides.size() != static_cast<std::size_t>(v.ndim())) {
      std::vector<std::int64_t> s(static_cast<std::size_t>(v.ndim()));
      for (int i = 0; i < v.ndim(); ++i) {
        if (v.strides()[i] % v.itemsize() != 0)
          throw ExportError("stride " + std::to_string(v.strides()[i]) + " is not a multiple of the itemsize");
        s[i] = v.strides()[i] / v.itemsize();
      }
      a.dl_strides = std::move(s);
      a.dl_shape.assign(v.shape().begin(), v.shape().end());
    }
    out->data = v.data();
    out->device = CubridgeDLDevice{CUBRIDGE_DL_CUDA, v.device() >= 0 ? v.device() : 0};
    out->ndim = v.ndim();
    out->dtype = *dt;
    out->shape = a.dl_shape.data();
    out->strides = a.dl_strides.data();
    out->byte_offset = 0;
    return 0;
  } catch (...) {
    set_python_error();
    return -1;
  }
}

inline int current_work_stream(std::int32_t type, std::int32_t, void** out) noexcept {
  if (type == CUBRIDGE_DL_CPU) *out = nullptr;
  else *out = StreamRef::process_default().handle();
  return 0;
}

}  // namespace exchange_detail

inline const CubridgeDLPackExchangeAPI* dlpack_exchange_table() {
  static const CubridgeDLPackExchangeAPI table{
      {{CUBRIDGE_DLPACK_MAJOR_VERSION, CUBRIDGE_DLPACK_MINOR_VERSION}, nullptr},
      &exchange_detail::allocator,
      &exchange_detail::from_py_object,
      &exchange_detail::to_py_object,
      &exchange_detail::dltensor_from_py_object,
      &exchange_detail::current_work_stream};
  return &table;
}

}  // namespace cubridge::python
