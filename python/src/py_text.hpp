// Internal: how the Python glue shows a user's value in an error message. One repr for all of it: a
// value whose repr raises, or is not valid UTF-8 (a lone surrogate), must still give a message, never a
// std::bad_cast or a pending Python exception.
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <string>

namespace cubridge::python {
namespace nb = nanobind;

/// repr(h), at most 200 characters, "<unprintable>" when repr fails or cannot be encoded; clears the error.
inline std::string py_repr(nb::handle h) {
  PyObject* r = PyObject_Repr(h.ptr());
  if (r == nullptr) {
    PyErr_Clear();
    return "<unprintable>";
  }
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(r, &n);
  std::string out = s ? std::string(s, static_cast<std::size_t>(n)) : "<unprintable>";
  if (s == nullptr) PyErr_Clear();
  Py_DECREF(r);
  if (out.size() > 200) out = out.substr(0, 197) + "...";
  return out;
}

/// The name of h's type, as Python prints it.
inline std::string py_type_name(nb::handle h) { return Py_TYPE(h.ptr())->tp_name; }

}  // namespace cubridge::python
