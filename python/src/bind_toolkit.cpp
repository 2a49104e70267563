// Internal: bindings of the toolkit libraries (libNVVM, nvJitLink, NVRTC, libdevice, ptxas) and linking.
// Only .def lines and tiny conversions; the work lives in src/compiler/. The Pythonic
// layer over these is python/cubridge/_linker.py.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <algorithm>

#include "bindings.hpp"
#include "py_gil.hpp"
#include "cubridge/compiler/linker.hpp"
#include "cubridge/compiler/nvrtc.hpp"
#include "cubridge/compiler/nvvm.hpp"
#include "cubridge/compiler/toolkit.hpp"
#include "cubridge/error.hpp"

namespace cubridge::python {
namespace {

PyObject* g_toolkit_error = nullptr;
PyObject* g_nvvm_error = nullptr;
PyObject* g_link_error = nullptr;
PyObject* g_nvrtc_error = nullptr;

void raise_with_log(PyObject* type, const ToolkitError& e) {
  PyObject* exc = PyObject_CallFunction(type, "s", e.what());
  if (exc == nullptr) return;
  PyObject_SetAttrString(exc, "log", nb::str(e.log().c_str()).ptr());
  PyErr_SetObject(type, exc);
  Py_DECREF(exc);
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const nvvm::NvvmError& e) {
    raise_with_log(g_nvvm_error, e);
  } catch (const LinkError& e) {
    raise_with_log(g_link_error, e);
  } catch (const nvrtc::NvrtcError& e) {
    raise_with_log(g_nvrtc_error, e);
  } catch (const ToolkitError& e) {
    raise_with_log(g_toolkit_error, e);
  }
}

PyObject* new_error(const char* name, const char* doc, PyObject* base) {
  return PyErr_NewExceptionWithDoc(name, doc, base, nullptr);
}

// Text outputs (PTX) become str, binary ones (LTO-IR, cubin) bytes.
nb::object code_object(const std::string& s, bool text) {
  return text ? nb::object(nb::str(s.data(), s.size())) : nb::object(to_bytes(s));
}
ComputeCapability cc_of(std::pair<int, int> cc) { return {cc.first, cc.second}; }
std::pair<int, int> pair_of(ComputeCapability cc) { return {cc.major, cc.minor}; }
std::vector<std::string> strings_of(const std::vector<nb::bytes>& modules) {
  std::vector<std::string> out(modules.size());
  std::transform(modules.begin(), modules.end(), out.begin(), [](const nb::bytes& b) { return std::string(view(b)); });
  return out;
}

}  // namespace

void bind_toolkit(nb::module_& m) {
  g_toolkit_error = new_error("cubridge.ToolkitError",
                              "A CUDA toolkit library is missing or failed; `log` holds the tool's own log.",
                              error_bases(m, PyExc_RuntimeError).ptr());
  g_nvvm_error = new_error("cubridge.NvvmError", "libNVVM rejected the program; `log` is its program log.", g_toolkit_error);
  g_link_error = new_error("cubridge.LinkError", "nvJitLink failed; `log` is its error log.", g_toolkit_error);
  g_nvrtc_error = new_error("cubridge.NvrtcError", "NVRTC rejected the program; `log` is its program log.", g_toolkit_error);
  m.attr("ToolkitError") = nb::handle(g_toolkit_error);
  m.attr("NvvmError") = nb::handle(g_nvvm_error);
  m.attr("LinkError") = nb::handle(g_link_error);
  m.attr("NvrtcError") = nb::handle(g_nvrtc_error);
  nb::register_exception_translator(translate);

  nb::class_<ToolkitComponent>(m, "_ToolkitComponent")
      .def_ro("name", &ToolkitComponent::name)
      .def_ro("found", &ToolkitComponent::found)
      .def_ro("path", &ToolkitComponent::path)
      .def_ro("version", &ToolkitComponent::version)
      .def_ro("searched", &ToolkitComponent::searched)
      .def_ro("error", &ToolkitComponent::error)
      .def_ro("source", &ToolkitComponent::source)
      .def_ro("origin", &ToolkitComponent::origin);
  m.def("_toolkit_components", [] { return toolkit().components(); });
  m.def("_toolkit_component", [](std::string_view name) { return toolkit().component(name); }, nb::arg("name"));
  m.def("_cuda_homes", [] { return toolkit().cuda_homes(); });
  nb::class_<CudaHome>(m, "_CudaHome")
      .def_ro("path", &CudaHome::path)
      .def_ro("source", &CudaHome::source)
      .def_ro("origin", &CudaHome::origin);
  m.def("_toolkit_homes", [] { return toolkit().homes(); });
  m.def("_set_wheel_directories", &set_wheel_directories, nb::arg("site_directories"));
  m.def("_wheel_directories", &wheel_directories);
  m.def("_parse_cc", [](std::string_view text) { return pair_of(ComputeCapability::parse(text)); },
        nb::arg("text"));

  nb::class_<PtxasResult>(m, "PtxasResult")
      .def_ro("ok", &PtxasResult::ok)
      .def_ro("exit_code", &PtxasResult::exit_code)
      .def_ro("log", &PtxasResult::log)
      .def("__bool__", [](const PtxasResult& r) { return r.ok; })
      .def("__repr__", [](const PtxasResult& r) {
        return "<cubridge.PtxasResult ok=" + std::string(r.ok ? "True" : "False") + " exit_code=" +
               std::to_string(r.exit_code) + ">";
      });
  m.def("_ptxas_check", [](std::string_view ptx, std::pair<int, int> cc, const std::vector<std::string>& extra) {
    return ptxas_check(ptx, cc_of(cc), extra);
  }, nb::arg("ptx"), nb::arg("cc"), nb::arg("extra_options"));

  // libNVVM
  m.def("_nvvm_compile",
        [](const std::vector<nb::bytes>& modules, std::pair<int, int> cc, int opt, bool ftz, bool prec_sqrt,
           bool prec_div, bool fma, bool debug, bool lineinfo, bool ltoir, bool libdevice,
           const std::vector<std::string>& extra) {
          nvvm::Options o{cc_of(cc), opt, ftz, prec_sqrt, prec_div, fma, debug, lineinfo,
                          ltoir ? nvvm::Output::ltoir : nvvm::Output::ptx, libdevice, extra, ""};
          std::vector<std::string> texts = strings_of(modules);
          std::string code;
          {
            GilReleased release;  // libNVVM takes milliseconds; other threads may run
            code = nvvm::compile(texts, o);
          }
          return code_object(code, !ltoir);
        },
        nb::arg("modules"), nb::arg("cc"), nb::arg("opt"), nb::arg("ftz"), nb::arg("prec_sqrt"),
        nb::arg("prec_div"), nb::arg("fma"), nb::arg("debug"), nb::arg("lineinfo"), nb::arg("ltoir"),
        nb::arg("libdevice"), nb::arg("extra_options"));
  m.def("_nvvm_supported_archs", [] {
    const nvvm::ArchRange& r = nvvm::supported_archs();
    std::vector<std::pair<int, int>> all(r.all.size());
    std::transform(r.all.begin(), r.all.end(), all.begin(), pair_of);
    return all;
  });
  m.def("_nvvm_version", &nvvm::version);
  m.def("_nvvm_ir_version", &nvvm::ir_version);
  m.def("_nvvm_ir_version_metadata", &nvvm::ir_version_metadata);

  // nvJitLink
  nb::class_<LinkResult>(m, "_LinkResult")
      .def_prop_ro("cubin", [](const LinkResult& r) { return to_bytes(r.cubin); })
      .def_ro("ptx", &LinkResult::ptx)
      .def_ro("info_log", &LinkResult::info_log);
  nb::class_<Linker>(m, "_Linker")
      .def("__init__",
           [](Linker* self, std::pair<int, int> cc, bool lto, int opt, bool debug, bool lineinfo, bool ftz,
              bool prec_div, bool prec_sqrt, bool fma, const std::vector<std::string>& extra) {
             new (self) Linker({cc_of(cc), lto, opt, debug, lineinfo, ftz, prec_div, prec_sqrt, fma, extra});
           },
           nb::arg("cc"), nb::arg("lto"), nb::arg("opt"), nb::arg("debug"), nb::arg("lineinfo"),
           nb::arg("ftz"), nb::arg("prec_div"), nb::arg("prec_sqrt"), nb::arg("fma"), nb::arg("extra_options"))
      .def("add", [](Linker& l, std::string_view type, nb::bytes data, std::string name) {
             l.add(parse_link_input_type(type), view(data), std::move(name));
           }, nb::arg("type"), nb::arg("data"), nb::arg("name"))
      .def("add_file", [](Linker& l, const std::string& path) { l.add_file(path); }, nb::arg("path"))
      .def("add_file", [](Linker& l, const std::string& path, std::string_view type) {
             l.add_file(path, parse_link_input_type(type));
           }, nb::arg("path"), nb::arg("type"))
      // Linking runs without the GIL: the Linker itself is safe while another thread add()s to it (a link
      // takes the inputs added before it started), and the call's `self` keeps it alive.
      .def("link", [](const Linker& l, bool want_ptx) {
             GilReleased release;
             return l.link(want_ptx);
           }, nb::arg("want_ptx") = false)
      .def("link_ptx", [](const Linker& l) {
             GilReleased release;
             return l.link_ptx();
           })
      .def("option_strings", &Linker::option_strings)
      .def_prop_ro("input_count", &Linker::input_count);
  m.def("_link_input_type_of_path", [](std::string_view p) { return std::string(to_string(link_input_type_of_path(p))); });
  m.def("_nvjitlink_version", &nvjitlink_version);

  // NVRTC
  nb::class_<nvrtc::Result>(m, "_NvrtcResult")
      .def_ro("log", &nvrtc::Result::log)
      .def_ro("lowered_names", &nvrtc::Result::lowered_names)
      .def_prop_ro("code_bytes", [](const nvrtc::Result& r) { return to_bytes(r.code); })
      .def_prop_ro("code_text", [](const nvrtc::Result& r) { return r.code; });
  m.def("_nvrtc_compile",
        [](std::string_view source, std::string_view name, std::pair<int, int> cc, std::string_view output,
           bool relocatable, bool debug, bool lineinfo, bool fastmath, std::string std,
           std::vector<std::string> include_dirs, std::vector<std::pair<std::string, std::string>> headers,
           std::vector<std::string> name_expressions, std::vector<std::string> extra) {
          nvrtc::Options o{cc_of(cc), nvrtc::Output::ptx, relocatable, debug, lineinfo, fastmath, std,
                           std::move(include_dirs), {}, std::move(name_expressions), std::move(extra)};
          if (output == "ltoir") o.output = nvrtc::Output::ltoir;
          else if (output == "cubin") o.output = nvrtc::Output::cubin;
          else if (output != "ptx")
            throw cubridge::InvalidArgument("nvrtc_compile: output '" + std::string(output) +
                                        "' is not valid; expected 'ptx', 'ltoir' or 'cubin'");
          std::transform(headers.begin(), headers.end(), std::back_inserter(o.headers),
                         [](auto& h) { return nvrtc::Header{h.first, h.second}; });
          GilReleased release;
          return nvrtc::compile(source, name, o);
        },
        nb::arg("source"), nb::arg("name"), nb::arg("cc"), nb::arg("output"), nb::arg("relocatable"),
        nb::arg("debug"), nb::arg("lineinfo"), nb::arg("fastmath"), nb::arg("std"), nb::arg("include_dirs"),
        nb::arg("headers"), nb::arg("name_expressions"), nb::arg("extra_options"));
  m.def("_nvrtc_version", &nvrtc::version);
  m.def("_nvrtc_supported_archs", [] {
    std::vector<ComputeCapability> a = nvrtc::supported_archs();
    std::vector<std::pair<int, int>> out(a.size());
    std::transform(a.begin(), a.end(), out.begin(), pair_of);
    return out;
  });
}

}  // namespace cubridge::python
