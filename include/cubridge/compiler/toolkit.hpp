// Where the CUDA toolkit's compiler libraries are (libNVVM, libdevice, nvJitLink, NVRTC, ptxas), found
// at run time and loaded lazily, so a machine without them still imports cubridge and fails only on use.
// Implements: DESIGN.md "compiler/" rule (toolkit libraries loaded at run time; name the missing file and
// every place it was looked for).
#pragma once

#include <compare>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
#include "cubridge/error.hpp"

namespace cubridge {

/// A compute capability such as 9.0 (compute_90 / sm_90).
struct ComputeCapability {
  int major = 0;
  int minor = 0;
  auto operator<=>(const ComputeCapability&) const = default;
  /// "9.0"
  std::string to_string() const;
  /// "90", as in compute_90 and sm_90.
  std::string digits() const;
  /// Accepts "9.0", "90", "sm_90", "compute_90", "lto_90"; std::invalid_argument naming the text otherwise.
  static ComputeCapability parse(std::string_view text);
};

/// A toolkit component could not be found or loaded, or one of its calls failed. what() names the
/// file and every place that was searched (for a missing component) or carries the tool's own log.
class ToolkitError : public std::runtime_error, public Error {
 public:
  explicit ToolkitError(const std::string& what) : std::runtime_error(what) {}
  ToolkitError(const std::string& what, std::string log)
      : std::runtime_error(what), log_(std::move(log)) {}
  /// The tool's own log (libNVVM program log, nvJitLink error log, NVRTC program log); may be empty.
  const std::string& log() const noexcept { return log_; }

 private:
  std::string log_;
};

/// A directory taken as a CUDA toolkit home, and why it was searched.
struct CudaHome {
  std::string path;
  std::string source;  ///< "variables", "wheels", "conda" or "system" (the CUBRIDGE_TOOLKIT_SEARCH names)
  std::string origin;  ///< e.g. "$CUBRIDGE_CUDA_HOME", "nvidia-* wheels in /venv/lib/python3.12/site-packages"
};

/// Directories that may hold NVIDIA's pip wheels of the toolkit (`<dir>/nvidia/cu13/lib/libnvvm.so.4`):
/// the Python package gives its site-packages directories at import. Searched after the variables and
/// before $CONDA_PREFIX. std::logic_error once the toolkit has been looked for with other directories.
void set_wheel_directories(std::vector<std::string> site_directories);
/// The directories given to set_wheel_directories (none by default).
std::vector<std::string> wheel_directories();

/// One component as found on this machine. `searched` lists, in order, every path (or loader name)
/// that was tried; `error` says why a component that was not found is unusable.
struct ToolkitComponent {
  std::string name;      ///< "libNVVM", "libdevice", "nvJitLink", "NVRTC" or "ptxas"
  bool found = false;
  std::string path;      ///< the file used, when found
  std::string version;   ///< e.g. "2.0 (NVVM IR 2.0, debug 3.2)"; empty when unknown
  std::string source;    ///< where `path` came from: a CudaHome's source, or "loader" (the loader's path)
  std::string origin;    ///< in words: the CudaHome's origin or "the dynamic loader's search path"
  std::vector<std::string> searched;
  std::string error;
};

/// The CUDA toolkit as discovered at run time. Every accessor loads what it needs on first use and
/// caches it for the life of the process; all are thread-safe.
class Toolkit {
 public:
  /// The directories taken as CUDA homes, in search order (existing ones only, each once):
  /// variables ($CUBRIDGE_CUDA_HOME, $CUDA_HOME, $CUDA_PATH), wheels (`nvidia/cu13` under each
  /// set_wheel_directories entry), conda ($CONDA_PREFIX), system (the parent of the directory holding
  /// `nvcc` on PATH, /usr/local/cuda; after them, the dynamic loader's own search path).
  /// $CUBRIDGE_TOOLKIT_SEARCH, a comma-separated subset of those four names, limits the search.
  const std::vector<CudaHome>& homes() const;
  /// The paths of homes().
  const std::vector<std::string>& cuda_homes() const;
  /// Path of libdevice.10.bc; throws ToolkitError naming every place searched when absent.
  const std::string& libdevice_path() const;
  /// Path of the ptxas executable; throws ToolkitError when absent.
  const std::string& ptxas_path() const;
  /// One entry per component (libNVVM, libdevice, nvJitLink, NVRTC, ptxas); loads each library to
  /// read its version, never throws for a missing one.
  std::vector<ToolkitComponent> components() const;
  /// The same for one component by name (case-insensitive); std::invalid_argument for an unknown name.
  ToolkitComponent component(std::string_view name) const;
};

/// The process-wide toolkit.
const Toolkit& toolkit();

/// Result of assembling PTX with ptxas (a check for tests and the CPU machine: no GPU needed).
struct PtxasResult {
  bool ok = false;
  int exit_code = -1;
  std::string log;  ///< ptxas's stdout and stderr
};

/// Assembles `ptx` with `ptxas -arch=sm_XY` into a temporary file and reports the result.
/// Throws ToolkitError only when ptxas itself cannot be found or run.
PtxasResult ptxas_check(std::string_view ptx, ComputeCapability cc,
                        const std::vector<std::string>& extra_options = {});

}  // namespace cubridge
