// NVRTC programs: options, compilation, outputs and lowered names; the log travels with every error.
#include "cubridge/compiler/nvrtc.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "compiler/toolkit/toolkit_libraries.hpp"
#include "compiler/toolkit/trusted_ltoir.hpp"
#include "cubridge/error.hpp"

namespace cubridge::nvrtc {
namespace {

using toolkit_detail::NvrtcApi;
using toolkit_detail::nvrtc_api;

class Program {
 public:
  Program(const NvrtcApi& api, std::string_view source, const std::string& name,
          const std::vector<Header>& headers)
      : api_(api) {
    std::string src(source);  // NVRTC wants a NUL-terminated string
    std::vector<const char*> header_sources, header_names;
    for (const Header& h : headers) {
      header_sources.push_back(h.source.c_str());
      header_names.push_back(h.name.c_str());
    }
    check(api_.nvrtcCreateProgram(&prog_, src.c_str(), name.c_str(), static_cast<int>(headers.size()),
                                  header_sources.data(), header_names.data()),
          "nvrtcCreateProgram");
  }
  ~Program() {
    if (prog_ != nullptr) api_.nvrtcDestroyProgram(&prog_);
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  nvrtcProgram get() const { return prog_; }

  std::string log() const {
    size_t size = 0;
    if (prog_ == nullptr || api_.nvrtcGetProgramLogSize(prog_, &size) != NVRTC_SUCCESS || size <= 1)
      return {};
    std::string out(size, '\0');
    if (api_.nvrtcGetProgramLog(prog_, out.data()) != NVRTC_SUCCESS) return {};
    while (!out.empty() && (out.back() == '\0' || out.back() == '\n')) out.pop_back();
    return out;
  }

  void check(nvrtcResult r, const std::string& call) const {
    if (r == NVRTC_SUCCESS) return;
    std::string log = this->log();
    std::string msg = "NVRTC failed: " + call + " returned " + api_.nvrtcGetErrorString(r);
    if (!log.empty()) msg += "\n" + log;
    throw NvrtcError(msg, log);
  }

  template <class SizeFn, class GetFn>
  std::string output(SizeFn size_fn, GetFn get_fn, const char* size_call, const char* get_call) const {
    size_t size = 0;
    check(size_fn(prog_, &size), size_call);
    std::string out(size, '\0');
    check(get_fn(prog_, out.data()), get_call);
    return out;
  }

 private:
  const NvrtcApi& api_;
  nvrtcProgram prog_ = nullptr;
};

}  // namespace

std::vector<std::string> option_strings(const Options& o) {
  std::vector<ComputeCapability> archs = supported_archs();
  if (std::find(archs.begin(), archs.end(), o.cc) == archs.end()) {
    std::string list;
    for (const ComputeCapability& a : archs) list += (list.empty() ? "" : ", ") + a.to_string();
    throw cubridge::InvalidArgument("nvrtc: compute capability " + o.cc.to_string() +
                                " is not supported by this NVRTC; it accepts " + list);
  }
  std::vector<std::string> out;
  out.push_back((o.output == Output::cubin ? "-arch=sm_" : "-arch=compute_") + o.cc.digits());
  if (o.output == Output::ltoir) out.push_back("-dlto");
  if (o.relocatable || o.output == Output::ltoir) out.push_back("-rdc=true");
  if (o.debug) out.push_back("-G");
  if (o.lineinfo) out.push_back("-lineinfo");
  if (o.fastmath) out.push_back("--use_fast_math");
  if (!o.std.empty()) out.push_back("-std=" + o.std);
  for (const std::string& dir : o.include_dirs) out.push_back("--include-path=" + dir);
  out.insert(out.end(), o.extra_options.begin(), o.extra_options.end());
  return out;
}

Result compile(std::string_view source, std::string_view name, const Options& options) {
  if (name.empty())
    throw cubridge::InvalidArgument("nvrtc::compile: the program name is empty; expected a name such as "
                                "'kernel.cu' (it appears in messages)");
  std::vector<std::string> opts = option_strings(options);
  const NvrtcApi& api = nvrtc_api();
  Program prog(api, source, std::string(name), options.headers);
  for (const std::string& e : options.name_expressions)
    prog.check(api.nvrtcAddNameExpression(prog.get(), e.c_str()),
               "nvrtcAddNameExpression('" + e + "')");
  std::vector<const char*> argv;
  std::string joined;
  for (const std::string& o : opts) {
    argv.push_back(o.c_str());
    joined += (joined.empty() ? "" : " ") + o;
  }
  prog.check(api.nvrtcCompileProgram(prog.get(), static_cast<int>(argv.size()), argv.data()),
             "nvrtcCompileProgram of '" + std::string(name) + "' with options '" + joined + "'");
  Result result;
  switch (options.output) {
    case Output::ptx:
      result.code = prog.output(api.nvrtcGetPTXSize, api.nvrtcGetPTX, "nvrtcGetPTXSize", "nvrtcGetPTX");
      while (!result.code.empty() && result.code.back() == '\0') result.code.pop_back();
      break;
    case Output::ltoir:
      result.code = prog.output(api.nvrtcGetLTOIRSize, api.nvrtcGetLTOIR, "nvrtcGetLTOIRSize",
                                "nvrtcGetLTOIR");
      toolkit_detail::trust_ltoir(result.code);  // ours: the linker takes it in-process (trusted_ltoir.hpp)
      break;
    case Output::cubin:
      result.code = prog.output(api.nvrtcGetCUBINSize, api.nvrtcGetCUBIN, "nvrtcGetCUBINSize",
                                "nvrtcGetCUBIN");
      break;
  }
  result.log = prog.log();
  for (const std::string& e : options.name_expressions) {
    const char* lowered = nullptr;
    prog.check(api.nvrtcGetLoweredName(prog.get(), e.c_str(), &lowered),
               "nvrtcGetLoweredName('" + e + "')");
    result.lowered_names.emplace_back(e, lowered);
  }
  return result;
}

std::pair<int, int> version() {
  int major = 0, minor = 0;
  if (nvrtc_api().nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) throw ToolkitError("nvrtcVersion failed");
  return {major, minor};
}

std::vector<ComputeCapability> supported_archs() {
  static const std::vector<ComputeCapability> archs = [] {
    const NvrtcApi& api = nvrtc_api();
    int n = 0;
    if (api.nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0)
      throw ToolkitError("nvrtcGetNumSupportedArchs failed");
    std::vector<int> raw(static_cast<size_t>(n));
    if (api.nvrtcGetSupportedArchs(raw.data()) != NVRTC_SUCCESS)
      throw ToolkitError("nvrtcGetSupportedArchs failed");
    std::vector<ComputeCapability> out;
    for (int a : raw) out.push_back({a / 10, a % 10});
    std::sort(out.begin(), out.end());
    return out;
  }();
  return archs;
}

}  // namespace cubridge::nvrtc
