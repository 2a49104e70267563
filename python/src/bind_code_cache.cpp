// Internal: bindings of the on-disk code cache (src/compiler/cache/code_cache.cpp). Only .def lines and tiny
// conversions; compile() reaches the cache itself (bind_compiler.cpp), Python code uses CodeCache directly
// for the link and kernel caches.
#include <cstdio>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "cubridge/compiler/code_cache.hpp"

namespace cubridge::python {
namespace {

// A refused cache directory reaches Python users as a RuntimeWarning (once per directory per process:
// the C++ side counts). The cache cannot raise from inside compile(), so a warning filter that turns it
// into an error gets the message on stderr instead.
void warn_in_python(const std::string& message) {
  if (Py_IsInitialized()) {
    nb::gil_scoped_acquire gil;
    if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) == 0) return;
    PyErr_Clear();
  }
  std::fprintf(stderr, "cubridge: warning: %s\n", message.c_str());
}

}  // namespace

void bind_code_cache(nb::module_& m) {
  CodeCache::set_warning_handler(&warn_in_python);
  nb::class_<CodeCache>(m, "CodeCache",
                        "Persistent on-disk cache of compiled code (default: $CUBRIDGE_CACHE_DIR or "
                        "~/.cache/cubridge). get(key) -> bytes | None, put(key, data) -> bool. The directory "
                        "must be this user's and closed to others (0700); entries carry HMAC-SHA256 under a "
                        "per-user secret in it (docs/code-cache.md). A refused directory is not used, after one "
                        "RuntimeWarning; `problem` says why.")
      .def(nb::init<>())
      .def("__init__", [](CodeCache* self, const std::string& dir) { new (self) CodeCache(dir); }, nb::arg("directory"))
      .def_prop_ro("directory", [](const CodeCache& c) { return c.directory().string(); })
      .def_prop_ro("problem", [](const CodeCache& c) { return c.problem(); },
                   "Why this cache's directory is refused ('' when it is usable or not created yet).")
      .def_ro_static("max_entry_bytes", &CodeCache::max_entry_bytes)
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
      .def("path_for", [](const CodeCache& c, std::string_view key) { return c.path_for(key).string(); }, nb::arg("key"))
      .def("get_at", [](const CodeCache& c, const std::string& dir, std::string_view file, std::string_view key)
               -> std::optional<nb::bytes> {
             std::optional<std::string> v = c.get_at(dir, file, key);
             if (!v) return std::nullopt;
             return to_bytes(*v);
           }, nb::arg("directory"), nb::arg("file"), nb::arg("key"),
           "The entry in `file` of `directory` (outside this cache's directory, under its secret), or None.")
      .def("put_at", [](const CodeCache& c, const std::string& dir, std::string_view file, std::string_view key,
                        nb::bytes data) { return c.put_at(dir, file, key, view(data)); },
           nb::arg("directory"), nb::arg("file"), nb::arg("key"), nb::arg("data"))
      .def_static("remove_at", [](const std::string& dir, std::string_view file) { return CodeCache::remove_at(dir, file); },
                  nb::arg("directory"), nb::arg("file"));
}

}  // namespace cubridge::python
