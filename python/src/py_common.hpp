// Internal: what every piece of the Python glue shares: the interned strings of the hot paths, and how
// C++ holds a Python object (a reference whose last release takes the GIL, from any thread, and is
// skipped while the interpreter goes away).
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <cstdint>

#include <memory>

#include "py_gil.hpp"
#include "py_text.hpp"

namespace cubridge::python {
namespace nb = nanobind;

/// Interned Python strings used on every hot path (created once, immortal for our purposes).
struct Keys {
  PyObject *shape, *typestr, *data, *version, *strides, *descr, *mask, *stream, *cai, *dlpack,
      *dlpack_device, *exchange_api, *max_version, *dl_device, *copy;
  static const Keys& get() {
    static const Keys k = [] {
      auto s = [](const char* t) { return PyUnicode_InternFromString(t); };
      return Keys{s("shape"), s("typestr"), s("data"), s("version"), s("strides"), s("descr"), s("mask"),
                  s("stream"), s("__cuda_array_interface__"), s("__dlpack__"), s("__dlpack_device__"),
                  s("__dlpack_c_exchange_api__"), s("max_version"), s("dl_device"), s("copy")};
    }();
    return k;
  }
};

/// An object's address mixed into 64 well-spread bits (splitmix64's finalizer), for the caches that find an
/// object's entry by its address: objects lie at regular spacings (a pool's 1 KiB, a list's 144 bytes), which a
/// plain modulo or a multiplicative hash maps onto a few slots.
inline std::uint64_t address_mix(const void* p) noexcept {
  std::uint64_t x = reinterpret_cast<std::uintptr_t>(p);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Whether `o` is an exact tuple of exact ints (a value that cannot change, as the caches that keep one need).
inline bool is_exact_int_tuple(PyObject* o) noexcept {
  if (!PyTuple_CheckExact(o)) return false;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); ++i)
    if (!PyLong_CheckExact(PyTuple_GET_ITEM(o, i))) return false;
  return true;
}

/// Whether the program has imported module `name`, asked without importing it: a process that never uses a
/// library pays nothing for cubridge knowing it.
inline bool module_imported(const char* name) noexcept {
  PyObject* m = PyImport_GetModule(nb::str(name).ptr());
  if (m == nullptr) PyErr_Clear();
  Py_XDECREF(m);
  return m != nullptr;
}

/// `module.name` (`name` null: the module itself), importing `module` if it is not yet; a new reference, or
/// null with no error set.
inline PyObject* module_attribute(const char* module, const char* name) noexcept {
  PyObject* m = PyImport_ImportModule(module);
  PyObject* v = m == nullptr ? nullptr : name != nullptr ? PyObject_GetAttrString(m, name) : (Py_INCREF(m), m);
  Py_XDECREF(m);
  if (v == nullptr) PyErr_Clear();
  return v;
}

/// `bool(o)`; raises what its __bool__ raises.
inline bool truthy(PyObject* o) {
  const int t = PyObject_IsTrue(o);
  if (t < 0) throw nb::python_error();
  return t == 1;
}

/// `bool(obj.name())` (`name` interned); raises what the call raises.
inline bool method_true(PyObject* obj, PyObject* name) {
  nb::object r = nb::steal(PyObject_CallMethodNoArgs(obj, name));
  if (!r.is_valid()) throw nb::python_error();
  return truthy(r.ptr());
}

/// `bool(obj.name)` (`name` interned); raises what the read raises.
inline bool attr_true(PyObject* obj, PyObject* name) {
  nb::object r = nb::steal(PyObject_GetAttr(obj, name));
  if (!r.is_valid()) throw nb::python_error();
  return truthy(r.ptr());
}

/// Whether a Python object may still be released: the interpreter is up and not finalizing.
inline bool python_alive() noexcept {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

/// Deleter of a Python object held by C++ (may run on any thread, with or without the GIL).
struct PyDecref {
  void operator()(void* p) const noexcept {
    if (!python_alive()) return;  // leaked on purpose: the interpreter is going away
    GilAcquired gil;
    Py_DECREF(static_cast<PyObject*>(p));
  }
};

/// A strong reference as a shared_ptr C++ may drop anywhere (null for None).
inline std::shared_ptr<void> keep_python(nb::handle obj) {
  if (!obj.is_valid() || obj.is_none()) return nullptr;
  return std::shared_ptr<void>(nb::borrow(obj).release().ptr(), PyDecref{});
}

/// The Python object an owner came from, or None when C++ made it.
inline nb::object python_of(const std::shared_ptr<void>& owner) {
  if (owner && std::get_deleter<PyDecref>(owner) != nullptr) return nb::borrow(static_cast<PyObject*>(owner.get()));
  return nb::none();
}

/// keep_python for owners of views and exports (never None): the object stays alive while the owner does.
inline std::shared_ptr<const void> py_ref_owner(nb::handle h) {
  return std::shared_ptr<void>(nb::borrow(h).release().ptr(), PyDecref{});
}

}  // namespace cubridge::python
