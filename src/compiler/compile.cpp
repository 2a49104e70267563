// Internal: the compile driver (include/cubridge/compiler/compile.hpp): parse, type, emit, libNVVM.
#include "cubridge/compiler/compile.hpp"

#include <algorithm>
#include <chrono>

#include "compiler/frontend/ast.hpp"
#include "cubridge/compiler/nvvm.hpp"
#include "compiler/lowering/emitter.hpp"
#include "compiler/typing/typer.hpp"
#include "cubridge/error.hpp"

namespace cubridge::compiler {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

namespace {
// numba-cuda's max_registers and launch_bounds: kernels only, and clusters only where the target has them
// (libNVVM drops .maxclusterrank below compute capability 9.0 without a word).
void check_directives(const CompileOptions& o) {
  const bool any = o.max_registers > 0 || o.max_threads_per_block > 0 || o.min_blocks_per_sm > 0 ||
                   o.max_blocks_per_cluster > 0;
  if (any && o.device)
    throw cubridge::InvalidArgument("max_registers and launch_bounds apply to kernels (device=False), not to "
                                    "device functions");
  if (o.max_blocks_per_cluster > 0 && (!o.cc || o.cc->major < 9))
    throw cubridge::InvalidArgument(
        "launch_bounds' third item (max blocks per cluster: " + std::to_string(o.max_blocks_per_cluster) +
        ") needs thread-block clusters, compute capability 9.0 or higher; the target is " +
        (o.cc ? o.cc->to_string() : std::string("the lowest architecture (no cc given)")));
}
// The entry's variables under the names the source wrote: a loop's own version of a variable ("i#1", the
// front end's split) is the source's "i" when the function has no other "i", and left out otherwise; a
// cleared slot (a parameter bound at compile time) and an untyped one (only on a path that cannot run) are not
// variables of the code.
std::vector<std::pair<std::string, Type>> variable_types(const TypedFunction& fn) {
  std::vector<std::pair<std::string, Type>> out;
  auto named = [&](std::string_view name) {
    return std::any_of(out.begin(), out.end(), [&](const auto& v) { return v.first == name; });
  };
  for (std::size_t i = 0; i < fn.local_names.size() && i < fn.local_types.size(); ++i) {
    const std::string& name = fn.local_names[i];
    if (name.empty() || fn.local_types[i].is_unknown() || name.find('#') != std::string::npos) continue;
    out.emplace_back(name, fn.local_types[i]);
  }
  for (std::size_t i = 0; i < fn.local_names.size() && i < fn.local_types.size(); ++i) {
    const std::string& name = fn.local_names[i];
    const std::size_t mark = name.find('#');
    if (mark == std::string::npos || mark == 0 || fn.local_types[i].is_unknown()) continue;
    if (std::string_view base(name.data(), mark); !named(base) &&
        std::count_if(fn.local_names.begin(), fn.local_names.end(), [&](const std::string& n) {
          return n.compare(0, mark + 1, name, 0, mark + 1) == 0;
        }) == 1)
      out.emplace_back(std::string(base), fn.local_types[i]);
  }
  return out;
}
// The reads of possibly unassigned variables in every function compiled, each once (a function compiled
// for several signatures reads at the same places).
std::vector<UninitializedRead> uninitialized_reads(const TypedModule& typed) {
  std::vector<UninitializedRead> out;
  for (const auto& fn : typed.functions) {
    if (fn->def == nullptr) continue;
    for (const auto& [variable, loc] : fn->uninitialized_reads) {
      UninitializedRead r{variable, fn->def->name, fn->def->file, loc.line};
      if (std::none_of(out.begin(), out.end(), [&](const UninitializedRead& o) {
            return o.variable == r.variable && o.function == r.function && o.file == r.file && o.line == r.line;
          }))
        out.push_back(std::move(r));
    }
  }
  return out;
}
}  // namespace

CompileResult compile_to_nvvm_ir(std::string_view source, std::string_view function_name, const Signature& signature,
                                 const CompileOptions& options) {
  check_directives(options);
  CompileResult result;
  auto t0 = std::chrono::steady_clock::now();
  SourceSet sources;
  sources.units.push_back(parse_module(source, options.filename, options.first_line));
  for (const auto& u : options.extra_units) sources.units.push_back(parse_module(u.source, u.filename, u.first_line));
  result.timings.parse = seconds_since(t0);

  auto t1 = std::chrono::steady_clock::now();
  TypedModule typed = type_program(sources, function_name, signature, options);
  result.timings.type = seconds_since(t1);

  auto t2 = std::chrono::steady_clock::now();
  EmittedModule em = emit_module(typed, options);
  result.timings.emit = seconds_since(t2);
  result.nvvm_ir = std::move(em.ir);
  result.name = std::move(em.symbol);
  result.uses_libdevice = em.uses_libdevice;
  result.raise_sites = std::move(em.raise_sites);
  result.cooperative = em.cooperative;
  result.warnings = std::move(em.warnings);
  result.result_type = typed.functions[0]->return_type;
  result.variable_types = variable_types(*typed.functions[0]);
  result.uninitialized_reads = uninitialized_reads(typed);
  return result;
}

CompileResult compile(std::string_view source, std::string_view function_name, const Signature& signature,
                      const CompileOptions& options) {
  nvvm::Options no;
  const nvvm::ArchRange& archs = nvvm::supported_archs();
  if (options.cc) {
    if (!archs.contains(*options.cc))
      throw cubridge::InvalidArgument("cc " + options.cc->to_string() + " cannot be targeted by this toolkit's libNVVM; it accepts " +
                                  archs.to_string());
    no.cc = *options.cc;
    no.arch_variant = options.arch_variant;
  } else {
    // The specification's default, (5, 0), raised to the lowest compute capability libNVVM accepts.
    no.cc = std::max(ComputeCapability{5, 0}, archs.lowest);
  }
  // The emitter sees the target it compiles for (numba-cuda's lowering reads it: fastmath tanh.approx).
  check_directives(options);
  CompileOptions targeted = options;
  targeted.cc = no.cc;
  CompileResult r = compile_to_nvvm_ir(source, function_name, signature, targeted);
  no.opt_level = options.opt ? 3 : 0;
  no.set_fastmath(options.fastmath);
  no.debug = options.debug;
  no.lineinfo = options.lineinfo && !options.debug;
  no.output = options.output == Output::ltoir ? nvvm::Output::ltoir : nvvm::Output::ptx;
  no.libdevice = r.uses_libdevice || !options.nvvm_modules.empty();
  auto t = std::chrono::steady_clock::now();
  std::vector<nvvm::Module> modules{{r.nvvm_ir, "module"}};
  for (std::size_t i = 0; i < options.nvvm_modules.size(); ++i)
    modules.push_back({options.nvvm_modules[i], "numba_extension" + std::to_string(i)});
  r.code = nvvm::compile(std::span<const nvvm::Module>(modules), no);
  r.timings.nvvm = seconds_since(t);
  return r;
}

CompileResult compile(std::string_view source, std::string_view function_name, std::string_view signature,
                      const CompileOptions& options) {
  return compile(source, function_name, parse_signature(signature), options);
}

}  // namespace cubridge::compiler
