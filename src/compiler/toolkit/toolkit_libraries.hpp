// Internal: the toolkit libraries' entry points (libNVVM, nvJitLink, NVRTC), typed from the toolkit's own
// headers with decltype and resolved once per process by toolkit_loader.cpp, the only compiler file that
// calls dlopen/dlsym (the driver keeps its own loader: these libraries are not libcuda and need no driver).
#pragma once

#include <nvJitLink.h>
#include <nvrtc.h>
#include <nvvm.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cubridge/compiler/toolkit.hpp"

// nvJitLink's header maps each name onto a versioned symbol (__nvJitLinkCreate_13_0) through static inline
// wrappers; the library also exports the plain names with the same signatures, which stay stable across
// minor releases, so we resolve those and take the types from the wrappers.
#define CUBRIDGE_NVVM_ENTRY_POINTS(X)                                                          \
  X(nvvmGetErrorString) X(nvvmVersion) X(nvvmIRVersion) X(nvvmCreateProgram)                    \
  X(nvvmDestroyProgram) X(nvvmAddModuleToProgram) X(nvvmLazyAddModuleToProgram)                \
  X(nvvmCompileProgram) X(nvvmVerifyProgram) X(nvvmGetCompiledResultSize)                      \
  X(nvvmGetCompiledResult) X(nvvmGetProgramLogSize) X(nvvmGetProgramLog)

#define CUBRIDGE_NVJITLINK_ENTRY_POINTS(X)                                                     \
  X(nvJitLinkCreate) X(nvJitLinkDestroy) X(nvJitLinkAddData) X(nvJitLinkComplete)             \
  X(nvJitLinkGetLinkedCubinSize) X(nvJitLinkGetLinkedCubin) X(nvJitLinkGetLinkedPtxSize)       \
  X(nvJitLinkGetLinkedPtx) X(nvJitLinkGetErrorLogSize) X(nvJitLinkGetErrorLog)                 \
  X(nvJitLinkGetInfoLogSize) X(nvJitLinkGetInfoLog) X(nvJitLinkVersion)

#define CUBRIDGE_NVRTC_ENTRY_POINTS(X)                                                         \
  X(nvrtcGetErrorString) X(nvrtcVersion) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs) \
  X(nvrtcCreateProgram) X(nvrtcDestroyProgram) X(nvrtcCompileProgram) X(nvrtcGetPTXSize)        \
  X(nvrtcGetPTX) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN) X(nvrtcGetLTOIRSize) X(nvrtcGetLTOIR)    \
  X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcAddNameExpression)                  \
  X(nvrtcGetLoweredName)

namespace cubridge::toolkit_detail {

#define CUBRIDGE_DECLARE_ENTRY(name) decltype(&::name) name = nullptr;
struct NvvmApi {
  CUBRIDGE_NVVM_ENTRY_POINTS(CUBRIDGE_DECLARE_ENTRY)
  std::string path;
  std::vector<std::string> searched;
};
struct NvJitLinkApi {
  CUBRIDGE_NVJITLINK_ENTRY_POINTS(CUBRIDGE_DECLARE_ENTRY)
  std::string path;
  std::vector<std::string> searched;
};
struct NvrtcApi {
  CUBRIDGE_NVRTC_ENTRY_POINTS(CUBRIDGE_DECLARE_ENTRY)
  std::string path;
  std::vector<std::string> searched;
};
#undef CUBRIDGE_DECLARE_ENTRY

/// Each loads its library on first use (thread-safe) and throws ToolkitError, with the file and every
/// place searched, on this and every later call when it cannot.
const NvvmApi& nvvm_api();
const NvJitLinkApi& nvjitlink_api();
const NvrtcApi& nvrtc_api();

/// The outcome of loading one library, without throwing (for Toolkit::components()).
struct LibraryReport {
  bool loaded = false;
  std::string path;
  std::string error;
  std::vector<std::string> searched;
};
LibraryReport nvvm_api_report() noexcept;
LibraryReport nvjitlink_api_report() noexcept;
LibraryReport nvrtc_api_report() noexcept;

/// What a search for one file looks like; pure, so tests can point it at a scratch directory.
struct FileSearch {
  std::vector<std::string> names;    ///< file names, preferred first (e.g. libnvvm.so.4, libnvvm.so)
  std::vector<std::string> subdirs;  ///< relative to each home; "targets/*/lib" expands the glob
  std::string probe_symbol = {};     ///< a symbol of the library, to learn which file the loader chose
};
struct Located {
  std::string path;                   ///< empty when not found
  std::vector<std::string> searched;  ///< every candidate path tried, in order
};
/// The first existing `home/subdir/name`, trying homes in order, subdirs in order, names in order.
Located locate(const std::vector<std::string>& homes, const FileSearch& search);

FileSearch nvvm_search();
FileSearch nvjitlink_search();
FileSearch nvrtc_search();

/// What home discovery reads, so tests can give it a scratch environment.
struct HomeSearchInputs {
  std::function<const char*(const char*)> getenv;   ///< the process's environment
  std::vector<std::string> wheel_directories;        ///< site-packages directories (set_wheel_directories)
  int cuda_major = 0;                                ///< wheels are looked for in nvidia/cu<major>
};
/// The CUDA homes (see Toolkit::homes), computed fresh (not cached): existing directories only, each once.
/// ToolkitError when CUBRIDGE_TOOLKIT_SEARCH names an unknown place.
std::vector<CudaHome> discover_cuda_homes(const HomeSearchInputs& in);
/// The same from this process's environment and the registered wheel directories.
std::vector<CudaHome> discover_cuda_homes();
/// "variables,wheels" -> {"variables", "wheels"}; ToolkitError naming the text and the accepted names.
std::vector<std::string> parse_search_sources(std::string_view text);
/// Whether the dynamic loader's own search path may be tried (it is part of the "system" toolkit).
bool loader_search_enabled();
std::vector<std::string> home_paths(const std::vector<CudaHome>& homes);
/// What to install or set to get `what` ("libNVVM", "NVRTC", ...): the wheel that brings it.
std::string wheel_advice(const std::string& what);

/// A library opened with dlopen (never closed), or why it could not be.
struct LoadedLibrary {
  void* handle = nullptr;
  std::string path;
  std::vector<std::string> searched;
  std::string error;  // set when handle is null: names the file and every place searched
};
/// Tries `homes` (through locate) first, so the library matches that toolkit's headers and libdevice,
/// then the dynamic loader's own search path under each of `search.names`.
LoadedLibrary open_library(const std::string& what, const FileSearch& search,
                           const std::vector<std::string>& homes);

/// "cannot find <what> (<file>): looked in <a>, <b>, ...; set CUBRIDGE_CUDA_HOME ..." .
std::string not_found_message(const std::string& what, const std::string& file,
                              const std::vector<std::string>& searched);

}  // namespace cubridge::toolkit_detail
