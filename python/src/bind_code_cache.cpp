// Internal: bindings of the on-disk code cache (src/compiler/cache/code_cache.cpp). Only .def lines and tiny
// conversions; compile() reaches the cache itself (bind_compiler.cpp), Python code uses CodeCache directly
// for the link and kernel caches.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "cubridge/compiler/code_cache.hpp"

namespace cubridge::python {

void bind_code_cache(nb::module_& m) {
  nb::class_<CodeCache>(m, "CodeCache",
                        "Persistent on-disk cache of compiled code (default: $CUBRIDGE_CACHE_DIR or "
                        "~/.cache/cubridge). get(key) -> bytes | None, put(key, data) -> bool.")
      .def(nb::init<>())
      .def("__init__", [](CodeCache* self, const std::string& dir) { new (self) CodeCache(dir); }, nb::arg("directory"))
      .def_prop_ro("directory", [](const CodeCache& c) { return c.directory().string(); })
      .def_static("default_directory", [] { return CodeCache::default_directory().string(); })
      .def_static("make_key", [](const std::vector<std::string>& parts, bool nvvm, bool nvjitlink, bool nvrtc) {
            return CodeCache::make_key(std::span<const std::string>(parts), {nvvm, nvjitlink, nvrtc});
          }, nb::arg("parts"), nb::arg("nvvm") = true, nb::arg("nvjitlink") = false, nb::arg("nvrtc") = false)
      .def("get", [](const CodeCache& c, std::string_view key) -> std::optional<nb::bytes> {
             std::optional<std::string> v = c.get(key);
             if (!v) return std::nullopt;
             return to_bytes(*v);
           }, nb::arg("key"))
      .def("put", [](const CodeCache& c, std::string_view key, nb::bytes data) { return c.put(key, view(data)); },
           nb::arg("key"), nb::arg("data"))
      .def("remove", &CodeCache::remove, nb::arg("key"))
      .def("clear", &CodeCache::clear)
      .def("path_for", [](const CodeCache& c, std::string_view key) { return c.path_for(key).string(); }, nb::arg("key"));
}

}  // namespace cubridge::python
