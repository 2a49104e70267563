// Internal: bindings of the Python-function compiler (only .def lines and tiny lambdas; the work lives
// in src/compiler/). The Pythonic layer (signatures, type objects, inspect) is python/cubridge/_compiler.py.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "cubridge/compiler/bf16_names.hpp"
#include "cubridge/compiler/compile.hpp"
#include "cubridge/compiler/cached_compile.hpp"
#include "cubridge/error.hpp"
#include "compiler/typing/typing_rules.hpp"

namespace cubridge::python {

void bind_compiler(nb::module_& m) {
  using namespace cubridge::compiler;
  nb::exception<CompileError> compile_error(m, "CompileError", error_bases(m, PyExc_ValueError));
  // A CompileError carrying what the Python API needs to resolve an @overload: function, arg_types, keywords.
  static PyObject* overload_needed = PyErr_NewExceptionWithDoc(
      "cubridge._core.OverloadNeeded", "A call of an @overload'ed function needs its implementation for these types.",
      compile_error.ptr(), nullptr);
  m.attr("OverloadNeeded") = nb::handle(overload_needed);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const OverloadNeeded& e) {
      nb::object error = nb::borrow(overload_needed)(e.what());
      error.attr("function") = e.function();
      error.attr("arg_types") = nb::cast(e.args());
      error.attr("keywords") = nb::cast(e.keywords());
      error.attr("literals") = nb::cast(e.literals());
      error.attr("unknown_literals") = nb::cast(e.unknown_literals());
      error.attr("functions") = nb::cast(e.functions());
      PyErr_SetObject(overload_needed, error.ptr());
    }
  });
  // after CompileError's: nanobind tries the translator registered last first
  nb::exception<CompileTypeError>(m, "CompileTypeError", nb::make_tuple(compile_error, nb::handle(PyExc_TypeError)));

  nb::class_<CompileOptions>(m, "_CompileOptions")
      .def(nb::init<>())
      .def_rw("debug", &CompileOptions::debug)
      .def_rw("lineinfo", &CompileOptions::lineinfo)
      .def_rw("device", &CompileOptions::device)
      .def_rw("fastmath", &CompileOptions::fastmath)
      .def_rw("opt", &CompileOptions::opt)
      .def_rw("abi_name", &CompileOptions::abi_name)
      .def_rw("arch_variant", &CompileOptions::arch_variant)
      .def_rw("filename", &CompileOptions::filename)
      .def_rw("first_line", &CompileOptions::first_line)
      .def_rw("module_name", &CompileOptions::module_name)
      .def("set_abi", [](CompileOptions& o, bool numba) { o.abi = numba ? Abi::numba : Abi::c; })
      .def("set_ltoir", [](CompileOptions& o, bool lto) { o.output = lto ? Output::ltoir : Output::ptx; })
      .def("set_cc", [](CompileOptions& o, int major, int minor) { o.cc = ComputeCapability{major, minor}; })
      .def_rw("max_registers", &CompileOptions::max_registers)
      .def_rw("max_threads_per_block", &CompileOptions::max_threads_per_block)
      .def_rw("optnone", &CompileOptions::optnone)
      .def_rw("min_blocks_per_sm", &CompileOptions::min_blocks_per_sm)
      .def_rw("max_blocks_per_cluster", &CompileOptions::max_blocks_per_cluster)
      .def("add_constant", [](CompileOptions& o, const std::string& name, std::string_view type, std::string_view text) {
        o.constants[name] = constant_from_text(type, text);
      })
      .def("add_constant_array",
           [](CompileOptions& o, const std::string& name, std::string_view dtype, std::vector<std::int64_t> shape,
              nb::bytes data) {
             o.constant_arrays[name] = constant_array(dtype, std::move(shape), std::string(data.c_str(), data.size()));
           })
      .def("add_constant_tuple",
           [](CompileOptions& o, const std::string& name, std::vector<std::string> items) {
             o.constant_tuples[name] = std::move(items);
           })
      .def("add_device_array",
           [](CompileOptions& o, const std::string& name, std::string_view type, std::uint64_t address,
              std::vector<std::int64_t> shape, std::vector<std::int64_t> strides) {
             o.device_arrays[name] = device_array_ref(type, address, std::move(shape), std::move(strides));
           })
      .def("add_exception_class", [](CompileOptions& o, const std::string& name, std::string qualified) {
        o.exception_classes[name] = std::move(qualified);
      })
      .def("add_dtype",
           [](CompileOptions& o, const std::string& name, std::string_view type) {
             auto t = parse_type_name(type);
             if (!t || !(t->is_scalar() || t->is_record()))
               throw cubridge::InvalidArgument("'" + name + "' is bound to the dtype '" + std::string(type) +
                                           "', which is not a number type or a record");
             o.dtypes[name] = *t;
           })
      .def("add_foreign_dtype",
           [](CompileOptions& o, const std::string& name, const Type& type) {
             if (!type.is_foreign())
               throw cubridge::InvalidArgument("'" + name + "' is bound to " + type.name() +
                                               ", which is not a numba extension type");
             o.dtypes[name] = type;  // a numba extension type used as a local / shared array's dtype
           })
      .def("add_unit", [](CompileOptions& o, std::string source, std::string filename, int first_line) {
        o.extra_units.push_back({std::move(source), std::move(filename), first_line});
      })
      .def("add_function_alias", [](CompileOptions& o, const std::string& alias, const std::string& function) {
        o.function_aliases[alias] = function;
      })
      .def("add_inline_never", [](CompileOptions& o, const std::string& function) { o.inline_never.insert(function); })
      .def("add_inline_ir", [](CompileOptions& o, const std::string& function) { o.inline_ir.insert(function); })
      .def("add_refused_function", [](CompileOptions& o, const std::string& name, std::string reason) {
        o.refused_functions[name] = std::move(reason);
      })
      .def("add_declared_signature", [](CompileOptions& o, const std::string& function, const Signature& signature) {
        o.declared_signatures[function].push_back(signature);
      })
      .def("add_overloaded_function", [](CompileOptions& o, const std::string& name) { o.overloads[name]; })
      .def("add_overload_resolution",
           [](CompileOptions& o, const std::string& name, std::vector<Type> args, std::vector<std::string> keywords,
              std::string function, std::vector<std::optional<std::int64_t>> literals, std::vector<std::string> functions) {
             o.overloads[name].push_back({std::move(args), std::move(keywords), std::move(function), std::move(literals),
                                          std::move(functions)});
           })
      .def("add_nvvm_module", [](CompileOptions& o, std::string ir) { o.nvvm_modules.push_back(std::move(ir)); })
      .def("add_external_function", [](CompileOptions& o, const std::string& name, std::string symbol,
                                       const Signature& signature, std::string_view abi, bool cooperative) {
        if (abi != "numba" && abi != "c")
          throw cubridge::InvalidArgument("external function '" + name + "': abi '" + std::string(abi) +
                                          "' is not valid; expected 'numba' or 'c'");
        o.external_functions[name] = {std::move(symbol), signature, abi == "c" ? Abi::c : Abi::numba, cooperative};
      }, nb::arg("name"), nb::arg("symbol"), nb::arg("signature"), nb::arg("abi"), nb::arg("cooperative") = false);

  nb::class_<CompileResult>(m, "_CompileResult")
      .def_prop_ro("code", [](const CompileResult& r) { return nb::bytes(r.code.data(), r.code.size()); })
      .def_ro("result_type", &CompileResult::result_type)
      .def_ro("name", &CompileResult::name)
      .def_ro("nvvm_ir", &CompileResult::nvvm_ir)
      .def_ro("uses_libdevice", &CompileResult::uses_libdevice)
      .def_ro("from_cache", &CompileResult::from_cache)
      .def_ro("cooperative", &CompileResult::cooperative)
      .def_ro("warnings", &CompileResult::warnings)
      .def_prop_ro("variable_types", [](const CompileResult& r) { return r.variable_types; })
      .def_prop_ro("raise_sites", [](const CompileResult& r) {
        nb::list out;  // (code, exception, args, function, file, line)
        for (const RaiseSite& s : r.raise_sites)
          out.append(nb::make_tuple(s.code, s.exception, s.args, s.function, s.file, s.line));
        return out;
      })
      .def_prop_ro("uninitialized_reads", [](const CompileResult& r) {
        nb::list out;  // (variable, function, file, line)
        for (const UninitializedRead& u : r.uninitialized_reads)
          out.append(nb::make_tuple(u.variable, u.function, u.file, u.line));
        return out;
      })
      .def_prop_ro("timings", [](const CompileResult& r) {
        return std::vector<double>{r.timings.parse, r.timings.type, r.timings.emit, r.timings.nvvm};
      })
      .def("_to_bytes", [](const CompileResult& r) {
        std::string b = encode_compile_result(r);
        return nb::bytes(b.data(), b.size());
      }, "The result as the code cache stores it (symbol, result type, kernel facts, code).");
  m.def("_compile_result_from_bytes", [](nb::bytes data, bool ltoir) {
          return decode_compile_result(std::string_view(data.c_str(), data.size()), ltoir ? Output::ltoir : Output::ptx);
        }, nb::arg("data"), nb::arg("ltoir"),
        "A _CompileResult from _to_bytes (read back from a cache entry whose MAC was checked), or None.");

  m.def("_bf16_names", [] { return compiler::bf16_public_names(); },
        "(numba.cuda.bf16 name, cuda_bf16.h name) of every bfloat16 function.");
  m.def("_compile_source",
        [](std::string_view source, std::string_view name, const Signature& sig, const CompileOptions& o) {
          return compile(source, name, sig, o);
        },
        nb::arg("source"), nb::arg("function_name"), nb::arg("signature"), nb::arg("options"));
  m.def("_compile_source",  // a signature's text, read by the one grammar (tests and the C++ API's users spell one)
        [](std::string_view source, std::string_view name, std::string_view sig, const CompileOptions& o) {
          return compile(source, name, parse_signature(sig), o);
        },
        nb::arg("source"), nb::arg("function_name"), nb::arg("signature"), nb::arg("options"));
  m.def("_compile_source_cached",
        [](std::string_view source, std::string_view name, const Signature& sig, const CompileOptions& o) {
          return compile_cached(source, name, sig.str(), o, CodeCache());  // $CUBRIDGE_CACHE_DIR read each time
        },
        nb::arg("source"), nb::arg("function_name"), nb::arg("signature"), nb::arg("options"));
  m.def("_compile_cache_stats", [] {
    CompileCacheStats s = compile_cache_stats();
    return nb::make_tuple(s.hits, s.misses, s.stores);
  });
  m.def("_compile_source_to_ir",
        [](std::string_view source, std::string_view name, const Signature& sig, const CompileOptions& o) {
          return compile_to_nvvm_ir(source, name, sig, o);
        },
        nb::arg("source"), nb::arg("function_name"), nb::arg("signature"), nb::arg("options"));
  m.def("_compile_source_to_ir",
        [](std::string_view source, std::string_view name, std::string_view sig, const CompileOptions& o) {
          return compile_to_nvvm_ir(source, name, parse_signature(sig), o);
        },
        nb::arg("source"), nb::arg("function_name"), nb::arg("signature"), nb::arg("options"));
  m.def("_can_convert", [](const Type& from, const Type& to) { return static_cast<int>(can_convert(from, to)); },
        nb::arg("from"), nb::arg("to"),
        "Numba's conversion kind of a scalar `from` to `to`: 0 exact, 1 promote, 2 safe, 3 unsafe, 4 none (the "
        "dispatcher ranks a kernel's declared signatures by it)");
}

}  // namespace cubridge::python
