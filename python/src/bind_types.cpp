// Internal: bindings of the types floor (only .def lines and tiny lambdas; the work lives in src/types/
// and python/src/py_types.hpp). cubridge.float32, cubridge.float32[:, ::1] and cubridge.void(...) are
// these objects; python/cubridge/_types.py adds the Python conveniences (slicing, calling, conversions).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <functional>

#include "bindings.hpp"
#include "cubridge/types/accepts.hpp"
#include "py_types.hpp"

namespace cubridge::python {

void bind_types(nb::module_& m) {
  using namespace types_glue;
  nb::class_<Type>(m, "Type",
                   "A type in cubridge's one vocabulary (numbers, arrays, records, tuples, pointers, none), named "
                   "as Numba names it. cubridge.float32[:, ::1] is an array type; cubridge.void(...) a Signature.")
      .def_prop_ro("name", &Type::name, "Numba's name: 'float32', 'array(float32, 2d, C)', 'const float32*'")
      .def("__str__", &Type::name)
      .def("__repr__", &Type::name)
      .def("__eq__", &equals, nb::arg("other").none())
      .def("__ne__", [](const Type& a, nb::handle b) { return !equals(a, b); }, nb::arg("other").none())
      .def("__hash__", [](const Type& t) { return t.hash(); })
      .def_prop_ro("kind", &kind_name, "'bool', 'int', 'float', 'complex', 'array', 'record', 'tuple', 'pointer', 'none', ...")
      .def_prop_ro("is_scalar", &Type::is_scalar, "bool and the numbers")
      .def_prop_ro("bits", &Type::bits, "scalars: the width in bits (complex: both parts)")
      .def_prop_ro("dtype", &element_of, "arrays: the element type; pointers: the pointee; enum members: their values' type; else None")
      .def_prop_ro("ndim", &Type::ndim)
      .def_prop_ro("layout", [](const Type& t) { return t.layout() ? std::string(1, t.layout()) : std::string(); })
      .def_prop_ro("readonly", &Type::readonly, "arrays, pointers and records: the kernel does not write through it")
      .def_prop_ro("elements", [](const Type& t) { return t.is_tuple() ? t.elements() : std::vector<Type>{}; },
                   "tuples: the element types")
      .def_prop_ro("record_size", &Type::record_size)
      .def_prop_ro("_foreign_handle", &Type::foreign_handle, "foreign types: the handle of numba's type object")
      .def_prop_ro("_is_foreign_opaque", &Type::is_foreign_opaque, "foreign types: numba's OpaqueModel (an i8* value)")
      .def_prop_ro("_members", [](const Type& t) { return t.is_foreign() ? t.elements() : std::vector<Type>{}; },
                   "foreign types: the member types")
      .def_prop_ro("_member_names", [](const Type& t) { return t.is_foreign() ? t.field_names() : std::vector<std::string>{}; },
                   "foreign types: the attribute reading each member (make_attribute_wrapper's; '' for none)")
      .def("accepts", &accepts, nb::arg("arg"),
           "Whether a parameter of this type takes an argument of type `arg` (same element type and rank; "
           "layout 'A' takes any layout; a read-only array only where this is read-only)")
      .def_static("parse", &parse_type, nb::arg("spelling"), "The type a spelling denotes: 'float32[:, ::1]', 'double', ...")
      .def_static("_array", &array_of, nb::arg("dtype"), nb::arg("ndim"), nb::arg("layout"), nb::arg("readonly"))
      .def_static("_tuple", &Type::tuple, nb::arg("elements"))
      .def_static("_named_tuple", &Type::named_tuple, nb::arg("class_name"), nb::arg("fields"), nb::arg("elements"))
      .def_static("_pointer", &Type::pointer, nb::arg("pointee"), nb::arg("readonly"))
      .def_static("_foreign", &Type::foreign, nb::arg("name"), nb::arg("handle"), nb::arg("members"),
                  nb::arg("member_types"), nb::arg("size"))
      .def_static("_foreign_opaque", &Type::foreign_opaque, nb::arg("name"), nb::arg("handle"))
      .def_static("_none", &Type::none);

  nb::class_<Signature>(m, "Signature", "A signature: return type (None: inferred) and argument types.")
      .def_static("parse", &parse_signature, nb::arg("text"), "'float32(float32, float32)', 'void(float32[:])', ...")
      .def_static("_make", &signature_of, nb::arg("return_type").none(), nb::arg("args"))
      .def_prop_ro("return_type", [](const Signature& s) { return s.result; })
      .def_prop_ro("args", [](const Signature& s) { return s.args; })
      .def("__str__", &Signature::str)
      .def("__repr__", &Signature::str)
      .def("__eq__", [](const Signature& a, nb::handle b) { return nb::isinstance<Signature>(b) && a == nb::cast<const Signature&>(b); },
           nb::arg("other").none())
      .def("__hash__", [](const Signature& s) { return s.hash(); });
}

}  // namespace cubridge::python
