// Toolkit discovery: the CUDA homes, libdevice and ptxas paths, and the per-component report that
// `cubridge info` prints. Libraries themselves are loaded by toolkit_loader.cpp.
#include "cubridge/compiler/toolkit.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "support/file_bytes.hpp"
#include "support/split_fields.hpp"
#include "compiler/toolkit/toolkit_libraries.hpp"
#include "cubridge/error.hpp"

extern char** environ;

namespace cubridge {
namespace {

namespace fs = std::filesystem;
using namespace toolkit_detail;

struct FoundFile {
  std::string path;
  std::vector<std::string> searched;
  std::string error;
};

const FoundFile& libdevice_file() {
  static const FoundFile f = [] {
    Located l = locate(toolkit().cuda_homes(), {{"libdevice.10.bc"}, {"nvvm/libdevice", "libdevice"}});
    FoundFile out{l.path, l.searched, {}};
    if (l.path.empty()) out.error = not_found_message("libdevice", "libdevice.10.bc", l.searched);
    return out;
  }();
  return f;
}

const FoundFile& ptxas_file() {
  static const FoundFile f = [] {
    std::vector<std::string> homes = toolkit().cuda_homes();
    Located l = locate(homes, {{"ptxas"}, {"bin"}});
    if (l.path.empty() && loader_search_enabled()) {
      // Not in a toolkit home: any ptxas on PATH will do for checking that PTX assembles.
      const char* path = std::getenv("PATH");
      std::vector<std::string> path_dirs = compiler_detail::split_fields(path ? path : "", ':');
      Located p = locate(path_dirs, {{"ptxas"}, {"."}});
      l.searched.insert(l.searched.end(), p.searched.begin(), p.searched.end());
      l.path = p.path;
    }
    FoundFile out{l.path, l.searched, {}};
    if (l.path.empty()) out.error = not_found_message("ptxas", "ptxas", l.searched);
    return out;
  }();
  return f;
}

struct ProcessResult {
  int exit_code = -1;
  std::string output;
};

// Runs argv[0] with stdout and stderr sent to a temporary file, which is read back and removed.
ProcessResult run_process(const std::vector<std::string>& argv) {
  fs::path log = fs::temp_directory_path() / "cubridge-ptxas-XXXXXX";
  std::string log_name = log.string();
  int fd = ::mkstemp(log_name.data());
  if (fd < 0) throw ToolkitError("cannot create a temporary file in " + log.parent_path().string());
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fd);
  ProcessResult result;
  if (rc != 0) {
    ::unlink(log_name.c_str());
    throw ToolkitError("cannot run " + argv[0] + ": posix_spawn failed with error " +
                       std::to_string(rc));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.output = compiler_detail::read_file_bytes(log_name).value_or("");
  ::unlink(log_name.c_str());
  return result;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The home a found file lies in (its path was built as home/subdir/name), or the loader's search path.
void set_origin(ToolkitComponent& c, const char* other_source = "loader",
                const char* other_origin = "the dynamic loader's search path") {
  if (!c.found) return;
  for (const CudaHome& h : toolkit().homes()) {
    std::string prefix = (fs::path(h.path) / "").lexically_normal().string();
    if (c.path.starts_with(prefix)) {
      c.source = h.source;
      c.origin = h.origin;
      return;
    }
  }
  c.source = other_source;
  c.origin = other_origin;
}

ToolkitComponent from_report(const char* name, const LibraryReport& r) {
  ToolkitComponent c;
  c.name = name;
  c.found = r.loaded;
  c.path = r.path;
  c.searched = r.searched;
  c.error = r.error;
  set_origin(c);
  return c;
}

ToolkitComponent from_file(const char* name, const FoundFile& f, const char* other_source = "",
                           const char* other_origin = "") {
  ToolkitComponent c;
  c.name = name;
  c.found = !f.path.empty();
  c.path = f.path;
  c.searched = f.searched;
  c.error = f.error;
  set_origin(c, other_source, other_origin);
  return c;
}

ToolkitComponent nvvm_component() {
  ToolkitComponent c = from_report("libNVVM", nvvm_api_report());
  if (!c.found) return c;
  const NvvmApi& api = nvvm_api();
  int major = 0, minor = 0, ir_major = 0, ir_minor = 0, dbg_major = 0, dbg_minor = 0;
  if (api.nvvmVersion(&major, &minor) == NVVM_SUCCESS &&
      api.nvvmIRVersion(&ir_major, &ir_minor, &dbg_major, &dbg_minor) == NVVM_SUCCESS)
    c.version = std::to_string(major) + "." + std::to_string(minor) + " (NVVM IR " +
                std::to_string(ir_major) + "." + std::to_string(ir_minor) + ", debug metadata " +
                std::to_string(dbg_major) + "." + std::to_string(dbg_minor) + ")";
  return c;
}

ToolkitComponent nvjitlink_component() {
  ToolkitComponent c = from_report("nvJitLink", nvjitlink_api_report());
  if (!c.found) return c;
  unsigned major = 0, minor = 0;
  if (nvjitlink_api().nvJitLinkVersion(&major, &minor) == NVJITLINK_SUCCESS)
    c.version = std::to_string(major) + "." + std::to_string(minor);
  return c;
}

ToolkitComponent nvrtc_component() {
  ToolkitComponent c = from_report("NVRTC", nvrtc_api_report());
  if (!c.found) return c;
  int major = 0, minor = 0;
  if (nvrtc_api().nvrtcVersion(&major, &minor) == NVRTC_SUCCESS)
    c.version = std::to_string(major) + "." + std::to_string(minor);
  return c;
}

ToolkitComponent libdevice_component() {
  ToolkitComponent c = from_file("libdevice", libdevice_file());
  if (c.found) c.version = "10";  // the only libdevice generation since CUDA 9 (file name's number)
  return c;
}

ToolkitComponent ptxas_component() {
  ToolkitComponent c = from_file("ptxas", ptxas_file(), "system", "PATH");
  if (!c.found) return c;
  try {
    ProcessResult r = run_process({c.path, "--version"});
    // Last line reads "Cuda compilation tools, release 13.0, V13.0.48"; keep the V part.
    auto v = r.output.rfind(", V");
    if (r.exit_code == 0 && v != std::string::npos) {
      std::string tail = r.output.substr(v + 3);
      c.version = tail.substr(0, tail.find_first_of("\r\n"));
    }
  } catch (const ToolkitError& e) {
    c.found = false;
    c.error = e.what();
  }
  return c;
}

}  // namespace

const std::vector<CudaHome>& Toolkit::homes() const {
  static const std::vector<CudaHome> homes = discover_cuda_homes();
  return homes;
}

const std::vector<std::string>& Toolkit::cuda_homes() const {
  static const std::vector<std::string> paths = home_paths(homes());
  return paths;
}

const std::string& Toolkit::libdevice_path() const {
  const FoundFile& f = libdevice_file();
  if (f.path.empty()) throw ToolkitError(f.error);
  return f.path;
}

const std::string& Toolkit::ptxas_path() const {
  const FoundFile& f = ptxas_file();
  if (f.path.empty()) throw ToolkitError(f.error);
  return f.path;
}

std::vector<ToolkitComponent> Toolkit::components() const {
  return {nvvm_component(), libdevice_component(), nvjitlink_component(), nvrtc_component(),
          ptxas_component()};
}

ToolkitComponent Toolkit::component(std::string_view name) const {
  std::string n = lower(name);
  if (n == "libnvvm" || n == "nvvm") return nvvm_component();
  if (n == "libdevice") return libdevice_component();
  if (n == "nvjitlink") return nvjitlink_component();
  if (n == "nvrtc") return nvrtc_component();
  if (n == "ptxas") return ptxas_component();
  throw cubridge::InvalidArgument("toolkit component '" + std::string(name) +
                              "' is unknown; expected one of libNVVM, libdevice, nvJitLink, NVRTC, "
                              "ptxas");
}

std::string ComputeCapability::to_string() const {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string ComputeCapability::digits() const {
  return std::to_string(major) + std::to_string(minor);
}

ComputeCapability ComputeCapability::parse(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  for (std::string_view prefix : {"compute_", "sm_", "lto_"})
    if (t.starts_with(prefix)) t.remove_prefix(prefix.size());
  if (t.size() > 2 && (t.back() == 'a' || t.back() == 'f')) t.remove_suffix(1);  // sm_90a, sm_100f: same CC
  auto all_digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 3 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  ComputeCapability cc{-1, -1};
  auto dot = t.find('.');
  if (dot != std::string_view::npos && all_digits(t.substr(0, dot)) &&
      t.size() - dot == 2 && all_digits(t.substr(dot + 1))) {
    cc = {std::stoi(std::string(t.substr(0, dot))), t[dot + 1] - '0'};
  } else if (dot == std::string_view::npos && all_digits(t) && t.size() >= 2) {
    cc = {std::stoi(std::string(t.substr(0, t.size() - 1))), t.back() - '0'};  // "90", as in sm_90
  } else if (dot == std::string_view::npos && all_digits(t)) {
    cc = {t[0] - '0', 0};  // "9": a major version alone
  }
  if (cc.major < 1)
    throw cubridge::InvalidArgument("compute capability '" + std::string(text) +
                                "' is not valid; expected a form like '9.0', '9', '90', 'sm_90' or "
                                "'compute_90'");
  return cc;
}

const Toolkit& toolkit() {
  static const Toolkit t;
  return t;
}

PtxasResult ptxas_check(std::string_view ptx, ComputeCapability cc,
                        const std::vector<std::string>& extra_options) {
  if (cc.major < 1 || cc.minor < 0 || cc.minor > 9)
    throw cubridge::InvalidArgument("ptxas_check: compute capability " + cc.to_string() +
                                " is not valid; expected major >= 1 and minor 0-9");
  const std::string& ptxas = toolkit().ptxas_path();
  fs::path dir = fs::temp_directory_path();
  std::string input = (dir / "cubridge-ptx-XXXXXX").string();
  int fd = ::mkstemp(input.data());
  if (fd < 0) throw ToolkitError("cannot create a temporary file in " + dir.string());
  ::close(fd);
  if (!compiler_detail::write_file_bytes(input, ptx)) {
    ::unlink(input.c_str());
    throw ToolkitError("cannot write the PTX to check to " + input);
  }
  std::string cubin = input + ".cubin";
  std::vector<std::string> argv = {ptxas, "-arch=sm_" + cc.digits()};
  argv.insert(argv.end(), extra_options.begin(), extra_options.end());
  argv.insert(argv.end(), {"-o", cubin, input});
  PtxasResult result;
  try {
    ProcessResult r = run_process(argv);
    result.exit_code = r.exit_code;
    result.log = std::move(r.output);
    result.ok = r.exit_code == 0;
  } catch (...) {
    ::unlink(input.c_str());
    throw;
  }
  ::unlink(input.c_str());
  ::unlink(cubin.c_str());
  return result;
}

}  // namespace cubridge
