// Internal: finds and loads libNVVM, nvJitLink and NVRTC at run time (dlopen once per process, never
// closed, so entry points cannot dangle). The only compiler file that calls dlopen/dlsym.
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>

#include "compiler/toolkit/toolkit_libraries.hpp"

namespace cubridge::toolkit_detail {
namespace {

namespace fs = std::filesystem;

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);  // follows symlinks: a dangling one is not a file
}

// "targets/*/lib" → one entry per existing targets/<triple>/lib, sorted so the order is stable.
std::vector<fs::path> expand_subdir(const fs::path& home, const std::string& subdir) {
  auto star = subdir.find("/*/");
  if (star == std::string::npos) return {home / subdir};
  fs::path parent = home / subdir.substr(0, star);
  std::string rest = subdir.substr(star + 3);
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) out.push_back(it->path() / rest);
  std::sort(out.begin(), out.end());
  if (out.empty()) out.push_back(parent / "*" / rest);  // still reported as searched
  return out;
}

}  // namespace

LoadedLibrary open_library(const std::string& what, const FileSearch& search,
                           const std::vector<std::string>& homes) {
  LoadedLibrary lib;
  Located found = locate(homes, search);
  std::vector<std::string> searched = found.searched;
  std::string dl_errors;
  if (!found.path.empty()) {
    lib.handle = ::dlopen(found.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib.handle != nullptr) {
      lib.path = found.path;
      lib.searched = std::move(searched);
      return lib;
    }
    const char* err = ::dlerror();
    dl_errors += std::string("; dlopen(\"") + found.path + "\") failed: " + (err ? err : "?");
  }
  for (const std::string& name : search.names) {
    if (!loader_search_enabled()) break;  // CUBRIDGE_TOOLKIT_SEARCH without "system"
    searched.push_back("the loader's search path as " + name);
    void* h = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) continue;
    lib.handle = h;
    // Report the real file the loader picked, not just the soname we asked for.
    Dl_info info{};
    void* any = ::dlsym(h, search.probe_symbol.c_str());
    lib.path = (any != nullptr && ::dladdr(any, &info) != 0 && info.dli_fname != nullptr)
                   ? std::string(info.dli_fname)
                   : name;
    lib.searched = std::move(searched);
    return lib;
  }
  lib.error = not_found_message(what, search.names.front(), searched) + dl_errors;
  lib.searched = std::move(searched);
  return lib;
}

namespace {

template <class Api>
struct LoadState {
  Api api;
  std::string error;
  std::once_flag once;
};

template <class Api>
const Api& finish(LoadState<Api>& s) {
  if (!s.error.empty()) throw ToolkitError(s.error);
  return s.api;
}

std::string cuda_major() { return std::to_string(CUDA_VERSION / 1000); }

}  // namespace

Located locate(const std::vector<std::string>& homes, const FileSearch& search) {
  Located out;
  for (const std::string& home : homes)
    for (const std::string& subdir : search.subdirs)
      for (const fs::path& dir : expand_subdir(home, subdir))
        for (const std::string& name : search.names) {
          fs::path candidate = (dir / name).lexically_normal();
          out.searched.push_back(candidate.string());
          if (is_file(candidate)) {
            out.path = candidate.string();
            return out;
          }
        }
  return out;
}

std::string not_found_message(const std::string& what, const std::string& file,
                              const std::vector<std::string>& searched) {
  std::string msg = "cannot find " + what + " (" + file + "): looked in ";
  if (searched.empty()) msg += "nowhere (no CUDA home exists)";
  for (size_t i = 0; i < searched.size(); ++i) msg += (i ? ", " : "") + searched[i];
  msg += ". " + wheel_advice(what);
  return msg;
}

FileSearch nvvm_search() {
  return {{"libnvvm.so.4", "libnvvm.so"}, {"nvvm/lib64", "lib64", "lib", "targets/*/lib"},
          "nvvmVersion"};
}
FileSearch nvjitlink_search() {
  return {{"libnvJitLink.so." + cuda_major(), "libnvJitLink.so"}, {"lib64", "lib", "targets/*/lib"},
          "nvJitLinkVersion"};
}
FileSearch nvrtc_search() {
  return {{"libnvrtc.so." + cuda_major(), "libnvrtc.so"}, {"lib64", "lib", "targets/*/lib"},
          "nvrtcVersion"};
}

// The plain name first; nvJitLink builds that lack it still export the versioned one its header maps
// to (__nvJitLinkCreate_13_0 for the 13.0 header), which has the same signature.
static void* resolve(void* handle, const char* name) {
  if (void* fn = ::dlsym(handle, name)) return fn;
  std::string versioned = std::string("__") + name + "_" + std::to_string(CUDA_VERSION / 1000) + "_" +
                          std::to_string(CUDA_VERSION % 1000 / 10);
  return ::dlsym(handle, versioned.c_str());
}

#define CUBRIDGE_RESOLVE(name)                                                              \
  s.api.name = reinterpret_cast<decltype(s.api.name)>(resolve(lib.handle, #name));          \
  if (s.api.name == nullptr && s.error.empty())                                             \
    s.error = lib.path + " does not export " #name ": it is not the library this cubridge was " \
              "built against (CUDA " + std::to_string(CUDA_VERSION / 1000) + "." +          \
              std::to_string(CUDA_VERSION % 1000 / 10) + ")";

#define CUBRIDGE_DEFINE_LOADER(fn, Api, label, search_fn, LIST)                \
  static LoadState<Api>& fn##_state() {                                       \
    static LoadState<Api> s;                                                  \
    std::call_once(s.once, [] {                                               \
      LoadedLibrary lib = open_library(label, search_fn(), home_paths(discover_cuda_homes()));                   \
      s.api.searched = lib.searched;                                          \
      if (lib.handle == nullptr) {                                            \
        s.error = lib.error;                                                  \
        return;                                                               \
      }                                                                       \
      s.api.path = lib.path;                                                  \
      LIST(CUBRIDGE_RESOLVE)                                                  \
    });                                                                       \
    return s;                                                                 \
  }                                                                           \
  const Api& fn() { return finish(fn##_state()); }                            \
  LibraryReport fn##_report() noexcept {                                      \
    try {                                                                     \
      auto& s = fn##_state();                                                 \
      return {s.error.empty(), s.api.path, s.error, s.api.searched};          \
    } catch (const std::exception& e) {                                       \
      return {false, {}, e.what(), {}};                                       \
    }                                                                         \
  }

CUBRIDGE_DEFINE_LOADER(nvvm_api, NvvmApi, "libNVVM", nvvm_search, CUBRIDGE_NVVM_ENTRY_POINTS)
CUBRIDGE_DEFINE_LOADER(nvjitlink_api, NvJitLinkApi, "nvJitLink", nvjitlink_search,
                       CUBRIDGE_NVJITLINK_ENTRY_POINTS)
CUBRIDGE_DEFINE_LOADER(nvrtc_api, NvrtcApi, "NVRTC", nvrtc_search, CUBRIDGE_NVRTC_ENTRY_POINTS)

#undef CUBRIDGE_DEFINE_LOADER
#undef CUBRIDGE_RESOLVE

}  // namespace cubridge::toolkit_detail
