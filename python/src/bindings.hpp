// Internal: one bind_<part>() per layer (or part of one), each defined in python/src/bind_<part>.cpp, and the
// byte conversions they share.
#pragma once
#include <nanobind/nanobind.h>

#include <string>
#include <string_view>

namespace cubridge::python {
namespace nb = nanobind;
void bind_driver(nb::module_& m);
/// (cubridge.Error, `builtin`): the bases of an error class of cubridge's (module.cpp creates cubridge.Error first).
inline nb::tuple error_bases(nb::module_& m, PyObject* builtin) { return nb::make_tuple(m.attr("Error"), nb::handle(builtin)); }

void bind_scalar_types(nb::module_& m);
void bind_types(nb::module_& m);
void bind_memory(nb::module_& m);
void bind_array(nb::module_& m);
void bind_compiler(nb::module_& m);
void bind_toolkit(nb::module_& m);
void bind_code_cache(nb::module_& m);
void bind_kernel(nb::module_& m);
void bind_xla(nb::module_& m);
void bind_random(nb::module_& m);

// Bytes across the boundary without a copy into a std::string where a view does.
inline std::string_view view(const nb::bytes& b) { return {b.c_str(), b.size()}; }
inline nb::bytes to_bytes(const std::string& s) { return nb::bytes(s.data(), s.size()); }
}  // namespace cubridge::python
