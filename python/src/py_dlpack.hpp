// Internal (Python glue of the array face): DLPack 1.x for Python: `__dlpack__` / `__dlpack_device__` on
// our arrays, `from_dlpack` for any producer, and the 1.3 C exchange table (consumed first when a
// producer's type offers it, published on DeviceArray). Implements: DLPack "Python specification"
// (capsule names and renaming, stream argument semantics, max_version, dl_device, copy) and
// `__dlpack_c_exchange_api__`.
#pragma once

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "array/device_allocation.hpp"
#include "cubridge/array/array_copy.hpp"
#include "cubridge/array/dlpack_exchange.hpp"
#include "cubridge/array/errors.hpp"
#include "cubridge/array/pointer_attributes.hpp"
#include "cubridge/driver/device.hpp"
#include "driver/driver_api.hpp"
#include "py_device_array.hpp"
#include "py_torch_bits.hpp"
#include "cubridge/error.hpp"

namespace cubridge::python {

/// The DLPack device of an array's memory: managed, pinned host, or device memory of its ordinal.
inline DLPackDeviceInfo dlpack_device_of(const PyDeviceArray& a) {
  DLPackDeviceInfo d{CUBRIDGE_DL_CUDA, a.view.device() >= 0 ? a.view.device() : 0};
  if (a.view.empty() || a.view.data() == nullptr || !driver::available()) return d;
  PointerAttributes p = check_device_pointer(a.view.address(), "__dlpack_device__");
  if (p.device >= 0) d.id = p.device;
  if (p.managed) d.type = CUBRIDGE_DL_CUDA_MANAGED;
  else if (p.memory_type == CU_MEMORYTYPE_HOST) d.type = CUBRIDGE_DL_CUDA_HOST;
  return d;
}

namespace dlpack_detail {

inline void destroy_versioned_capsule(PyObject* cap) {
  // A consumer that took ownership renamed the capsule; only an unconsumed one still owns the tensor.
  if (!PyCapsule_IsValid(cap, CUBRIDGE_DLPACK_VERSIONED_CAPSULE)) return;
  auto* mt = static_cast<CubridgeDLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, CUBRIDGE_DLPACK_VERSIONED_CAPSULE));
  if (mt != nullptr && mt->deleter != nullptr) mt->deleter(mt);
}

inline void destroy_capsule(PyObject* cap) {
  if (!PyCapsule_IsValid(cap, CUBRIDGE_DLPACK_CAPSULE)) return;
  auto* mt = static_cast<CubridgeDLManagedTensor*>(PyCapsule_GetPointer(cap, CUBRIDGE_DLPACK_CAPSULE));
  if (mt != nullptr && mt->deleter != nullptr) mt->deleter(mt);
}

/// The consumer's stream as the DLPack Python spec defines the argument: None means the legacy
/// default stream, -1 "do not synchronise", 0 is ambiguous and refused.
inline std::optional<StreamRef> consumer_stream_of(nb::handle stream) {
  if (stream.is_none()) return StreamRef::legacy();
  if (PyLong_Check(stream.ptr()) && !PyBool_Check(stream.ptr())) {
    long long v = PyLong_AsLongLong(stream.ptr());
    if (v == -1 && PyErr_Occurred()) PyErr_Clear();
    else if (v == -1) return std::nullopt;
    if (v == 0)
      throw nb::value_error(
          "__dlpack__: stream=0 is ambiguous and disallowed by the DLPack specification for CUDA (use "
          "None or 1 for the legacy default stream, 2 for the per-thread default stream, -1 for no "
          "synchronisation, or a stream handle)");
  }
  return to_stream_ref(stream, StreamRef::legacy(), "__dlpack__: stream");
}

}  // namespace dlpack_detail

/// `__dlpack__`: orders the consumer's stream after our pending work (GPU-side), then exports.
inline nb::object dlpack_export(nb::handle self, PyDeviceArray& a, nb::handle stream, nb::handle max_version,
                                nb::handle dl_device, nb::handle copy) {
  using namespace dlpack_detail;
  DLPackDeviceInfo dev = dlpack_device_of(a);
  if (!dl_device.is_none()) {
    bool same = false;
    if (PyTuple_Check(dl_device.ptr()) && PyTuple_GET_SIZE(dl_device.ptr()) == 2) {
      // Each read may run __index__ and fail: the second is not made with the first's error pending.
      long t = PyLong_AsLong(PyTuple_GET_ITEM(dl_device.ptr(), 0));
      long i = t == -1 && PyErr_Occurred() ? -1 : PyLong_AsLong(PyTuple_GET_ITEM(dl_device.ptr(), 1));
      if (PyErr_Occurred()) PyErr_Clear();
      same = t == dev.type && i == dev.id;
    }
    if (!same)
      throw nb::buffer_error(("__dlpack__: dl_device " + py_repr(dl_device) + " differs from the array's (" +
                              std::to_string(dev.type) + ", " + std::to_string(dev.id) +
                              "); cubridge does not export across devices")
                                 .c_str());
  }
  bool versioned = false;
  if (!max_version.is_none()) {
    if (!PyTuple_Check(max_version.ptr()) || PyTuple_GET_SIZE(max_version.ptr()) != 2)
      throw nb::type_error(("__dlpack__: max_version must be None or a (major, minor) tuple, got " +
                            py_repr(max_version)).c_str());
    long major = PyLong_AsLong(PyTuple_GET_ITEM(max_version.ptr(), 0));
    if (major == -1 && PyErr_Occurred()) throw nb::python_error();
    versioned = major >= 1;
  }
  std::optional<StreamRef> consumer = consumer_stream_of(stream);
  if (consumer) {
    if (a.view.stream() && !(*a.view.stream() == *consumer)) {
      StreamRef producer[] = {*a.view.stream()};
      join_streams(*consumer, producer, a.view.device());
    }
    if (!a.pending.empty()) {
      join_streams(*consumer, a.pending, a.view.device());
      a.pending.clear();
    }
  }
  ArrayView view = a.view.with_owner(py_ref_owner(self));
  std::uint64_t flags = 0;
  if (copy.is_valid() && copy.ptr() == Py_True) {
    if (!view.is_c_contiguous())
      throw nb::buffer_error("__dlpack__: copy=True needs a C-contiguous array (strided copies need a kernel)");
    auto context = Context::primary(Device(dev.id));
    auto mem = array_detail::allocate_device(static_cast<std::size_t>(view.nbytes()), context);
    ArrayView::Layout l{mem.get(), view.dtype(), view.shape(), std::nullopt, false};
    ArrayView fresh = ArrayView(l, mem).with_device(dev.id);
    copy_between_views(fresh, view, consumer ? *consumer : StreamRef::legacy());
    view = fresh;
    flags |= CUBRIDGE_DLPACK_FLAG_IS_COPIED;
  }
  if (versioned) {
    CubridgeDLManagedTensorVersioned* mt = to_dlpack_versioned(view, dev, flags);
    PyObject* cap = PyCapsule_New(mt, CUBRIDGE_DLPACK_VERSIONED_CAPSULE, &destroy_versioned_capsule);
    if (cap == nullptr) {
      mt->deleter(mt);
      throw nb::python_error();
    }
    return nb::steal(cap);
  }
  CubridgeDLManagedTensor* mt = to_dlpack_unversioned(view, dev);
  PyObject* cap = PyCapsule_New(mt, CUBRIDGE_DLPACK_CAPSULE, &destroy_capsule);
  if (cap == nullptr) {
    mt->deleter(mt);
    throw nb::python_error();
  }
  return nb::steal(cap);
}

namespace exchange_detail {

/// At most this many tables are followed through `prev_api` (a chain that loops or never ends is refused).
inline constexpr int kMaxChain = 16;
/// At most this many publishing types are remembered; past it the cache starts afresh (and unpins them).
inline constexpr std::size_t kMaxCachedTypes = 64;

/// Copies `n` bytes at `address` of this process into `out` without touching unmapped memory: false when
/// they are not readable. A producer's table address is data, never trusted (`= 12345` must not crash).
inline bool read_own_memory(const void* address, void* out, std::size_t n) {
  iovec local{out, n};
  iovec remote{const_cast<void*>(address), n};
  ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (got == static_cast<ssize_t>(n)) return true;
  if (got < 0 && (errno == ENOSYS || errno == EPERM)) {  // a sandbox without the call: cannot check
    std::memcpy(out, address, n);
    return true;
  }
  return false;
}

inline std::string address_text(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

/// The major-version-1 table published as `attr` (a 'dlpack_exchange_api' capsule, or an int address as
/// DLPack 1.3's header first said), checked: readable, a prev_api chain that ends, the functions DLPack
/// says must not be NULL present. Null when the chain holds no major version 1 (the consumer then uses
/// __dlpack__). Throws std::invalid_argument naming what is wrong.
inline const CubridgeDLPackExchangeAPI* checked_exchange_table(PyObject* attr, const std::string& type_name) {
  const std::string where = type_name + ".__dlpack_c_exchange_api__";
  void* p = nullptr;
  if (PyCapsule_CheckExact(attr)) {
    p = PyCapsule_GetPointer(attr, CUBRIDGE_DLPACK_EXCHANGE_API_CAPSULE);
    if (p == nullptr) {
      PyErr_Clear();
      const char* name = PyCapsule_GetName(attr);
      if (name == nullptr) PyErr_Clear();
      throw cubridge::InvalidArgument(where + ": a capsule named '" + std::string(name ? name : "") +
                                  "'; expected one named '" CUBRIDGE_DLPACK_EXCHANGE_API_CAPSULE "'");
    }
  } else if (PyLong_Check(attr)) {
    p = PyLong_AsVoidPtr(attr);
    if (p == nullptr) {
      PyErr_Clear();
      throw cubridge::InvalidArgument(where + ": " + py_repr(nb::handle(attr)) + " is not a table address");
    }
  } else {
    throw cubridge::InvalidArgument(where + ": a " + std::string(Py_TYPE(attr)->tp_name) + "; expected a capsule named '"
                                CUBRIDGE_DLPACK_EXCHANGE_API_CAPSULE "' holding a DLPackExchangeAPI*");
  }
  std::vector<const void*> seen;
  for (const void* at = p; at != nullptr;) {
    if (std::find(seen.begin(), seen.end(), at) != seen.end())
      throw cubridge::InvalidArgument(where + ": the prev_api chain loops (table " + address_text(at) + " again)");
    if (seen.size() == static_cast<std::size_t>(kMaxChain))
      throw cubridge::InvalidArgument(where + ": the prev_api chain is longer than " + std::to_string(kMaxChain) + " tables");
    seen.push_back(at);
    CubridgeDLPackExchangeAPIHeader h;
    if (!read_own_memory(at, &h, sizeof h))
      throw cubridge::InvalidArgument(where + ": the table at " + address_text(at) + " is not readable memory");
    if (h.version.major != CUBRIDGE_DLPACK_MAJOR_VERSION) {
      at = h.prev_api;
      continue;
    }
    CubridgeDLPackExchangeAPI t;
    if (!read_own_memory(at, &t, sizeof t))
      throw cubridge::InvalidArgument(where + ": the table at " + address_text(at) + " is not readable memory");
    const char* missing = t.managed_tensor_allocator == nullptr                ? "managed_tensor_allocator"
                          : t.managed_tensor_from_py_object_no_sync == nullptr ? "managed_tensor_from_py_object_no_sync"
                          : t.managed_tensor_to_py_object_no_sync == nullptr   ? "managed_tensor_to_py_object_no_sync"
                          : t.current_work_stream == nullptr                    ? "current_work_stream"
                                                                                : nullptr;
    if (missing != nullptr)
      throw cubridge::InvalidArgument(where + ": " + missing + " is NULL (DLPack 1.3: only "
                                  "dltensor_from_py_object_no_sync may be NULL)");
    return static_cast<const CubridgeDLPackExchangeAPI*>(at);
  }
  return nullptr;
}

}  // namespace exchange_detail

/// The C exchange table a Python type publishes, checked once and cached per publishing type (those are
/// pinned while cached; at most kMaxCachedTypes of them); types without the attribute are answered from
/// the type's own MRO cache and never pinned. Null when the type offers none or only a major version
/// other than 1; throws std::invalid_argument when the table is malformed (each import says so again).
inline const CubridgeDLPackExchangeAPI* exchange_api_of(PyTypeObject* tp) {
  struct Entry {
    const CubridgeDLPackExchangeAPI* api;
    std::string error;
  };
  static std::unordered_map<PyTypeObject*, Entry> cache;  // guarded by the GIL
  static PyTypeObject* last_type = nullptr;  // imports come in runs of one type: skip the hash
  static const CubridgeDLPackExchangeAPI* last_api = nullptr;
  if (tp == last_type) return last_api;
  PyObject* attr = _PyType_Lookup(tp, Keys::get().exchange_api);  // borrowed; sets no error
  if (attr == nullptr) return nullptr;
  auto it = cache.find(tp);
  if (it == cache.end()) {
    if (cache.size() >= exchange_detail::kMaxCachedTypes) {
      last_type = nullptr;
      for (auto& [type, entry] : cache) Py_DECREF(type);
      cache.clear();
    }
    Entry e{nullptr, {}};
    nb::object keep = nb::borrow(attr);  // the lookup is borrowed; the checks below may run Python code
    try {
      e.api = exchange_detail::checked_exchange_table(attr, tp->tp_name);
    } catch (const std::invalid_argument& bad) {
      e.error = bad.what();
    }
    Py_INCREF(tp);
    it = cache.emplace(tp, std::move(e)).first;
  }
  if (!it->second.error.empty()) throw cubridge::InvalidArgument(it->second.error);
  last_type = tp;
  last_api = it->second.api;
  return last_api;
}

/// Checks what a producer's table function returned: 0 is success; otherwise the Python exception it
/// set, or (a producer built with ctypes sets none) one saying which function failed, so nanobind never
/// sees a failure without an exception.
inline void check_producer_call(int rc, PyObject* obj, const char* function) {
  if (rc == 0) return;
  if (PyErr_Occurred()) throw nb::python_error();
  throw cubridge::RuntimeError(std::string(Py_TYPE(obj)->tp_name) + ".__dlpack_c_exchange_api__: " + function +
                           " returned " + std::to_string(rc) + " without setting a Python exception");
}

/// The producer's current work stream for a device, from its exchange table (null → legacy default).
inline StreamRef exchange_work_stream(const CubridgeDLPackExchangeAPI* api, int type, int id) {
  void* s = nullptr;
  if (api->current_work_stream(type, id, &s) != 0) {
    if (PyErr_Occurred()) throw nb::python_error();
    return StreamRef::legacy();  // a producer without a work stream for this device: the legacy stream
  }
  return s == nullptr ? StreamRef::legacy() : StreamRef::external(static_cast<CUstream>(s));
}

/// `from_dlpack`: the exchange table first, then `__dlpack__(stream=..., max_version=(1, 3))`.
inline PyDeviceArray array_from_dlpack(nb::handle obj, nb::handle stream, bool sync) {
  torch_bits::refuse_unresolved(obj.ptr());  // PyTorch's export hands a conjugated or negated view out unresolved
  PyDeviceArray out;
  if (const CubridgeDLPackExchangeAPI* api = exchange_api_of(Py_TYPE(obj.ptr()))) {
    CubridgeDLManagedTensorVersioned* mt = nullptr;
    check_producer_call(api->managed_tensor_from_py_object_no_sync(obj.ptr(), &mt), obj.ptr(),
                        "managed_tensor_from_py_object_no_sync");
    out.view = adopt_dlpack(mt);
    const CubridgeDLDevice dev = mt->dl_tensor.device;
    StreamRef work = stream.is_none() ? exchange_work_stream(api, dev.device_type, dev.device_id)
                                      : to_stream_ref(stream, StreamRef::legacy(), "from_dlpack: stream");
    out.view = std::move(out.view).with_stream(work, sync);
    return out;
  }
  const Keys& k = Keys::get();
  if (!PyObject_HasAttr(obj.ptr(), k.dlpack))
    throw nb::type_error(("from_dlpack: " + py_type_name(obj) +
                          " has no __dlpack__ (expected a DLPack producer: CuPy, PyTorch, JAX, a cubridge "
                          "array, ...)").c_str());
  if (PyObject_HasAttr(obj.ptr(), k.dlpack_device)) {
    nb::object dev = nb::steal(PyObject_CallMethodNoArgs(obj.ptr(), k.dlpack_device));
    if (!dev.is_valid()) throw nb::python_error();
    long t = PyTuple_Check(dev.ptr()) && PyTuple_GET_SIZE(dev.ptr()) == 2 ? PyLong_AsLong(PyTuple_GET_ITEM(dev.ptr(), 0)) : -1;
    if (PyErr_Occurred()) PyErr_Clear();
    if (t != CUBRIDGE_DL_CUDA && t != CUBRIDGE_DL_CUDA_MANAGED && t != CUBRIDGE_DL_CUDA_HOST)
      throw nb::value_error(("from_dlpack: the array is on DLPack device " + py_repr(dev) +
                             ", which the GPU cannot address (accepted device types: 2 CUDA, 3 CUDA host, 13 "
                             "CUDA managed); copy host arrays with cubridge.to_device()").c_str());
  }
  StreamRef consumer = to_stream_ref(stream, StreamRef::legacy(), "from_dlpack: stream");
  nb::object stream_arg = sync ? nb::int_(consumer.cai_value()) : nb::int_(-1);
  nb::object method = nb::steal(PyObject_GetAttr(obj.ptr(), k.dlpack));
  if (!method.is_valid()) throw nb::python_error();
  nb::object cap;
  try {
    cap = method(nb::arg("stream") = stream_arg, nb::arg("max_version") = nb::make_tuple(1, 3));
  } catch (nb::python_error& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    cap = method(nb::arg("stream") = stream_arg);  // a producer older than DLPack 1.0
  }
  PyObject* c = cap.ptr();
  if (PyCapsule_IsValid(c, CUBRIDGE_DLPACK_VERSIONED_CAPSULE)) {
    auto* mt = static_cast<CubridgeDLManagedTensorVersioned*>(PyCapsule_GetPointer(c, CUBRIDGE_DLPACK_VERSIONED_CAPSULE));
    if (PyCapsule_SetName(c, CUBRIDGE_DLPACK_VERSIONED_CAPSULE_USED) != 0) throw nb::python_error();
    out.view = adopt_dlpack(mt);
  } else if (PyCapsule_IsValid(c, CUBRIDGE_DLPACK_CAPSULE)) {
    auto* mt = static_cast<CubridgeDLManagedTensor*>(PyCapsule_GetPointer(c, CUBRIDGE_DLPACK_CAPSULE));
    if (PyCapsule_SetName(c, CUBRIDGE_DLPACK_CAPSULE_USED) != 0) throw nb::python_error();
    out.view = adopt_dlpack(mt);
  } else {
    throw nb::type_error(("from_dlpack: " + py_type_name(obj) + ".__dlpack__() returned " + py_repr(cap) +
                          ", not an unused 'dltensor' or 'dltensor_versioned' capsule").c_str());
  }
  // The producer ordered its work before `consumer`, so that stream is where the data is ready.
  out.view = std::move(out.view).with_stream(consumer, sync);
  return out;
}

}  // namespace cubridge::python
