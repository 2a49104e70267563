// Internal (Python glue of the array face): where a CuPy ndarray keeps the facts its
// `__cuda_array_interface__` reports, so that py_import.hpp's CuPy reader reads them from the object
// instead of through five attribute reads (~0.3-0.8 µs an array, more than the rest of an import).
//
// The offsets of the ndarray's shape and strides (C++ vectors of Py_ssize_t), dtype and data
// (a MemoryPointer) fields, and of the MemoryPointer's address, are learnt once per process from decoy
// arrays that CuPy itself builds with known, distinct facts over an UnownedMemory at made-up addresses
// (nothing is allocated, nothing touches the GPU). A field found at no offset, or at more than one, in
// any decoy leaves the layout unknown, and CuPy arrays are then read through their attributes: nothing
// about CuPy's version is assumed, only what its own objects show.
//
// Also CuPy's current- and default-stream functions, taken from the C functions its Cython modules export
// to other Cython modules (`__pyx_capi__`, each capsule named by its C signature) when the signatures are
// the expected ones; else the Python functions are called. Included only by py_import.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <vector>

#include "py_common.hpp"

namespace cubridge::python::cupy_layout {

static_assert(sizeof(Py_ssize_t) == sizeof(std::int64_t), "CuPy's shape_t is a vector of Py_ssize_t");

/// Where the facts are, in bytes from the start of the object; all -1 while unknown.
struct Offsets {
  Py_ssize_t shape = -1, strides = -1, dtype = -1, data = -1;
  PyTypeObject* memory_pointer = nullptr;  // the exact type of the data field (cupy.cuda.MemoryPointer)
  Py_ssize_t address = -1;                 // the MemoryPointer's `ptr`
  bool known() const noexcept { return address >= 0; }
};

/// What the reader takes from an ndarray. The spans point into the array's own vectors: valid only
/// until Python code runs.
struct Fields {
  std::span<const std::int64_t> shape, strides;
  PyObject* dtype = nullptr;  // borrowed
  std::intptr_t address = 0;
};

namespace detail {

template <class T>
inline T at(const PyObject* o, Py_ssize_t offset) noexcept {
  T v;
  std::memcpy(&v, reinterpret_cast<const char*>(o) + offset, sizeof(T));
  return v;
}

/// A std::vector<Py_ssize_t>'s elements at `offset` (begin, end, capacity pointers), or false when the three
/// words are no such vector of `n` elements (n = -1: any count up to 64).
inline bool vector_at(const PyObject* o, Py_ssize_t offset, Py_ssize_t n, std::span<const std::int64_t>& out) noexcept {
  const auto b = at<std::uintptr_t>(o, offset);
  const auto e = at<std::uintptr_t>(o, offset + 8);
  const auto c = at<std::uintptr_t>(o, offset + 16);
  if (e < b || c < e || (e - b) % 8 != 0 || b % alignof(std::int64_t) != 0) return false;
  const std::size_t count = (e - b) / 8;
  if (n >= 0 ? count != static_cast<std::size_t>(n) : count > 64) return false;
  if (count > 0 && b == 0) return false;
  out = {reinterpret_cast<const std::int64_t*>(b), count};
  return true;
}

/// A decoy array's facts: distinct from each other's and from every other field's likely values.
struct Decoy {
  std::vector<std::int64_t> shape, strides;
  const char* dtype;
  std::intptr_t address;
  int device;
};

inline std::vector<Decoy> decoys() {
  return {{{3, 5, 7}, {4096, 264, 8}, "float64", 0x7a5a00001000, 3},
          {{11, 13}, {66, 2}, "int16", 0x6b4b00802000, 5},
          {{17}, {24}, "complex64", 0x5c3c00403000, 7}};
}

/// The one offset (a multiple of 8, past the object header, inside `size` bytes) where `holds` is true for
/// every decoy, or -1 when none or several are.
template <class Pred>
inline Py_ssize_t only_offset(Py_ssize_t size, Py_ssize_t width, Pred holds) {
  Py_ssize_t found = -1;
  for (Py_ssize_t off = sizeof(PyObject); off + width <= size; off += 8) {
    if (!holds(off)) continue;
    if (found >= 0) return -1;
    found = off;
  }
  return found;
}

}  // namespace detail

/// Learns the offsets from decoys (see the file's comment); unknown Offsets when CuPy is not importable,
/// builds its arrays differently, or anything fails. Never raises.
inline Offsets learn() {
  using namespace detail;
  try {
    nb::module_ cupy = nb::module_::import_("cupy");
    nb::module_ memory = nb::module_::import_("cupy.cuda.memory");
    struct Made {
      const Decoy* d;
      nb::object array, dtype, data;
    };
    const std::vector<Decoy> ds = decoys();
    std::vector<Made> made;
    PyTypeObject* array_type = nullptr;
    PyTypeObject* pointer_type = nullptr;
    for (const Decoy& d : ds) {
      nb::object mem = memory.attr("UnownedMemory")(d.address, std::int64_t{1} << 40, nb::none(), d.device);
      nb::object pointer = memory.attr("MemoryPointer")(mem, 0);
      nb::list shape, strides;
      for (std::int64_t v : d.shape) shape.append(v);
      for (std::int64_t v : d.strides) strides.append(v);
      nb::object a = cupy.attr("ndarray")(nb::tuple(shape), d.dtype, pointer, nb::tuple(strides));
      Made m{&d, a, a.attr("dtype"), a.attr("data")};
      if (array_type == nullptr) array_type = Py_TYPE(a.ptr()), pointer_type = Py_TYPE(m.data.ptr());
      if (Py_TYPE(a.ptr()) != array_type || Py_TYPE(m.data.ptr()) != pointer_type ||
          nb::cast<std::intptr_t>(m.data.attr("ptr")) != d.address)
        return {};
      made.push_back(std::move(m));
    }
    if (array_type != reinterpret_cast<PyTypeObject*>(cupy.attr("ndarray").ptr())) return {};
    Offsets o;
    const Py_ssize_t size = array_type->tp_basicsize;
    auto same_vector = [&](Py_ssize_t off, bool strides) {
      for (const Made& m : made) {
        const std::vector<std::int64_t>& want = strides ? m.d->strides : m.d->shape;
        std::span<const std::int64_t> got;
        if (!vector_at(m.array.ptr(), off, static_cast<Py_ssize_t>(want.size()), got) ||
            !std::equal(got.begin(), got.end(), want.begin(), want.end()))
          return false;
      }
      return true;
    };
    auto same_object = [&](Py_ssize_t off, nb::object Made::*field) {
      for (const Made& m : made)
        if (at<PyObject*>(m.array.ptr(), off) != (m.*field).ptr()) return false;
      return true;
    };
    o.shape = only_offset(size, 24, [&](Py_ssize_t off) { return same_vector(off, false); });
    o.strides = only_offset(size, 24, [&](Py_ssize_t off) { return same_vector(off, true); });
    o.dtype = only_offset(size, 8, [&](Py_ssize_t off) { return same_object(off, &Made::dtype); });
    o.data = only_offset(size, 8, [&](Py_ssize_t off) { return same_object(off, &Made::data); });
    const Py_ssize_t address = only_offset(pointer_type->tp_basicsize, 8, [&](Py_ssize_t off) {
      for (const Made& m : made)
        if (at<std::intptr_t>(m.data.ptr(), off) != m.d->address) return false;
      return true;
    });
    if (o.shape < 0 || o.strides < 0 || o.dtype < 0 || o.data < 0 || address < 0) return {};
    Py_INCREF(pointer_type);  // kept for the process, like the other CuPy facts
    o.memory_pointer = pointer_type;
    o.address = address;
    return o;
  } catch (...) {
    PyErr_Clear();
    return {};
  }
}

/// The facts of `array` (an object of exactly the type the offsets were learnt on), or false when a field
/// is not what the layout expects (the caller then reads the attributes).
inline bool read(PyObject* array, const Offsets& o, Fields& out) noexcept {
  using detail::at;
  if (!detail::vector_at(array, o.shape, -1, out.shape) ||
      !detail::vector_at(array, o.strides, static_cast<Py_ssize_t>(out.shape.size()), out.strides))
    return false;
  out.dtype = at<PyObject*>(array, o.dtype);
  PyObject* data = at<PyObject*>(array, o.data);
  if (out.dtype == nullptr || data == nullptr || Py_TYPE(data) != o.memory_pointer) return false;
  out.address = at<std::intptr_t>(data, o.address);
  return true;
}

/// CuPy's stream functions as the C functions its modules export, or null where a module does not export
/// one with the expected signature.
struct StreamFunctions {
  std::intptr_t (*current)() = nullptr;         // see stream_functions()
  std::intptr_t (*default_stream)(int) = nullptr;  // cupy_backends.cuda.stream.get_default_stream_ptr (cpdef)
  const char* current_from = nullptr;           // the module whose get_current_stream_ptr `current` is
};

/// The C function `name` that `module` exports under the capsule name `signature`, or null. Never raises.
inline void* exported_function(const char* module, const char* name, const char* signature) {
  PyObject* table = module_attribute(module, "__pyx_capi__");
  PyObject* capsule = table != nullptr && PyDict_Check(table) ? PyDict_GetItemString(table, name) : nullptr;  // borrowed
  void* f = capsule != nullptr && PyCapsule_IsValid(capsule, signature) ? PyCapsule_GetPointer(capsule, signature) : nullptr;
  Py_XDECREF(table);
  PyErr_Clear();
  return f;
}

/// The current stream: CuPy keeps it in cupy_backends.cuda.stream (a per-thread, per-device list its
/// set_current_stream_ptr writes), and cupy.cuda.stream.get_current_stream_ptr, what CuPy's own launches and
/// its CAI export ask, returns that module's get_current_stream_ptr() after a thread-local lookup of its own
/// (CuPy 10 to 15). Asked directly it is the same value for one thread-local lookup less (~30 ns a launch on
/// CuPy arrays); the front module's function is the fallback where the backend exports none.
inline StreamFunctions stream_functions() {
  StreamFunctions s;
  for (const char* module : {"cupy_backends.cuda.stream", "cupy.cuda.stream"}) {
    s.current = reinterpret_cast<std::intptr_t (*)()>(exported_function(module, "get_current_stream_ptr", "intptr_t (void)"));
    if (s.current != nullptr) {
      s.current_from = module;
      break;
    }
  }
  s.default_stream = reinterpret_cast<std::intptr_t (*)(int)>(
      exported_function("cupy_backends.cuda.stream", "get_default_stream_ptr", "intptr_t (int __pyx_skip_dispatch)"));
  return s;
}

}  // namespace cubridge::python::cupy_layout
