// libNVVM programs: options, compilation to PTX / LTO-IR, verification, and the probe of the compute
// capabilities this libNVVM accepts.
#include "cubridge/compiler/nvvm.hpp"

#include <filesystem>
#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "support/file_bytes.hpp"
#include "support/split_fields.hpp"
#include "compiler/toolkit/toolkit_libraries.hpp"
#include "compiler/toolkit/trusted_ltoir.hpp"
#include "cubridge/compiler/code_cache.hpp"
#include "cubridge/error.hpp"

namespace cubridge::nvvm {
namespace {

using toolkit_detail::NvvmApi;
using toolkit_detail::nvvm_api;

// Compute capabilities any CUDA release has targeted; the probe keeps those this libNVVM accepts.
constexpr ComputeCapability kKnownArchs[] = {
    {3, 0},  {3, 2},  {3, 5},  {3, 7},  {5, 0},  {5, 2},  {5, 3},  {6, 0},  {6, 1},
    {6, 2},  {7, 0},  {7, 2},  {7, 5},  {8, 0},  {8, 6},  {8, 7},  {8, 8},  {8, 9},
    {9, 0},  {10, 0}, {10, 1}, {10, 3}, {11, 0}, {12, 0}, {12, 1}};

// Owns one nvvmProgram; every failed call throws with the program log attached.
class Program {
 public:
  explicit Program(const NvvmApi& api) : api_(api) { check(api_.nvvmCreateProgram(&prog_), "nvvmCreateProgram"); }
  ~Program() {
    if (prog_ != nullptr) api_.nvvmDestroyProgram(&prog_);
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  void add(const Module& m) {
    check(api_.nvvmAddModuleToProgram(prog_, m.ir.data(), m.ir.size(), m.name.c_str()),
          "nvvmAddModuleToProgram (module '" + m.name + "')");
  }
  void add_lazy(std::string_view bitcode, const char* name) {
    check(api_.nvvmLazyAddModuleToProgram(prog_, bitcode.data(), bitcode.size(), name),
          std::string("nvvmLazyAddModuleToProgram (") + name + ")");
  }
  void compile(const std::vector<std::string>& options) {
    run(api_.nvvmCompileProgram, "nvvmCompileProgram", options);
  }
  void verify(const std::vector<std::string>& options) {
    run(api_.nvvmVerifyProgram, "nvvmVerifyProgram", options);
  }
  std::string result() {
    size_t size = 0;
    check(api_.nvvmGetCompiledResultSize(prog_, &size), "nvvmGetCompiledResultSize");
    std::string out(size, '\0');
    check(api_.nvvmGetCompiledResult(prog_, out.data()), "nvvmGetCompiledResult");
    return out;
  }
  std::string log() const {
    size_t size = 0;
    if (prog_ == nullptr || api_.nvvmGetProgramLogSize(prog_, &size) != NVVM_SUCCESS || size <= 1)
      return {};
    std::string out(size, '\0');
    if (api_.nvvmGetProgramLog(prog_, out.data()) != NVVM_SUCCESS) return {};
    while (!out.empty() && (out.back() == '\0' || out.back() == '\n')) out.pop_back();
    return out;
  }

 private:
  template <class Fn>
  void run(Fn fn, const char* call, const std::vector<std::string>& options) {
    std::vector<const char*> argv;
    std::string joined;
    for (const std::string& o : options) {
      argv.push_back(o.c_str());
      joined += (joined.empty() ? "" : " ") + o;
    }
    check(fn(prog_, static_cast<int>(argv.size()), argv.data()),
          std::string(call) + " with options '" + joined + "'");
  }
  void check(nvvmResult r, const std::string& call) const {
    if (r == NVVM_SUCCESS) return;
    std::string log = this->log();
    std::string msg = "libNVVM failed: " + call + " returned " + api_.nvvmGetErrorString(r);
    if (!log.empty()) msg += "\n" + log;
    throw NvvmError(msg, log);
  }

  const NvvmApi& api_;
  nvvmProgram prog_ = nullptr;
};

const std::string& libdevice_bitcode() {
  static const std::string bytes = [] {
    const std::string& path = toolkit().libdevice_path();
    std::optional<std::string> data = compiler_detail::read_file_bytes(path);
    if (!data || data->empty()) throw ToolkitError("cannot read libdevice from " + path);
    return std::move(*data);
  }();
  return bytes;
}

std::string probe_module() {
  return "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
         "target triple = \"nvptx64-nvidia-cuda\"\n"
         "define void @cubridge_probe() {\n  ret void\n}\n" +
         ir_version_metadata();
}

// One program verified once per arch: an unsupported -arch fails option parsing, before any IR work.
bool accepts(Program& prog, ComputeCapability cc) {
  try {
    prog.verify({"-arch=compute_" + cc.digits()});
    return true;
  } catch (const NvvmError&) {
    return false;
  }
}

// The probe costs ~15 ms (one verification per arch), a large part of a cold compile, so its answer is
// kept in the code cache, keyed by the library file itself (path, size, mtime) and its versions.
std::string probe_cache_key() {
  namespace fs = std::filesystem;
  const std::string& path = nvvm_api().path;
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  auto mtime = fs::last_write_time(path, ec).time_since_epoch().count();
  return CodeCache::make_key({"libNVVM supported archs v1", path, std::to_string(size), std::to_string(mtime)});
}

std::string archs_text(const std::vector<ComputeCapability>& all) {
  std::string s;
  for (const ComputeCapability& cc : all) s += cc.to_string() + " ";
  return s;
}

std::vector<ComputeCapability> parse_archs(const std::string& text) {
  std::vector<ComputeCapability> out;
  for (const std::string& word : compiler_detail::split_fields(text, ' ')) out.push_back(ComputeCapability::parse(word));
  if (out.empty() || !std::is_sorted(out.begin(), out.end())) throw cubridge::InvalidArgument("bad list");
  return out;
}

std::vector<ComputeCapability> probe_archs() {
  Program prog(nvvm_api());
  std::string ir = probe_module();
  prog.add({ir, "probe"});
  std::vector<ComputeCapability> all;
  for (const ComputeCapability& cc : kKnownArchs)
    if (accepts(prog, cc)) all.push_back(cc);
  return all;
}

}  // namespace

Options& Options::set_fastmath(bool on) {
  ftz = on;
  prec_sqrt = !on;
  prec_div = !on;
  fma = true;  // on in both cases: libNVVM's default, and part of fastmath
  return *this;
}

std::vector<std::string> option_strings(const Options& o) {
  if (o.opt_level < 0 || o.opt_level > 3)
    throw cubridge::InvalidArgument("nvvm: opt level " + std::to_string(o.opt_level) +
                                " is not valid; libNVVM accepts 0 to 3");
  const ArchRange& range = supported_archs();
  if (!range.contains(o.cc))
    throw cubridge::InvalidArgument("nvvm: compute capability " + o.cc.to_string() +
                                " is not supported by this libNVVM; it accepts " + range.to_string());
  if (!o.arch_variant.empty() && o.arch_variant != "a" && o.arch_variant != "f")
    throw cubridge::InvalidArgument("nvvm: architecture variant '" + o.arch_variant +
                                    "' is not valid; expected 'a' (architecture-specific) or 'f' (family)");
  std::vector<std::string> out = {"-arch=compute_" + o.cc.digits() + o.arch_variant,
                                  "-opt=" + std::to_string(o.opt_level)};
  out.push_back(o.ftz ? "-ftz=1" : "-ftz=0");
  out.push_back(o.prec_sqrt ? "-prec-sqrt=1" : "-prec-sqrt=0");
  out.push_back(o.prec_div ? "-prec-div=1" : "-prec-div=0");
  out.push_back(o.fma ? "-fma=1" : "-fma=0");
  if (o.debug) out.push_back("-g");
  if (o.lineinfo && !o.debug) out.push_back("-generate-line-info");  // -g already has the line table
  if (o.output == Output::ltoir) out.push_back("-gen-lto");
  out.insert(out.end(), o.extra_options.begin(), o.extra_options.end());
  return out;
}

std::string compile(std::span<const Module> modules, const Options& options) {
  if (modules.empty())
    throw cubridge::InvalidArgument("nvvm::compile: no modules given; expected at least one NVVM IR module");
  std::vector<std::string> opts = option_strings(options);
  Program prog(nvvm_api());
  for (const Module& m : modules) prog.add(m);
  if (options.libdevice) prog.add_lazy(libdevice_bitcode(), "libdevice.10.bc");
  prog.compile(opts);
  std::string out = prog.result();
  // PTX comes back NUL-terminated; LTO-IR is binary and keeps every byte.
  if (options.output == Output::ptx)
    while (!out.empty() && out.back() == '\0') out.pop_back();
  else
    toolkit_detail::trust_ltoir(out);  // ours: the linker takes it in-process (trusted_ltoir.hpp)
  return out;
}

std::string compile(std::string_view ir, const Options& options) {
  Module m{ir, "module"};
  return compile(std::span<const Module>(&m, 1), options);
}

std::string compile(const std::vector<std::string>& modules, const Options& options) {
  std::vector<Module> ms;
  for (size_t i = 0; i < modules.size(); ++i) ms.push_back({modules[i], "module" + std::to_string(i)});
  return compile(std::span<const Module>(ms), options);
}

void verify(std::span<const Module> modules, const Options& options) {
  if (modules.empty())
    throw cubridge::InvalidArgument("nvvm::verify: no modules given; expected at least one NVVM IR module");
  std::vector<std::string> opts = option_strings(options);
  std::erase(opts, "-gen-lto");  // not a verification option
  Program prog(nvvm_api());
  for (const Module& m : modules) prog.add(m);
  if (options.libdevice) prog.add_lazy(libdevice_bitcode(), "libdevice.10.bc");
  prog.verify(opts);
}

bool ArchRange::contains(ComputeCapability cc) const {
  for (const ComputeCapability& a : all)
    if (a == cc) return true;
  return false;
}

std::string ArchRange::to_string() const {
  std::string s = "compute capabilities " + lowest.to_string() + " to " + highest.to_string() + " (";
  for (size_t i = 0; i < all.size(); ++i) s += (i ? ", " : "") + all[i].to_string();
  return s + ")";
}

const ArchRange& supported_archs() {
  static const ArchRange range = [] {
    ArchRange r;
    CodeCache cache;
    std::string key = probe_cache_key();
    if (std::optional<std::string> cached = cache.get(key)) {
      try {
        r.all = parse_archs(*cached);
      } catch (const std::invalid_argument&) {
        r.all.clear();  // unreadable: probe again and overwrite it
      }
    }
    if (r.all.empty()) {
      r.all = probe_archs();
      if (!r.all.empty()) cache.put(key, archs_text(r.all));
    }
    if (r.all.empty())
      throw ToolkitError("libNVVM (" + nvvm_api().path +
                         ") accepted none of the known compute capabilities 3.0 to 12.1");
    r.lowest = r.all.front();
    r.highest = r.all.back();
    return r;
  }();
  return range;
}

std::pair<int, int> version() {
  int major = 0, minor = 0;
  const NvvmApi& api = nvvm_api();
  if (api.nvvmVersion(&major, &minor) != NVVM_SUCCESS) throw ToolkitError("nvvmVersion failed");
  return {major, minor};
}

std::vector<int> ir_version() {
  int v[4] = {0, 0, 0, 0};
  const NvvmApi& api = nvvm_api();
  if (api.nvvmIRVersion(&v[0], &v[1], &v[2], &v[3]) != NVVM_SUCCESS)
    throw ToolkitError("nvvmIRVersion failed");
  return {v[0], v[1], v[2], v[3]};
}

std::string ir_version_metadata() {
  static const std::string text = [] {
    std::vector<int> v = ir_version();
    return "!nvvmir.version = !{!0}\n!0 = !{i32 " + std::to_string(v[0]) + ", i32 " +
           std::to_string(v[1]) + ", i32 " + std::to_string(v[2]) + ", i32 " +
           std::to_string(v[3]) + "}\n";
  }();
  return text;
}

}  // namespace cubridge::nvvm
