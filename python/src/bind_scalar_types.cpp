// Internal: the scalar-type table (include/cubridge/types/scalar_type.hpp) handed to the Python package, which
// builds every dict it needs from these rows at import (python/cubridge/_scalar_types.py).
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>

#include <optional>
#include <string>
#include <string_view>

#include "bindings.hpp"
#include "cubridge/types/scalar_type.hpp"

namespace cubridge::python {

namespace {
// The table's empty columns (bfloat16's kind and typestr, the rows without an alias) read as None.
std::optional<std::string_view> unless_empty(std::string_view s) {
  return s.empty() ? std::nullopt : std::optional<std::string_view>(s);
}
}  // namespace

void bind_scalar_types(nb::module_& m) {
  nb::class_<ScalarTypeInfo>(m, "ScalarTypeInfo", "One row of cubridge's scalar-type table.")
      .def_ro("name", &ScalarTypeInfo::name, "Numba's name: 'float32'")
      .def_prop_ro("kind", [](const ScalarTypeInfo& r) { return unless_empty(std::string_view(&r.kind, r.numpy())); },
                   "NumPy's kind ('f'), None for a type NumPy lacks")
      .def_ro("itemsize", &ScalarTypeInfo::itemsize)
      .def_prop_ro("typestr", [](const ScalarTypeInfo& r) { return unless_empty(r.typestr); },
                   "NumPy's typestr, little-endian ('<f4'), None for a type NumPy lacks")
      .def_prop_ro("alias", [](const ScalarTypeInfo& r) { return unless_empty(r.alias); },
                   "the other name signatures accept ('intp'), or None")
      .def_ro("c_type", &ScalarTypeInfo::c_type, "the type in C and CUDA C++: 'float', 'int64_t', '__half'")
      .def_prop_ro("dlpack", [](const ScalarTypeInfo& r) { return std::make_tuple(r.dlpack.code, r.dlpack.bits, r.dlpack.lanes); },
                   "DLPack's (code, bits, lanes)")
      .def_ro("xla", &ScalarTypeInfo::xla, "XLA's name: 'f32'")
      .def_ro("xla_primitive", &ScalarTypeInfo::xla_primitive, "XLA's PrimitiveType value")
      .def("__repr__", [](const ScalarTypeInfo& r) { return "<ScalarTypeInfo " + std::string(r.name) + ">"; });
  m.def("_scalar_types", [] { return kScalarTypes; }, "The rows of the scalar-type table, in its order.");
}

}  // namespace cubridge::python
