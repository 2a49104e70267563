// Internal (Python glue of the array face): numba-cuda's DeviceNDArray read without its
// `__cuda_array_interface__` property, a Python function that builds a dict at every read (~1.5 µs an
// array, the larger part of a launch on numba device arrays). What the property reports (numba-cuda 0.30,
// cudadrv/devicearray.py) is read from the same attributes it reads: `shape`, `strides`, `dtype`, `stream`,
// and the address `gpu_data.device_ctypes_pointer` gives, which numba's MemoryPointer computes as
// `int(device_pointer)` (an OwnedPointer, what numba's allocations are, keeps that ctypes integer itself, whose
// value is read from the ctypes object: its `.value` attribute makes a Python int at each read).
//
// Only where the property is numba's own: the exact type DeviceNDArray whose class still has
// DeviceNDArrayBase's `__cuda_array_interface__` and `device_ctypes_pointer`, a memory object whose class has
// MemoryPointer's `device_ctypes_pointer`, a stream of 0. Anything else (a subclass, a bound stream, another
// memory class, a record or bfloat16 dtype) is read through the property, as before. Resolved once numba-cuda's
// devicearray module is imported by the program (never imported here). Included only by py_import.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>

#include "py_address_sets.hpp"
#include "py_common.hpp"
#include "py_dict_version.hpp"

namespace cubridge::python::numba_reader {

/// numba-cuda's classes and the class attributes the property relies on; all null when numba-cuda is not
/// imported or does not look as expected. References kept for the process.
struct Classes {
  PyTypeObject* device_ndarray = nullptr;
  PyObject* interface_property = nullptr;  // DeviceNDArrayBase.__dict__['__cuda_array_interface__']
  PyObject* array_pointer_property = nullptr;  // DeviceNDArrayBase.__dict__['device_ctypes_pointer']
  PyObject* memory_pointer_property = nullptr;  // MemoryPointer.__dict__['device_ctypes_pointer']
  PyTypeObject* owned_pointer = nullptr;   // OwnedPointer (holds its view's device_ctypes_pointer)
  // ctypes.c_size_t (numba's cu_device_ptr, what its MemoryPointer gives) and ctypes.c_void_p, where their value
  // can be read from the object (detail::learn_pointer_type), else null
  PyTypeObject* c_size_t = nullptr;
  PyTypeObject* c_void_p = nullptr;

  bool usable() const noexcept { return device_ndarray != nullptr; }
};

namespace detail {

/// What Python's lookup of `name` on the class `cls` finds first in its MRO (the class's own definition for the
/// classes asked here); a new reference or null. Never tp_dict: Python 3.12 leaves it null for builtin types.
inline PyObject* class_attribute(PyObject* cls, const char* name) {
  if (cls == nullptr || !PyType_Check(cls)) return nullptr;
  nb::str key(name);
  PyObject* v = _PyType_Lookup(reinterpret_cast<PyTypeObject*>(cls), key.ptr());  // borrowed
  Py_XINCREF(v);
  return v;
}

/// The pointer-sized value a ctypes c_size_t or c_void_p holds, read from the object: CPython's CDataObject puts
/// `b_ptr` (its memory block) right after the object header (Modules/_ctypes/ctypes.h, unchanged since Python 3.0).
inline std::uintptr_t ctypes_word(PyObject* o) noexcept {
  const char* block = *reinterpret_cast<char* const*>(reinterpret_cast<const char*>(o) + sizeof(PyObject));
  return *reinterpret_cast<const std::uintptr_t*>(block);
}

/// ctypes.`name` (c_size_t or c_void_p) where ctypes_word reads back what `.value` holds, for decoys made here (a
/// large value, 0, one assigned after construction); else null (then `.value` is asked). A new reference.
inline PyTypeObject* learn_pointer_type(const char* name) {
  PyObject* type = module_attribute("ctypes", name);
  if (type == nullptr || !PyType_Check(type)) {
    Py_XDECREF(type);
    return nullptr;
  }
  constexpr unsigned long long assigned = 0x7f00dead0000beefull;
  bool ok = true;
  for (const unsigned long long v : {0x5a5a1234567890a8ull, 0ull, assigned}) {
    nb::object decoy = nb::steal(PyObject_CallOneArg(type, nb::int_(v == assigned ? 8ull : v).ptr()));
    if (decoy.is_valid() && v == assigned && PyObject_SetAttrString(decoy.ptr(), "value", nb::int_(v).ptr()) != 0)
      decoy.reset();
    ok = ok && decoy.is_valid() && Py_TYPE(decoy.ptr()) == reinterpret_cast<PyTypeObject*>(type) &&
         ctypes_word(decoy.ptr()) == v;
  }
  PyErr_Clear();
  if (!ok) {
    Py_DECREF(type);
    return nullptr;
  }
  return reinterpret_cast<PyTypeObject*>(type);
}

}  // namespace detail

/// Resolved at the first question after the program imported numba-cuda's devicearray module.
inline const Classes& classes() {
  static Classes c;
  static bool resolved = false;
  if (resolved) return c;
  static const char* const arrays = "numba.cuda.cudadrv.devicearray";
  static const char* const driver = "numba.cuda.cudadrv.driver";  // imported by devicearray already
  if (!module_imported(arrays)) return c;  // asked again later
  resolved = true;
  PyObject* ndarray = module_attribute(arrays, "DeviceNDArray");
  PyObject* base = module_attribute(arrays, "DeviceNDArrayBase");
  PyObject* memory_pointer = module_attribute(driver, "MemoryPointer");
  PyObject* owned = module_attribute(driver, "OwnedPointer");
  Classes f;
  f.interface_property = detail::class_attribute(base, "__cuda_array_interface__");
  f.array_pointer_property = detail::class_attribute(base, "device_ctypes_pointer");
  f.memory_pointer_property = detail::class_attribute(memory_pointer, "device_ctypes_pointer");
  // An OwnedPointer's device_ctypes_pointer is read from its instance dict: only where no class attribute
  // of that name and no __getattribute__ of its own would come first.
  nb::object getattribute = nb::steal(detail::class_attribute(owned, "__getattribute__"));
  nb::object object_getattribute = nb::steal(detail::class_attribute(reinterpret_cast<PyObject*>(&PyBaseObject_Type),
                                                                     "__getattribute__"));
  nb::object owned_pointer_attribute = nb::steal(detail::class_attribute(owned, "device_ctypes_pointer"));
  const bool owned_plain = getattribute.is_valid() && getattribute.ptr() == object_getattribute.ptr() &&
                           !owned_pointer_attribute.is_valid();
  const bool ok = ndarray != nullptr && PyType_Check(ndarray) && owned != nullptr && PyType_Check(owned) &&
                  owned_plain && f.interface_property != nullptr && f.array_pointer_property != nullptr &&
                  f.memory_pointer_property != nullptr;
  if (ok) {
    f.device_ndarray = reinterpret_cast<PyTypeObject*>(ndarray);
    f.owned_pointer = reinterpret_cast<PyTypeObject*>(owned);
    f.c_size_t = detail::learn_pointer_type("c_size_t");
    f.c_void_p = detail::learn_pointer_type("c_void_p");
    c = f;
  } else {
    Py_XDECREF(ndarray);
    Py_XDECREF(owned);
    Py_XDECREF(f.interface_property);
    Py_XDECREF(f.array_pointer_property);
    Py_XDECREF(f.memory_pointer_property);
  }
  Py_XDECREF(base);
  Py_XDECREF(memory_pointer);
  return c;
}

/// The attributes of a DeviceNDArray the property reads, each an instance attribute.
struct Names {
  PyObject *shape, *strides, *dtype, *stream, *gpu_data;
  static const Names& get() {
    static const Names n = [] {
      auto s = [](const char* t) { return PyUnicode_InternFromString(t); };
      return Names{s("shape"), s("strides"), s("dtype"), s("stream"), s("gpu_data")};
    }();
    return n;
  }
};

/// Whether objects of exactly `tp` are numba's DeviceNDArray with numba's own property, whose attributes the
/// property reads are found in the instance's dict by Python's own lookup: the class's attribute lookup is the
/// generic one and no class attribute of those names (a data descriptor would come first) exists.
inline bool is_device_ndarray(PyTypeObject* tp) {
  const Classes& c = classes();
  if (!c.usable() || tp != c.device_ndarray || tp->tp_getattro != PyObject_GenericGetAttr) return false;
  static PyObject* const cai = PyUnicode_InternFromString("__cuda_array_interface__");
  static PyObject* const pointer = PyUnicode_InternFromString("device_ctypes_pointer");
  const Names& n = Names::get();
  for (PyObject* name : {n.shape, n.strides, n.dtype, n.stream, n.gpu_data})
    if (_PyType_Lookup(tp, name) != nullptr) return false;
  return _PyType_Lookup(tp, cai) == c.interface_property && _PyType_Lookup(tp, pointer) == c.array_pointer_property;
}

/// What the property would report, as Python objects (held). `shape` and `strides` are the array's
/// tuples; `address` its memory's address.
struct Fields {
  nb::object shape, strides, dtype;
  std::uintptr_t address = 0;
};

/// The same facts borrowed: from the reader's slot for an unchanged array (its dict holds the objects), else from
/// the Fields read() filled. Valid until Python code runs; a caller that runs any holds them first.
struct Borrowed {
  PyObject *shape = nullptr, *strides = nullptr, *dtype = nullptr;
  std::uintptr_t address = 0;
  static Borrowed of(const Fields& f) noexcept { return {f.shape.ptr(), f.strides.ptr(), f.dtype.ptr(), f.address}; }
};

namespace detail {

/// What read() found in an array whose memory is an OwnedPointer holding a ctypes integer of a learnt type: found
/// again while both instance dicts are unchanged (their version tags, py_dict_version.hpp), which then hold the
/// same objects (the tuples, the dtype, the memory object, the ctypes integer); the integer's value is read at
/// every hit (ctypes objects are mutable). Slots by the array's address; the objects are compared by identity and
/// dereferenced only after the tags matched. What a hit compares fills the slot's first cache line (slots are
/// aligned to one), the facts it lends the second.
struct alignas(64) Seen {
  PyObject* array = nullptr;
  PyObject* dict = nullptr;
  std::uint64_t dict_version = 0;
  PyObject* memory = nullptr;  // gpu_data, which the unchanged dict holds
  PyTypeObject* memory_type = nullptr;  // its class when read (a `__class__` assignment leaves the dict's tag)
  PyObject* memory_dict = nullptr;
  std::uint64_t memory_version = 0;
  PyObject* word = nullptr;    // the ctypes integer, which the unchanged memory dict holds
  Fields fields;               // held while the slot keeps them
  std::uint64_t stamp = 0;     // when written: the oldest way of a set is replaced
};

/// The slots, in sets of 4 (py_address_sets.hpp); never destroyed: their references must not be dropped after the
/// interpreter is gone.
inline AddressSets<Seen>& seen_slots() noexcept {
  static auto* const table = new AddressSets<Seen>();
  return *table;
}

/// `array`'s slot in its set, or null.
inline Seen* seen_of(PyObject* array) noexcept {
  for (Seen& s : seen_slots().set_of(array))
    if (s.array == array) return &s;
  return nullptr;
}

/// Keeps `seen` in its array's slot: its own, else an empty one, else the set's oldest.
inline void keep_seen(Seen&& seen) {
  PyObject* const array = seen.array;
  Seen* slot = seen_slots().way_for(
      array, [array](const Seen& s) { return s.array == array; }, [](const Seen& s) { return s.array == nullptr; },
      [](const Seen&) { return true; });
  seen.stamp = seen_slots().next_stamp();
  // The old entry's references are released once the slot is whole: a release may run Python code that reads it.
  Seen old = std::exchange(*slot, std::move(seen));
}

/// read()'s facts from the array's dict `dict` (at version `dict_version`), where the slot had none; keeps them
/// in the array's slot where its memory is an OwnedPointer holding a ctypes integer of a learnt type.
inline bool read_dict(nb::handle array, const Classes& c, const nb::object& dict, std::uint64_t dict_version,
                      Fields& out) {
  static PyObject* const device_pointer = PyUnicode_InternFromString("device_pointer");
  static PyObject* const value_name = PyUnicode_InternFromString("value");
  static PyObject* const pointer_property = PyUnicode_InternFromString("device_ctypes_pointer");
  auto get = [](PyObject* o, PyObject* name) {
    nb::object v = nb::steal(PyObject_GetAttr(o, name));
    if (!v.is_valid()) throw nb::python_error();
    return v;
  };
  const Names& n = Names::get();
  auto item = [&](PyObject* name) {
    PyObject* v = PyDict_GetItemWithError(dict.ptr(), name);  // borrowed
    if (v == nullptr && PyErr_Occurred()) throw nb::python_error();
    return nb::borrow(v);  // invalid where absent: the property's own read raises its error
  };
  nb::object s = item(n.stream);
  if (!s.is_valid() || !PyLong_CheckExact(s.ptr()) || PyLong_AsLong(s.ptr()) != 0) {  // a bound stream: the property words it
    PyErr_Clear();
    return false;
  }
  out.shape = item(n.shape);
  out.strides = item(n.strides);
  out.dtype = item(n.dtype);
  nb::object memory = item(n.gpu_data);
  if (!out.shape.is_valid() || !out.strides.is_valid() || !out.dtype.is_valid() || !memory.is_valid() ||
      !PyTuple_CheckExact(out.shape.ptr()) || !PyTuple_CheckExact(out.strides.ptr()))
    return false;
  nb::object value;  // what `device_ctypes_pointer.value` would be
  if (Py_TYPE(memory.ptr()) == c.owned_pointer) {
    // An OwnedPointer keeps its view's `device_ctypes_pointer` (a ctypes integer) as an instance attribute,
    // which the property reads as it is: from the instance's dict (classes() checked that nothing in the class
    // comes first; its __getattr__ runs only for names the dict lacks).
    nb::object owned = nb::steal(PyObject_GenericGetDict(memory.ptr(), nullptr));
    if (!owned.is_valid()) throw nb::python_error();
    PyObject* ctypes_value = PyDict_GetItemWithError(owned.ptr(), pointer_property);  // borrowed
    if (ctypes_value == nullptr) {
      if (PyErr_Occurred()) throw nb::python_error();
      return false;
    }
    if (PyTypeObject* tp = Py_TYPE(ctypes_value); tp == c.c_size_t || tp == c.c_void_p) {
      out.address = detail::ctypes_word(ctypes_value);  // `.value` (c_void_p's None for null: the property's 0)
      if (out.address > static_cast<std::uintptr_t>(INTPTR_MAX)) return false;  // past 63 bits: as below
      const std::uint64_t owned_version = python::dict_version(owned.ptr());
      if (dict_version != 0 && owned_version != 0 && python::dict_version(dict.ptr()) == dict_version)
        detail::keep_seen(detail::Seen{array.ptr(), dict.ptr(), dict_version, memory.ptr(), Py_TYPE(memory.ptr()),
                                       owned.ptr(), owned_version, ctypes_value, out});
      return true;
    }
    value = get(ctypes_value, value_name);
  } else if (_PyType_Lookup(Py_TYPE(memory.ptr()), pointer_property) == c.memory_pointer_property) {
    value = nb::steal(PyNumber_Long(get(memory.ptr(), device_pointer).ptr()));  // MemoryPointer's: int(device_pointer)
    if (!value.is_valid()) {  // no int (an older numba's ctypes pointer): the property knows its own
      PyErr_Clear();
      return false;
    }
  } else {
    return false;  // another memory class (None, an EMM plugin's own): the property itself is asked
  }
  if (value.is_none()) {
    out.address = 0;  // c_void_p(None).value: the property reports 0
    return true;
  }
  if (!PyLong_Check(value.ptr())) return false;
  // PyLong_AsLong reads the digits directly; the long long and unsigned forms go through a byte array.
  static_assert(sizeof(long) == sizeof(std::uintptr_t), "an LP64 platform");
  const long a = PyLong_AsLong(value.ptr());
  if (a == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    return false;  // past 63 bits: the property reports it in its words
  }
  if (a < 0) return false;  // not an address: the property reports it in its words
  out.address = static_cast<std::uintptr_t>(a);
  return true;
}

}  // namespace detail

/// The attributes the property reads into `out`, borrowed (an unchanged array's from the slot, with no reference
/// count touched: each costs a write to the object), else read into `held`; false where the property must be asked
/// itself (see the file's comment). Raises what an attribute read raises.
inline bool read(nb::handle array, const Classes& c, Fields& held, Borrowed& out) {
  // The instance's own dict (is_device_ndarray checked that Python's lookup ends there for these names).
  nb::object dict = nb::steal(PyObject_GenericGetDict(array.ptr(), nullptr));
  if (!dict.is_valid()) throw nb::python_error();
  const std::uint64_t dict_version = python::dict_version(dict.ptr());
  if (const detail::Seen* seen = dict_version != 0 ? detail::seen_of(array.ptr()) : nullptr;
      seen != nullptr && seen->dict == dict.ptr() && seen->dict_version == dict_version &&
      Py_TYPE(seen->memory) == seen->memory_type) {  // the unchanged dict holds `memory`: alive
    nb::object owned = nb::steal(PyObject_GenericGetDict(seen->memory, nullptr));
    if (!owned.is_valid()) throw nb::python_error();
    // `word` is dereferenced only once the memory's dict, unchanged, is known to hold it.
    if (owned.ptr() == seen->memory_dict && python::dict_version(owned.ptr()) == seen->memory_version &&
        (Py_TYPE(seen->word) == c.c_size_t || Py_TYPE(seen->word) == c.c_void_p)) {
      out = Borrowed::of(seen->fields);
      out.address = detail::ctypes_word(seen->word);
      return out.address <= static_cast<std::uintptr_t>(INTPTR_MAX);
    }
  }
  const bool found = detail::read_dict(array, c, dict, dict_version, held);
  out = Borrowed::of(held);
  return found;
}

/// numba-cuda's `is_contiguous` (cudadrv/devicearray.py), by which the property reports strides as None:
/// C order over the extents past 1 whose stride is not 0.
inline bool numba_contiguous(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides,
                             std::int64_t itemsize) noexcept {
  std::int64_t size = itemsize;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] > 1 && strides[i] != 0) {
      if (size != strides[i] || __builtin_mul_overflow(size, shape[i], &size)) return false;
    }
  }
  return true;
}

}  // namespace cubridge::python::numba_reader
