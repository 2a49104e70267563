// Internal: one bind_<layer>() per layer, each defined in python/src/bind_<layer>.cpp.
#pragma once
#include <nanobind/nanobind.h>

namespace cubridge::python {
namespace nb = nanobind;
void bind_driver(nb::module_& m);
void bind_memory(nb::module_& m);
void bind_array(nb::module_& m);
void bind_compiler(nb::module_& m);
void bind_toolkit(nb::module_& m);
void bind_kernel(nb::module_& m);
void bind_xla(nb::module_& m);
void bind_random(nb::module_& m);
}  // namespace cubridge::python
