// NVRTC: CUDA C++ source compiled at run time to PTX, LTO-IR (-dlto) or a cubin, without a GPU.
// Implements: NVRTC API (nvrtc.h) programs, options and name expressions; the C++ side of the code
// face's link example (a CUDA C++ kernel calling a Python-compiled device function).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cubridge/compiler/toolkit.hpp"

namespace cubridge::nvrtc {

enum class Output { ptx, ltoir, cubin };

/// A header the source may #include by `name`, given by its text.
struct Header {
  std::string name;
  std::string source;
};

struct Options {
  ComputeCapability cc{9, 0};  ///< -arch=compute_XY (PTX, LTO-IR) or sm_XY (cubin)
  Output output = Output::ptx;
  /// Separate compilation (-rdc=true): needed when the code calls device functions defined elsewhere;
  /// always on for LTO-IR.
  bool relocatable = false;
  bool debug = false;      ///< -G
  bool lineinfo = false;   ///< -lineinfo
  bool fastmath = false;   ///< --use_fast_math
  std::string std = "c++17";
  std::vector<std::string> include_dirs = {};
  std::vector<Header> headers = {};
  /// C++ names (e.g. "&kern<float>") whose mangled names the result reports in `lowered_names`.
  std::vector<std::string> name_expressions = {};
  std::vector<std::string> extra_options = {};  ///< passed as they are, after ours
};

struct Result {
  std::string code;  ///< PTX text, LTO-IR bytes or cubin bytes
  std::string log;   ///< warnings (NVRTC's program log), possibly empty
  std::vector<std::pair<std::string, std::string>> lowered_names;  ///< {expression, mangled name}
};

/// NVRTC rejected the program: what() carries the program log (the compiler's messages); log() is it.
class NvrtcError : public ToolkitError {
 public:
  using ToolkitError::ToolkitError;
};

/// The NVRTC options `options` stands for, e.g. {"-arch=compute_90", "-dlto", "-rdc=true", "-std=c++17"}.
std::vector<std::string> option_strings(const Options& options);

/// Compiles `source` (named `name` in messages). Throws NvrtcError with the log when it does not
/// compile, std::invalid_argument for an empty name or an arch NVRTC does not support.
Result compile(std::string_view source, std::string_view name, const Options& options);

/// nvrtcVersion().
std::pair<int, int> version();
/// The architectures this NVRTC can target (nvrtcGetSupportedArchs), ascending.
std::vector<ComputeCapability> supported_archs();

}  // namespace cubridge::nvrtc
