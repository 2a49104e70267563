// Internal (Python glue of the kernel face): tuple arguments of a launch, flattened the way the kernel's
// parameters are (KernelSignature::params(): a tuple's elements depth first, an empty tuple as nothing).
// Implements: numba-cuda's kernel ABI for tuples (its dispatcher's _prepare_args passes a tuple's elements
// one by one; namedtuples are tuples; an Enum's member is passed as its value).
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "py_text.hpp"
#include "cubridge/kernel/argument_pack.hpp"
#include "cubridge/kernel/kernel_signature.hpp"

namespace cubridge::python::kernel_glue {

namespace tuple_detail {

/// The unique name of obj's class as the Python layer spells an enum class (cubridge._enums.class_key): its
/// module and qualified name, and, for a class made inside a function, its id; "" when it cannot be read.
inline std::string enum_class_key(PyObject* obj) {
  PyObject* cls = reinterpret_cast<PyObject*>(Py_TYPE(obj));
  nb::object module = nb::steal(PyObject_GetAttrString(cls, "__module__"));
  nb::object qualname = nb::steal(PyObject_GetAttrString(cls, "__qualname__"));
  if (!module.is_valid() || !qualname.is_valid() || !PyUnicode_Check(module.ptr()) || !PyUnicode_Check(qualname.ptr())) {
    PyErr_Clear();
    return {};
  }
  std::string key = std::string(PyUnicode_AsUTF8(module.ptr())) + "." + PyUnicode_AsUTF8(qualname.ptr());
  if (key.find("<locals>") != std::string::npos) {
    char id[32];
    std::snprintf(id, sizeof id, "@%llx", static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(cls)));
    key += id;
  }
  return key;
}

/// An Enum member's value, which the launch passes in its place (numba-cuda's _prepare_args of an
/// EnumMember); borrowed: the member keeps its value alive as long as the launch's arguments keep it.
inline PyObject* enum_value_of(const Type& t, PyObject* obj, const std::string& where) {
  if (enum_class_key(obj) != t.enum_class())
    throw ArgumentTypeError(where + ": " + py_repr(obj) + " (" + py_type_name(obj) + ") was passed where the signature "
                            "says " + t.name() + ", a member of that class");
  PyObject* value = PyObject_GetAttrString(obj, "value");
  if (value == nullptr) throw nb::python_error();
  Py_DECREF(value);  // the member's own reference stays
  return value;
}

inline void add_leaves(const Type& t, PyObject* obj, const std::string& where, std::vector<PyObject*>& leaves) {
  if (t.is_enum_member()) return add_leaves(t.enum_value(), enum_value_of(t, obj, where), where, leaves);
  if (!t.is_tuple()) {
    leaves.push_back(obj);
    return;
  }
  const auto& elements = t.elements();
  if (!PyTuple_Check(obj) || static_cast<std::size_t>(PyTuple_GET_SIZE(obj)) != elements.size()) {
    std::string got = PyTuple_Check(obj) ? "a tuple of " + std::to_string(PyTuple_GET_SIZE(obj)) + " (" + py_repr(obj) + ")"
                                         : py_repr(obj) + " (" + py_type_name(obj) + ")";
    throw ArgumentTypeError(where + ": " + got + " was passed where the signature says " + t.name() +
                            ", a tuple of " + std::to_string(elements.size()));
  }
  // The tuple keeps its items alive as long as the launch's arguments keep it: borrowed pointers suffice.
  for (std::size_t j = 0; j < elements.size(); ++j)
    add_leaves(elements[j], PyTuple_GET_ITEM(obj, static_cast<Py_ssize_t>(j)), where + "[" + std::to_string(j) + "]",
               leaves);
}

}  // namespace tuple_detail

/// The launch's arguments as the kernel's flattened parameters: `args` itself when no argument is a
/// tuple, else the leaves gathered into `leaves` (checked: a tuple of the length its type says). The
/// caller has checked `args.size()` against sig.argument_count().
inline std::span<PyObject* const> flatten_tuples(const KernelSignature& sig, std::span<PyObject* const> args,
                                                std::vector<PyObject*>& leaves) {
  if (!sig.has_tuples()) return args;
  leaves.clear();
  leaves.reserve(sig.size());
  for (std::size_t i = 0; i < args.size(); ++i)
    tuple_detail::add_leaves(sig.arguments()[i], args[i], "argument " + std::to_string(i), leaves);
  return {leaves.data(), leaves.size()};
}

}  // namespace cubridge::python::kernel_glue
