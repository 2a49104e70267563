// Internal: where the CUDA toolkit's compiler libraries may live, in the order users expect: the variables
// they set, then NVIDIA's pip wheels in the Python environment (site-packages/nvidia/cu13, what
// `numba-cuda[cu13]` and `cubridge[cu13]` install), then the active conda environment, then the system
// toolkit (nvcc on PATH, /usr/local/cuda, and the dynamic loader's own search path).
#include <cuda.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>

#include "compiler/toolkit/toolkit_libraries.hpp"
#include "support/split_fields.hpp"

namespace cubridge {
namespace {

namespace fs = std::filesystem;

std::mutex g_wheel_mutex;
std::vector<std::string> g_wheel_directories;
bool g_discovered = false;

constexpr const char* kSources[] = {"variables", "wheels", "conda", "system"};

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

void set_wheel_directories(std::vector<std::string> site_directories) {
  std::lock_guard lock(g_wheel_mutex);
  if (g_discovered && site_directories != g_wheel_directories)
    throw std::logic_error(
        "set_wheel_directories: the CUDA toolkit was already looked for in this process; give the "
        "directories that hold NVIDIA's wheels before the first compile, link or toolkit query");
  g_wheel_directories = std::move(site_directories);
}

std::vector<std::string> wheel_directories() {
  std::lock_guard lock(g_wheel_mutex);
  return g_wheel_directories;
}

namespace toolkit_detail {

std::vector<std::string> parse_search_sources(std::string_view text) {
  std::vector<std::string> out;
  for (const std::string& field : compiler_detail::split_fields(text, ',')) {
    std::string name = field;
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    while (!name.empty() && name.back() == ' ') name.pop_back();
    bool known = false;
    for (const char* s : kSources) known = known || name == s;
    if (!known)
      throw ToolkitError("CUBRIDGE_TOOLKIT_SEARCH='" + std::string(text) + "': '" + name +
                         "' is not a place to search; expected a comma-separated list of variables, "
                         "wheels, conda, system");
    out.push_back(name);
  }
  if (out.empty())
    throw ToolkitError("CUBRIDGE_TOOLKIT_SEARCH='" + std::string(text) +
                       "' names no place to search; expected a comma-separated list of variables, "
                       "wheels, conda, system (unset it to search all four)");
  return out;
}

std::vector<CudaHome> discover_cuda_homes(const HomeSearchInputs& in) {
  auto env = [&](const char* name) {
    const char* v = in.getenv(name);
    return v == nullptr ? std::string() : std::string(v);
  };
  std::vector<std::string> sources(std::begin(kSources), std::end(kSources));
  if (std::string s = env("CUBRIDGE_TOOLKIT_SEARCH"); !s.empty()) sources = parse_search_sources(s);
  auto searching = [&](std::string_view source) {
    for (const std::string& s : sources)
      if (s == source) return true;
    return false;
  };
  std::vector<CudaHome> candidates;
  if (searching("variables"))
    for (const char* var : {"CUBRIDGE_CUDA_HOME", "CUDA_HOME", "CUDA_PATH"})
      if (std::string v = env(var); !v.empty()) candidates.push_back({v, "variables", "$" + std::string(var)});
  if (searching("wheels")) {
    // The wheels of the toolkit this cubridge was built with: cu13 for CUDA 13.
    std::string sub = "nvidia/cu" + std::to_string(in.cuda_major);
    for (const std::string& site : in.wheel_directories)
      candidates.push_back({(fs::path(site) / sub).string(), "wheels", "nvidia-* wheels in " + site});
  }
  if (searching("conda"))
    if (std::string v = env("CONDA_PREFIX"); !v.empty()) candidates.push_back({v, "conda", "$CONDA_PREFIX"});
  if (searching("system")) {
    // nvcc on PATH: its bin/ directory's parent is a toolkit (symlinks resolved, as for /usr/bin/nvcc).
    for (const std::string& dir : compiler_detail::split_fields(env("PATH"), ':')) {
      if (!is_file(fs::path(dir) / "nvcc")) continue;
      std::error_code ec;
      fs::path real = fs::canonical(fs::path(dir) / "nvcc", ec);
      if (!ec) candidates.push_back({real.parent_path().parent_path().string(), "system", "nvcc on PATH"});
      break;
    }
    candidates.push_back({"/usr/local/cuda", "system", "/usr/local/cuda"});
  }
  std::vector<CudaHome> homes;
  for (CudaHome& c : candidates) {
    std::error_code ec;
    if (!fs::is_directory(c.path, ec)) continue;
    bool duplicate = false;
    for (const CudaHome& h : homes) duplicate = duplicate || fs::equivalent(h.path, c.path, ec);
    if (!duplicate) homes.push_back(std::move(c));
  }
  return homes;
}

std::vector<CudaHome> discover_cuda_homes() {
  HomeSearchInputs in;
  in.getenv = [](const char* name) -> const char* { return std::getenv(name); };
  in.cuda_major = CUDA_VERSION / 1000;
  {
    std::lock_guard lock(g_wheel_mutex);
    g_discovered = true;
    in.wheel_directories = g_wheel_directories;
  }
  return discover_cuda_homes(in);
}

bool loader_search_enabled() {
  const char* s = std::getenv("CUBRIDGE_TOOLKIT_SEARCH");
  if (s == nullptr || *s == '\0') return true;
  for (const std::string& source : parse_search_sources(s))
    if (source == "system") return true;
  return false;
}

std::vector<std::string> home_paths(const std::vector<CudaHome>& homes) {
  std::vector<std::string> out;
  for (const CudaHome& h : homes) out.push_back(h.path);
  return out;
}

std::string wheel_advice(const std::string& what) {
  std::string major = std::to_string(CUDA_VERSION / 1000);
  std::string wheel = what == "libNVVM" || what == "libdevice" ? "nvidia-nvvm"
                      : what == "nvJitLink"                   ? "nvidia-nvjitlink"
                      : what == "NVRTC"                       ? "nvidia-cuda-nvrtc"
                                                              : "";
  if (wheel.empty())
    return "Install a CUDA " + major + " toolkit and set CUBRIDGE_CUDA_HOME (or CUDA_HOME) to its directory, "
           "or put " + what + " on PATH";
  return "Install NVIDIA's wheels into this Python environment (`pip install cubridge[cu" + major +
         "]`; " + what + " comes in " + wheel + "), or set CUBRIDGE_CUDA_HOME (or CUDA_HOME) to a CUDA " +
         major + " toolkit's directory";
}

}  // namespace toolkit_detail
}  // namespace cubridge
