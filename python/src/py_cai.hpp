// Internal (Python glue of the array face): reading a `__cuda_array_interface__` dict into a view with
// cached interned keys and no Python-level code (the host path's `__array_interface__` is read by the
// same reader), and writing one for our arrays. Implements: CAI v3 (every key's Python type rule and the
// Python types of 'descr' lists; every value rule, one ArrayInterfaceError, lives in src/array:
// array_interface.cpp and descr.cpp) and its export.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>

#include "cubridge/array/array_interface.hpp"
#include "cubridge/array/descr.hpp"
#include "py_cai_dict_memo.hpp"
#include "py_device_array.hpp"
#include "py_identity_cache.hpp"

namespace cubridge::python {

namespace cai_detail {

constexpr const char* kWhat = "__cuda_array_interface__";

/// TypeError for the value at `path` (the full name a user reads, e.g. "device_array: descr[0]"). `got`
/// is held first: its repr runs user code, which may drop the container that held the only reference.
[[noreturn]] inline void type_error_at(const std::string& path, const char* expected, nb::handle got) {
  const nb::object held = nb::borrow(got);
  const std::string type = py_type_name(held);
  const std::string shown = py_repr(held);
  throw nb::type_error((path + ": expected " + expected + ", got " + shown + " (" + type + ")").c_str());
}

/// TypeError for `key` of the interface dict `what` (`key` like "['shape']"; the CAI's unless told).
[[noreturn]] inline void type_error(const std::string& key, const char* expected, nb::handle got,
                                    const char* what = kWhat) {
  type_error_at(std::string(what) + key, expected, got);
}

/// An int (not a bool) that fits int64; numpy integers pass through __index__. An int past 64 bits is a
/// ValueError naming `what` + `key` (the interface's name and the key).
inline bool to_int64(PyObject* o, std::int64_t& out, const char* key = "", const char* what = kWhat) {
  if (PyBool_Check(o)) return false;
  if (!PyLong_Check(o)) {
    if (!PyIndex_Check(o)) return false;
    PyObject* i = PyNumber_Index(o);
    if (i == nullptr) {
      PyErr_Clear();
      return false;
    }
    bool ok = to_int64(i, out, key, what);
    Py_DECREF(i);
    return ok;
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    throw nb::value_error((std::string(what) + key + ": integer " + py_repr(o) + " does not fit in 64 bits").c_str());
  }
  out = v;
  return true;
}

/// `o` (a tuple or a list) as a tuple we hold a reference to: reading its items may run user code
/// (`__index__`), which may mutate a list under us (a list is copied first, a tuple is immutable).
inline nb::object stable_items(PyObject* o) {
  if (PyTuple_Check(o)) return nb::borrow(o);
  PyObject* t = PyList_AsTuple(o);
  if (t == nullptr) throw nb::python_error();
  return nb::steal(t);
}

/// A tuple (or list) of ints into `buf`; returns the count. Throws TypeError naming `key`.
inline std::size_t int_sequence(PyObject* o, const char* key, std::vector<std::int64_t>& buf) {
  if (!PyTuple_Check(o) && !PyList_Check(o)) type_error(key, "a tuple of int", o);
  nb::object items = stable_items(o);
  Py_ssize_t n = PyTuple_GET_SIZE(items.ptr());
  buf.resize(static_cast<std::size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i)
    if (!to_int64(PyTuple_GET_ITEM(items.ptr(), i), buf[static_cast<std::size_t>(i)], key))
      type_error(key, "a tuple of int", o);
  return static_cast<std::size_t>(n);
}

/// Extents read on the hot path: up to 8 inline, so a typical import allocates nothing for them.
struct Dims {
  std::int64_t small[8];
  std::vector<std::int64_t> large;
  std::size_t n = 0;
  std::int64_t* resize(std::size_t k) {
    n = k;
    if (k <= 8) return small;
    large.resize(k);
    return large.data();
  }
  std::span<const std::int64_t> span() const { return {n <= 8 ? small : large.data(), n}; }
};

/// A tuple (or list) of ints into `dims`; errors name `key` of the interface dict `what`.
inline void int_sequence(PyObject* o, const char* key, Dims& dims, const char* what = kWhat) {
  if (!PyTuple_Check(o) && !PyList_Check(o)) type_error(key, "a tuple of int", o, what);
  nb::object items = stable_items(o);
  Py_ssize_t n = PyTuple_GET_SIZE(items.ptr());
  std::int64_t* out = dims.resize(static_cast<std::size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i)
    if (!to_int64(PyTuple_GET_ITEM(items.ptr(), i), out[i], key, what)) type_error(key, "a tuple of int", o, what);
}

/// The values of one interface dict (CAI or NumPy's `__array_interface__`: the same keys), read in a
/// single pass over its items (cheaper than a lookup per key: a dict holds few more items than these) and held
/// by strong references: reading them runs user code (`__index__`, `__bool__`, `__repr__`) that may empty the
/// dict. Producers' keys are interned strings, so an identity test usually decides; other str keys are
/// compared by content.
struct CaiItems {
  PyObject *shape = nullptr, *typestr = nullptr, *data = nullptr, *version = nullptr, *strides = nullptr,
           *stream = nullptr, *mask = nullptr, *descr = nullptr;

  explicit CaiItems(PyObject* d) {
    const Keys& k = Keys::get();
    PyObject* slots_keys[8] = {k.shape, k.typestr, k.data, k.version, k.strides, k.stream, k.mask, k.descr};
    PyObject** slots[8] = {&shape, &typestr, &data, &version, &strides, &stream, &mask, &descr};
    Py_ssize_t pos = 0;
    PyObject *key = nullptr, *value = nullptr;
    while (PyDict_Next(d, &pos, &key, &value)) {
      int i = 0;
      while (i < 8 && key != slots_keys[i]) ++i;
      if (i == 8 && PyUnicode_Check(key)) {
        for (i = 0; i < 8; ++i) {
          int eq = PyUnicode_Compare(key, slots_keys[i]);
          if (eq == 0) break;
          if (eq == -1 && PyErr_Occurred()) PyErr_Clear();
        }
      }
      if (i < 8) {
        Py_INCREF(value);  // strong: an __index__ run later could mutate the dict
        Py_XSETREF(*slots[i], value);  // a str subclass key equal to an interned one may come twice
      }
    }
  }
  ~CaiItems() {
    for (PyObject* v : {shape, typestr, data, version, strides, stream, mask, descr}) Py_XDECREF(v);
  }
  CaiItems(const CaiItems&) = delete;
  CaiItems& operator=(const CaiItems&) = delete;
};

/// The dtypes of recent typestr str objects, by the object's identity (py_identity_cache.hpp): a str is immutable,
/// and a producer hands the same (interned or cached) object at each export, so the array layer's parse runs once
/// per object. Only typestrs whose dict was read without error are kept (a refused one raises at each read, in the
/// order the array layer checks the keys).
inline IdentityCache<DType, 8>& typestr_dtypes() {
  static IdentityCache<DType, 8> cache;
  return cache;
}

/// Which of the two interfaces a dict is read as: the name errors start with, and its required keys.
struct InterfaceKind {
  const char* what;      // "__cuda_array_interface__" or "__array_interface__"
  const char* required;  // the required keys, as the message lists them
  const char* pointer;   // what 'data'[0] must be
};
inline constexpr InterfaceKind kCaiKind{kWhat, "'shape', 'typestr', 'data', 'version'", "an int device pointer"};
inline constexpr InterfaceKind kHostKind{"__array_interface__", "'shape', 'typestr', 'data'", "an int host pointer"};

inline PyObject* require(PyObject* v, const char* name, const InterfaceKind& kind = kCaiKind) {
  if (v == nullptr)
    throw nb::value_error((std::string(kind.what) + ": the required key '" + name + "' is missing (required: " +
                           kind.required + ")").c_str());
  return v;
}

inline PyObject* unless_none(PyObject* v) { return v == Py_None ? nullptr : v; }

/// The text of a str that must be UTF-8-encodable (a typestr), valid while `s` lives; false (no error
/// pending) when it is not (a lone surrogate): the caller raises not_utf8, never reads a null pointer.
inline bool utf8_view(PyObject* s, std::string_view& out) {
  Py_ssize_t n = 0;
  const char* text = PyUnicode_AsUTF8AndSize(s, &n);
  if (text == nullptr) {
    PyErr_Clear();
    return false;
  }
  out = {text, static_cast<std::size_t>(n)};
  return true;
}

[[noreturn]] inline void not_utf8(PyObject* s, const std::string& path) {
  throw nb::value_error((path + ": " + py_repr(s) + " cannot be encoded as UTF-8 (expected a typestr such as '<f4')").c_str());
}

/// What the two interfaces share, read from `items` by one set of rules: 'shape', 'typestr', 'data'
/// (pointer, read-only flag) and 'strides'. The views point into `items`' strong references.
struct CommonFields {
  Dims shape, strides;
  bool has_strides = false;
  std::string_view typestr;
  std::uintptr_t data = 0;
  bool read_only = false;
};

/// Called on every import: no text is built unless a value is refused.
inline void read_common(const CaiItems& items, const InterfaceKind& kind, CommonFields& out) {
  const char* what = kind.what;
  int_sequence(require(items.shape, "shape", kind), "['shape']", out.shape, what);

  PyObject* t = require(items.typestr, "typestr", kind);
  if (!PyUnicode_Check(t)) type_error("['typestr']", "a str such as '<f4'", t, what);
  if (!utf8_view(t, out.typestr)) not_utf8(t, std::string(what) + "['typestr']");

  PyObject* data = require(items.data, "data", kind);
  if (!(PyTuple_Check(data) || PyList_Check(data)) || PySequence_Fast_GET_SIZE(data) != 2)
    type_error("['data']", "a 2-tuple (pointer: int, read_only: bool)", data, what);
  const nb::object pair = stable_items(data);  // an error's repr below may empty a list
  PyObject* ptr = PyTuple_GET_ITEM(pair.ptr(), 0);
  PyObject* ro = PyTuple_GET_ITEM(pair.ptr(), 1);
  if (PyBool_Check(ptr) || !PyLong_Check(ptr)) type_error("['data'][0]", kind.pointer, ptr, what);
  // User-space addresses fit in a signed 64-bit value; the unsigned path is for the rare rest.
  int overflow = 0;
  long long sp = PyLong_AsLongLongAndOverflow(ptr, &overflow);
  unsigned long long up = overflow > 0 ? PyLong_AsUnsignedLongLong(ptr) : static_cast<unsigned long long>(sp);
  if (overflow < 0 || (overflow == 0 && sp < 0) || PyErr_Occurred()) {
    PyErr_Clear();
    throw nb::value_error((std::string(what) + "['data'][0]: " + py_repr(ptr) +
                           " is not a valid pointer (expected an int in 0 .. 2**64-1)").c_str());
  }
  if (!PyBool_Check(ro)) type_error("['data'][1]", "a bool read-only flag", ro, what);
  out.data = static_cast<std::uintptr_t>(up);
  out.read_only = ro == Py_True;

  if (PyObject* s = unless_none(items.strides)) {
    int_sequence(s, "['strides']", out.strides, what);
    out.has_strides = true;
  }
}

/// A descr list (NumPy's __array_interface__ 'descr' grammar) read into DescrField values: only the
/// Python types are checked here; descr_size/check_descr (src/array) hold every value rule. `path` names
/// the list in messages ("__cuda_array_interface__['descr']", "device_array: descr").
inline void read_descr(PyObject* descr, const std::string& path, std::vector<DescrField>& out, int depth = 0) {
  if (!PyList_Check(descr)) type_error_at(path, "a list of (name, typestr or descr[, shape]) tuples", descr);
  if (depth >= kMaxDescrDepth) throw_descr_too_deep(path);
  nb::object fields = stable_items(descr);  // reading extents runs __index__, which may mutate the list
  const Py_ssize_t n = PyTuple_GET_SIZE(fields.ptr());
  out.resize(static_cast<std::size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* f = PyTuple_GET_ITEM(fields.ptr(), i);
    DescrField& field = out[static_cast<std::size_t>(i)];
    const std::string here = path + "[" + std::to_string(i) + "]";
    if (!PyTuple_Check(f) || (PyTuple_GET_SIZE(f) != 2 && PyTuple_GET_SIZE(f) != 3))
      type_error_at(here, "a (name, typestr or descr[, shape]) tuple", f);
    PyObject* name = PyTuple_GET_ITEM(f, 0);
    bool name_ok = PyUnicode_Check(name) ||
                   (PyTuple_Check(name) && PyTuple_GET_SIZE(name) == 2 &&
                    PyUnicode_Check(PyTuple_GET_ITEM(name, 0)) && PyUnicode_Check(PyTuple_GET_ITEM(name, 1)));
    if (!name_ok) type_error_at(here + "[0]", "a field name (str, or a (title, name) pair of str)", name);
    PyObject* type = PyTuple_GET_ITEM(f, 1);
    if (PyUnicode_Check(type)) {
      std::string_view text;
      if (!utf8_view(type, text)) not_utf8(type, here + "[1]");
      field.typestr = text;
    } else if (PyList_Check(type)) {
      field.nested = true;
      read_descr(type, here + "[1]", field.fields, depth + 1);
    } else {
      type_error_at(here + "[1]", "a typestr or a nested descr list", type);
    }
    if (PyTuple_GET_SIZE(f) == 3) {
      PyObject* shape = PyTuple_GET_ITEM(f, 2);
      std::int64_t one = 0;
      if (to_int64(shape, one)) {
        field.shape.push_back(one);
      } else if (PyTuple_Check(shape) || PyList_Check(shape)) {
        nb::object extents = stable_items(shape);
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(extents.ptr()); ++j) {
          PyObject* e = PyTuple_GET_ITEM(extents.ptr(), j);
          if (!to_int64(e, one)) type_error_at(here + "[2][" + std::to_string(j) + "]", "an int", e);
          field.shape.push_back(one);
        }
      } else {
        type_error_at(here + "[2]", "an int or a tuple of int", shape);
      }
    }
  }
}

/// Checks a descr list against the typestr's `dtype` (read_descr, then the array layer's check_descr).
inline void check_descr_list(PyObject* descr, const DType& dtype, const std::string& path) {
  std::vector<DescrField> fields;
  read_descr(descr, path, fields);
  check_descr(fields, dtype, path);
}

/// The descr every plain producer sends (CuPy always does): [('', typestr)], the same typestr as 'typestr'.
/// It adds nothing to the typestr, so the import skips parsing and keeping it (the common, hot case).
inline bool is_default_descr(PyObject* descr, PyObject* typestr) {
  if (!PyList_Check(descr) || PyList_GET_SIZE(descr) != 1) return false;
  PyObject* f = PyList_GET_ITEM(descr, 0);
  if (!PyTuple_Check(f) || PyTuple_GET_SIZE(f) != 2) return false;
  PyObject* name = PyTuple_GET_ITEM(f, 0);
  PyObject* type = PyTuple_GET_ITEM(f, 1);
  return PyUnicode_Check(name) && PyUnicode_GET_LENGTH(name) == 0 && PyUnicode_Check(type) &&
         (type == typestr || PyUnicode_Compare(type, typestr) == 0);
}

}  // namespace cai_detail

/// The view read before from `desc`, unchanged since (a producer's prebuilt interface), or null (py_cai_dict_memo.hpp).
inline const ArrayView* remembered_cai_view(nb::handle desc, const ImportOptions& options) noexcept {
  return PyDict_Check(desc.ptr()) ? cai_memo::find(desc.ptr(), options, cai_detail::is_default_descr) : nullptr;
}

/// read_cai past the memo (a caller that asked remembered_cai_view already): every item read.
inline void read_cai_afresh(PyDeviceArray& out, nb::handle desc, nb::handle owner, ImportOptions options) {
  using namespace cai_detail;
  const Keys& k = Keys::get();
  PyObject* d = desc.ptr();
  if (!PyDict_Check(d)) type_error("", "a dict", desc);
  const std::uint64_t read_at = dict_version(d);

  ArrayInterface ai;
  std::int64_t version = 0;
  const CaiItems items(d);
  PyObject* v = require(items.version, "version");
  if (!to_int64(v, version, "['version']")) type_error("['version']", "an int (3)", v);
  ai.version = version;  // its range, like every value rule, is the array layer's

  CommonFields common;
  read_common(items, kCaiKind, common);
  ai.shape = common.shape.span();
  ai.typestr = common.typestr;
  if (const DType* known = typestr_dtypes().find(items.typestr)) ai.parsed = *known;
  ai.data = common.data;
  ai.read_only = common.read_only;
  if (common.has_strides) ai.strides = common.strides.span();
  if (version >= 3) {
    if (PyObject* st = unless_none(items.stream)) {
      std::int64_t sv = 0;
      if (!to_int64(st, sv, "['stream']")) type_error("['stream']", "None or an int (1 legacy, 2 per-thread, or a handle)", st);
      if (sv < 0)
        throw nb::value_error((std::string(kWhat) + "['stream']: " + std::to_string(sv) +
                               " is negative (expected None, 1, 2 or a stream handle)")
                                  .c_str());
      ai.stream = static_cast<std::uintptr_t>(sv);
    }
  }
  PyObject* mask = unless_none(items.mask);
  ai.has_mask = mask != nullptr;
  PyObject* descr = unless_none(items.descr);
  if (descr != nullptr && is_default_descr(descr, items.typestr)) descr = nullptr;  // [('', typestr)] says nothing more

  out.view = view_from_interface(ai, nullptr, options);
  if (!ai.parsed) typestr_dtypes().keep(items.typestr, parse_typestr(ai.typestr, std::string(kWhat) + "['typestr']"));
  if (mask == nullptr && descr == nullptr)
    cai_memo::keep(d, read_at, options, out.view, items.shape, items.typestr, items.data, items.version,
                   unless_none(items.strides), unless_none(items.stream), unless_none(items.descr));
  if (descr != nullptr) {
    check_descr_list(descr, out.view.dtype(), std::string(kWhat) + "['descr']");
    out.descr = nb::borrow(descr);
  }
  if (mask != nullptr) {
    PyObject* mcai = PyObject_GetAttr(mask, k.cai);
    if (mcai == nullptr) {
      if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw nb::python_error();  // the getter failed: its error
      PyErr_Clear();
      type_error("['mask']", "None or an object exposing __cuda_array_interface__", mask);
    }
    nb::object mdesc = nb::steal(mcai);
    PyDeviceArray m;
    ImportOptions mask_options = options;
    mask_options.is_mask = true;
    read_cai_afresh(m, mdesc, mask, mask_options);  // a mask's dict is never remembered
    out.view = with_mask_of_interface(std::move(out.view), m.view);
    out.mask = wrap(std::move(m));
  }
  out.producer = nb::borrow(owner);
}

/// Reads `desc` (a CAI dict) into `out`, a new array (it may be the one inside its Python object).
/// `owner` (may be None) is kept alive by the result; `options` say whether to follow the consumer rule of
/// CAI v3 "stream" and to ask the driver about the pointer. Every malformed value raises TypeError/ValueError
/// naming the key.
inline void read_cai(PyDeviceArray& out, nb::handle desc, nb::handle owner, ImportOptions options = {}) {
  if (const ArrayView* seen = remembered_cai_view(desc, options)) {
    out.view = *seen;
    out.producer = nb::borrow(owner);
    return;
  }
  read_cai_afresh(out, desc, owner, options);
}

/// read_cai into a new array.
inline PyDeviceArray array_from_cai(nb::handle desc, nb::handle owner, ImportOptions options) {
  PyDeviceArray out;
  read_cai(out, desc, owner, options);
  return out;
}

namespace cai_detail {
inline PyObject* int_tuple(std::span<const std::int64_t> v) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(v.size()));
  if (t == nullptr) throw nb::python_error();
  for (std::size_t i = 0; i < v.size(); ++i) {
    PyObject* x = PyLong_FromLongLong(v[i]);
    if (x == nullptr) {
      Py_DECREF(t);
      throw nb::python_error();
    }
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), x);
  }
  return t;
}
inline void set(PyObject* d, PyObject* key, PyObject* value) {
  if (PyDict_SetItem(d, key, value) != 0) throw nb::python_error();
}
}  // namespace cai_detail

inline const nb::object& shape_tuple(PyDeviceArray& a) {
  if (!a.shape_cache.is_valid()) a.shape_cache = nb::steal(cai_detail::int_tuple(a.view.shape()));
  return a.shape_cache;
}

inline const nb::object& strides_tuple(PyDeviceArray& a) {
  if (!a.strides_cache.is_valid()) a.strides_cache = nb::steal(cai_detail::int_tuple(a.view.strides()));
  return a.strides_cache;
}

inline const nb::object& typestr_str(PyDeviceArray& a) {
  if (!a.typestr_cache.is_valid()) a.typestr_cache = nb::steal(PyUnicode_InternFromString(a.view.dtype().typestr()));
  return a.typestr_cache;
}

/// The export: version 3; "stream" is 1, 2, a handle, or None (never 0); strides None when implicit.
inline nb::object cai_dict(PyDeviceArray& a) {
  using namespace cai_detail;
  const Keys& k = Keys::get();
  if (!a.data_cache.is_valid()) {
    PyObject* p = PyLong_FromVoidPtr(a.view.data());
    if (p == nullptr) throw nb::python_error();
    a.data_cache = nb::steal(PyTuple_Pack(2, p, a.view.read_only() ? Py_True : Py_False));
    Py_DECREF(p);
    if (!a.data_cache.is_valid()) throw nb::python_error();
  }
  nb::object d = nb::steal(PyDict_New());
  if (!d.is_valid()) throw nb::python_error();
  set(d.ptr(), k.shape, shape_tuple(a).ptr());
  set(d.ptr(), k.typestr, typestr_str(a).ptr());
  set(d.ptr(), k.data, a.data_cache.ptr());
  static PyObject* three = PyLong_FromLong(kCudaArrayInterfaceVersion);
  set(d.ptr(), k.version, three);
  set(d.ptr(), k.strides, a.view.strides_implicit() ? Py_None : strides_tuple(a).ptr());
  if (a.descr.is_valid() && !a.descr.is_none()) set(d.ptr(), k.descr, a.descr.ptr());
  if (a.mask.is_valid() && !a.mask.is_none()) set(d.ptr(), k.mask, a.mask.ptr());
  // An array on no particular stream exports None, unless our own work on it is still pending on some
  // stream: then those are joined into the legacy default stream, which is what it names.
  if ((a.view.stream() || !a.pending.empty()) && export_stream_enabled()) {
    settle_pending(a);
    retain_exported_stream(a);
    PyObject* s = PyLong_FromSize_t(a.view.stream() ? a.view.stream()->cai_value() : 1u);
    if (s == nullptr) throw nb::python_error();
    int rc = PyDict_SetItem(d.ptr(), k.stream, s);
    Py_DECREF(s);
    if (rc != 0) throw nb::python_error();
  } else {
    set(d.ptr(), k.stream, Py_None);
  }
  return d;
}

}  // namespace cubridge::python
