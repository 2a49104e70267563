// Internal (Python glue of the kernel face): tuple arguments of a launch, flattened the way the kernel's
// parameters are (KernelSignature::params(): a tuple's elements depth first, an empty tuple as nothing).
// Implements: numba-cuda's kernel ABI for tuples (its dispatcher's _prepare_args passes a tuple's elements
// one by one; namedtuples are tuples).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "py_text.hpp"
#include "cubridge/kernel/argument_pack.hpp"
#include "cubridge/kernel/kernel_signature.hpp"

namespace cubridge::python::kernel_glue {

namespace tuple_detail {

inline void add_leaves(const Type& t, PyObject* obj, const std::string& where, std::vector<PyObject*>& leaves) {
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
