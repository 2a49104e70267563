// nvJitLink linking: inputs are kept by the Linker and handed to a fresh handle per link, so a failed
// link leaves nothing behind and the same inputs can be linked twice (cubin, then -ptx).
#include "cubridge/compiler/linker.hpp"

#include <stdexcept>

#include "support/file_bytes.hpp"
#include "compiler/toolkit/isolated_link.hpp"
#include "compiler/toolkit/link_fork_guard.hpp"
#include "compiler/toolkit/toolkit_libraries.hpp"
#include "compiler/toolkit/trusted_ltoir.hpp"
#include "cubridge/error.hpp"

namespace cubridge {
namespace {

using toolkit_detail::NvJitLinkApi;
using toolkit_detail::NvJitLinkUse;
using toolkit_detail::nvjitlink_api;

// nvJitLink has no nvJitLinkGetErrorString; names and meanings below are those of nvJitLink.h (13.0).
const char* result_name(nvJitLinkResult r) {
  switch (r) {
    case NVJITLINK_SUCCESS: return "NVJITLINK_SUCCESS";
    case NVJITLINK_ERROR_UNRECOGNIZED_OPTION: return "NVJITLINK_ERROR_UNRECOGNIZED_OPTION (unrecognized option)";
    case NVJITLINK_ERROR_MISSING_ARCH: return "NVJITLINK_ERROR_MISSING_ARCH (-arch not given)";
    case NVJITLINK_ERROR_INVALID_INPUT: return "NVJITLINK_ERROR_INVALID_INPUT (invalid input)";
    case NVJITLINK_ERROR_PTX_COMPILE: return "NVJITLINK_ERROR_PTX_COMPILE (PTX compilation failed)";
    case NVJITLINK_ERROR_NVVM_COMPILE: return "NVJITLINK_ERROR_NVVM_COMPILE (NVVM compilation failed)";
    case NVJITLINK_ERROR_INTERNAL: return "NVJITLINK_ERROR_INTERNAL (internal error)";
    case NVJITLINK_ERROR_THREADPOOL: return "NVJITLINK_ERROR_THREADPOOL (thread pool error)";
    case NVJITLINK_ERROR_UNRECOGNIZED_INPUT: return "NVJITLINK_ERROR_UNRECOGNIZED_INPUT (unrecognized input)";
    case NVJITLINK_ERROR_FINALIZE: return "NVJITLINK_ERROR_FINALIZE (finalizer error)";
    case NVJITLINK_ERROR_NULL_INPUT: return "NVJITLINK_ERROR_NULL_INPUT (null input)";
    case NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS: return "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS (incompatible options)";
    case NVJITLINK_ERROR_INCORRECT_INPUT_TYPE: return "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE (input of another type than declared)";
    case NVJITLINK_ERROR_ARCH_MISMATCH: return "NVJITLINK_ERROR_ARCH_MISMATCH (input built for another architecture)";
    case NVJITLINK_ERROR_OUTDATED_LIBRARY: return "NVJITLINK_ERROR_OUTDATED_LIBRARY (input newer than this nvJitLink)";
    case NVJITLINK_ERROR_MISSING_FATBIN: return "NVJITLINK_ERROR_MISSING_FATBIN (missing fatbin)";
    case NVJITLINK_ERROR_UNRECOGNIZED_ARCH: return "NVJITLINK_ERROR_UNRECOGNIZED_ARCH (unrecognized -arch)";
    case NVJITLINK_ERROR_UNSUPPORTED_ARCH: return "NVJITLINK_ERROR_UNSUPPORTED_ARCH (unsupported -arch)";
    case NVJITLINK_ERROR_LTO_NOT_ENABLED: return "NVJITLINK_ERROR_LTO_NOT_ENABLED (the input needs -lto)";
  }
  return "unknown nvJitLink result";
}

nvJitLinkInputType to_nvjitlink(LinkInputType t) {
  switch (t) {
    case LinkInputType::cubin: return NVJITLINK_INPUT_CUBIN;
    case LinkInputType::ptx: return NVJITLINK_INPUT_PTX;
    case LinkInputType::ltoir: return NVJITLINK_INPUT_LTOIR;
    case LinkInputType::fatbin: return NVJITLINK_INPUT_FATBIN;
    case LinkInputType::object: return NVJITLINK_INPUT_OBJECT;
    case LinkInputType::library: return NVJITLINK_INPUT_LIBRARY;
  }
  return NVJITLINK_INPUT_NONE;
}

// One nvJitLink handle; destroyed on every path.
class Handle {
 public:
  explicit Handle(const std::vector<std::string>& options) : api_(nvjitlink_api()) {
    std::vector<const char*> argv;
    for (const std::string& o : options) argv.push_back(o.c_str());
    std::string joined;
    for (const std::string& o : options) joined += (joined.empty() ? "" : " ") + o;
    check(api_.nvJitLinkCreate(&handle_, static_cast<uint32_t>(argv.size()), argv.data()),
          "nvJitLinkCreate with options '" + joined + "'");
  }
  ~Handle() {
    if (handle_ != nullptr) api_.nvJitLinkDestroy(&handle_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  void add(LinkInputType type, const std::string& data, const std::string& name) {
    check(api_.nvJitLinkAddData(handle_, to_nvjitlink(type), data.data(), data.size(),
                                name.empty() ? nullptr : name.c_str()),
          "nvJitLinkAddData (" + std::string(to_string(type)) + " input '" + name + "')");
  }
  void complete() { check(api_.nvJitLinkComplete(handle_), "nvJitLinkComplete"); }
  std::string cubin() {
    size_t size = 0;
    check(api_.nvJitLinkGetLinkedCubinSize(handle_, &size), "nvJitLinkGetLinkedCubinSize");
    std::string out(size, '\0');
    check(api_.nvJitLinkGetLinkedCubin(handle_, out.data()), "nvJitLinkGetLinkedCubin");
    return out;
  }
  std::string ptx() {
    size_t size = 0;
    check(api_.nvJitLinkGetLinkedPtxSize(handle_, &size), "nvJitLinkGetLinkedPtxSize");
    std::string out(size, '\0');
    check(api_.nvJitLinkGetLinkedPtx(handle_, out.data()), "nvJitLinkGetLinkedPtx");
    while (!out.empty() && out.back() == '\0') out.pop_back();
    return out;
  }
  std::string info_log() const { return read_log(api_.nvJitLinkGetInfoLogSize, api_.nvJitLinkGetInfoLog); }

 private:
  template <class SizeFn, class LogFn>
  std::string read_log(SizeFn size_fn, LogFn log_fn) const {
    size_t size = 0;
    if (handle_ == nullptr || size_fn(handle_, &size) != NVJITLINK_SUCCESS || size <= 1) return {};
    std::string out(size, '\0');
    if (log_fn(handle_, out.data()) != NVJITLINK_SUCCESS) return {};
    while (!out.empty() && (out.back() == '\0' || out.back() == '\n')) out.pop_back();
    return out;
  }
  void check(nvJitLinkResult r, const std::string& call) const {
    if (r == NVJITLINK_SUCCESS) return;
    std::string log = read_log(api_.nvJitLinkGetErrorLogSize, api_.nvJitLinkGetErrorLog);
    std::string msg = "nvJitLink failed: " + call + " returned " + result_name(r);
    if (!log.empty()) msg += "\n" + log;
    throw LinkError(msg, log);
  }

  NvJitLinkUse use_;  // first: held from before the library is loaded until after nvJitLinkDestroy
  const NvJitLinkApi& api_;
  nvJitLinkHandle handle_ = nullptr;
};

std::string read_file(const std::string& path) {
  std::optional<std::string> data = compiler_detail::read_file_bytes(path);
  if (!data) throw cubridge::InvalidArgument("Linker::add_file: cannot open '" + path + "'");
  return std::move(*data);
}

}  // namespace

std::string_view to_string(LinkInputType type) {
  switch (type) {
    case LinkInputType::cubin: return "cubin";
    case LinkInputType::ptx: return "ptx";
    case LinkInputType::ltoir: return "ltoir";
    case LinkInputType::fatbin: return "fatbin";
    case LinkInputType::object: return "object";
    case LinkInputType::library: return "library";
  }
  return "?";
}

LinkInputType parse_link_input_type(std::string_view text) {
  if (text == "ptx") return LinkInputType::ptx;
  if (text == "ltoir" || text == "lto") return LinkInputType::ltoir;
  if (text == "cubin") return LinkInputType::cubin;
  if (text == "fatbin") return LinkInputType::fatbin;
  if (text == "object" || text == "o") return LinkInputType::object;
  if (text == "library" || text == "a") return LinkInputType::library;
  throw cubridge::InvalidArgument("link input type '" + std::string(text) +
                              "' is not valid; expected one of 'ptx', 'ltoir', 'cubin', 'fatbin', "
                              "'object', 'library'");
}

LinkInputType link_input_type_of_path(std::string_view path) {
  auto dot = path.rfind('.');
  auto slash = path.rfind('/');
  if (dot != std::string_view::npos && (slash == std::string_view::npos || dot > slash)) {
    std::string_view ext = path.substr(dot + 1);
    try {
      return parse_link_input_type(ext);
    } catch (const std::invalid_argument&) {
    }
  }
  throw cubridge::InvalidArgument("cannot tell the link input type of '" + std::string(path) +
                              "' from its extension; expected .ptx, .ltoir, .lto, .cubin, .fatbin, "
                              ".o or .a, or give the type");
}

Linker::Linker(LinkOptions options) : options_(std::move(options)) {
  if (options_.opt_level != 0 && options_.opt_level != 3)
    throw cubridge::InvalidArgument("Linker: opt level " + std::to_string(options_.opt_level) +
                                " is not valid; nvJitLink accepts 0 or 3");
  if (options_.cc.major < 1 || options_.cc.minor < 0 || options_.cc.minor > 9)
    throw cubridge::InvalidArgument("Linker: compute capability " + options_.cc.to_string() +
                                " is not valid; expected major >= 1 and minor 0-9");
}

Linker::Linker(const Linker& other) : options_(other.options_), inputs_(other.inputs()) {}

Linker& Linker::operator=(const Linker& other) {
  if (this == &other) return *this;
  Inputs taken = other.inputs();
  std::lock_guard lock(mutex_);
  options_ = other.options_;
  inputs_ = std::move(taken);
  return *this;
}

Linker::Inputs Linker::inputs() const {
  std::lock_guard lock(mutex_);
  return inputs_;
}

size_t Linker::input_count() const {
  std::lock_guard lock(mutex_);
  return inputs_.size();
}

Linker& Linker::add(LinkInputType type, std::string_view data, std::string name) {
  if (data.empty())
    throw cubridge::InvalidArgument("Linker::add: the " + std::string(to_string(type)) + " input '" +
                                name + "' is empty; expected its bytes");
  auto input = std::make_shared<const Input>(Input{type, std::string(data), std::move(name)});
  std::lock_guard lock(mutex_);
  inputs_.push_back(std::move(input));
  return *this;
}

Linker& Linker::add_ptx(std::string_view ptx, std::string name) {
  return add(LinkInputType::ptx, ptx, std::move(name));
}
Linker& Linker::add_ltoir(std::string_view ltoir, std::string name) {
  return add(LinkInputType::ltoir, ltoir, std::move(name));
}
Linker& Linker::add_cubin(std::string_view cubin, std::string name) {
  return add(LinkInputType::cubin, cubin, std::move(name));
}
Linker& Linker::add_fatbin(std::string_view fatbin, std::string name) {
  return add(LinkInputType::fatbin, fatbin, std::move(name));
}
Linker& Linker::add_file(const std::string& path) { return add_file(path, link_input_type_of_path(path)); }
Linker& Linker::add_file(const std::string& path, LinkInputType type) {
  return add(type, read_file(path), path);
}

std::vector<std::string> Linker::option_strings() const {
  const LinkOptions& o = options_;
  std::vector<std::string> out = {"-arch=sm_" + o.cc.digits(), "-O" + std::to_string(o.opt_level)};
  if (o.lto) out.push_back("-lto");
  if (o.debug) out.push_back("-g");
  if (o.lineinfo) out.push_back("-lineinfo");
  // The math flags only steer LTO code generation; passing IEEE defaults keeps them explicit.
  if (o.lto) {
    out.push_back(o.ftz ? "-ftz=1" : "-ftz=0");
    out.push_back(o.prec_div ? "-prec-div=1" : "-prec-div=0");
    out.push_back(o.prec_sqrt ? "-prec-sqrt=1" : "-prec-sqrt=0");
    out.push_back(o.fma ? "-fma=1" : "-fma=0");
  }
  out.insert(out.end(), o.extra_options.begin(), o.extra_options.end());
  return out;
}

LinkResult Linker::link(bool want_ptx) const {
  const Inputs taken = inputs();
  if (taken.empty())
    throw cubridge::InvalidArgument("Linker::link: no inputs; add PTX, LTO-IR, cubin or fatbin first");
  if (want_ptx && !options_.lto)
    throw cubridge::InvalidArgument("Linker::link: linked PTX exists only with LTO (lto=true); got lto=false");
  return run(taken, true, want_ptx);
}

std::string Linker::link_ptx() const {
  const Inputs taken = inputs();
  if (taken.empty())
    throw cubridge::InvalidArgument("Linker::link_ptx: no inputs; add PTX or LTO-IR first");
  if (!options_.lto)
    throw cubridge::InvalidArgument("Linker::link_ptx: linked PTX exists only with LTO (lto=true); got lto=false");
  return run(taken, false, true).ptx;
}

LinkResult Linker::run(const Inputs& taken, bool want_cubin, bool want_ptx) const {
  std::string untrusted;
  for (const auto& in : taken) {
    if (in->type != LinkInputType::ltoir) continue;
    if (!toolkit_detail::looks_like_ltoir(in->data))
      throw LinkError("the ltoir input '" + in->name + "' (" + std::to_string(in->data.size()) +
                      " bytes) is not LTO-IR: expected the LTO-IR magic 0x7F4E43ED and a header of " +
                      std::to_string(toolkit_detail::kLtoirHeaderBytes) + " bytes");
    if (!toolkit_detail::is_trusted_ltoir(in->data)) untrusted += (untrusted.empty() ? "'" : ", '") + in->name + "'";
  }
  auto body = [&] {
    LinkResult result;
    if (want_cubin) {
      Handle h(option_strings());
      for (const auto& in : taken) h.add(in->type, in->data, in->name);
      h.complete();
      result.cubin = h.cubin();
      result.info_log = h.info_log();
    }
    // nvJitLink keeps the LTO PTX only when linking with -ptx (which then makes no cubin): link again, the
    // same inputs (another thread may have added one since).
    if (want_ptx) result.ptx = link_ptx_of(taken);
    return result;
  };
  if (untrusted.empty()) return body();
  {
    NvJitLinkUse use;  // loaded here, not in the child: a missing library is this process's ToolkitError
    nvjitlink_api();
  }
  return toolkit_detail::link_in_child(body, "the LTO-IR input(s) " + untrusted + " (not produced by cubridge in "
                                             "this process)");
}

std::string Linker::link_ptx_of(const Inputs& taken) const {
  std::vector<std::string> opts = option_strings();
  opts.push_back("-ptx");
  Handle h(opts);
  for (const auto& in : taken) h.add(in->type, in->data, in->name);
  h.complete();
  return h.ptx();
}

LinkResult link(const std::vector<LinkInput>& inputs, const LinkOptions& options, bool want_ptx) {
  Linker linker(options);
  for (const LinkInput& in : inputs) linker.add(in.type, in.data, in.name);
  return linker.link(want_ptx);
}

std::pair<unsigned, unsigned> nvjitlink_version() {
  NvJitLinkUse use;
  unsigned major = 0, minor = 0;
  if (nvjitlink_api().nvJitLinkVersion(&major, &minor) != NVJITLINK_SUCCESS)
    throw ToolkitError("nvJitLinkVersion failed");
  return {major, minor};
}

}  // namespace cubridge
