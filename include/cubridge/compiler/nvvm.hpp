// libNVVM: NVVM IR text modules (plus libdevice when asked) compiled to PTX or LTO-IR, without a GPU.
// Implements: libNVVM API (nvvm.h) program model and options (-arch, -opt, -ftz, -prec-sqrt, -prec-div,
// -fma, -g, -generate-line-info, -gen-lto); the code face's `debug`/`lineinfo`/`fastmath`/`opt`/`cc`.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cubridge/compiler/toolkit.hpp"

namespace cubridge::nvvm {

/// One NVVM IR module: its text (LLVM 7 assembly with typed pointers and !nvvmir.version) or bitcode.
struct Module {
  std::string_view ir;
  std::string name = "module";
};

enum class Output { ptx, ltoir };

struct Options {
  ComputeCapability cc{7, 5};
  /// 0 disables optimisation (-opt=0); 3 is libNVVM's default. 0-3 accepted.
  int opt_level = 3;
  /// Together these are `fastmath` (ftz=1, prec-sqrt=0, prec-div=0, fma=1); the defaults are IEEE.
  bool ftz = false;
  bool prec_sqrt = true;
  bool prec_div = true;
  bool fma = true;
  bool debug = false;     ///< -g: full debug information
  bool lineinfo = false;  ///< -generate-line-info: only the line table
  Output output = Output::ptx;
  /// Add libdevice lazily (only the functions the modules call are linked in). Leave false unless the
  /// modules call __nv_* functions: it costs ~1.5 ms.
  bool libdevice = false;
  /// Passed to libNVVM as they are, after ours.
  std::vector<std::string> extra_options = {};
  /// "" or an architecture-specific target's letter: "a" (sm_90a: that GPU only) or "f" (sm_100f: its
  /// family), written after the digits (-arch=compute_90a).
  std::string arch_variant = {};

  /// fastmath on or off as the code face defines it.
  Options& set_fastmath(bool on);
};

/// The compilation failed: what() names the call and carries libNVVM's program log; log() is the log.
class NvvmError : public ToolkitError {
 public:
  using ToolkitError::ToolkitError;
};

/// The libNVVM options `options` stands for (e.g. {"-arch=compute_90", "-opt=3", ...}); throws
/// std::invalid_argument for a compute capability or opt level libNVVM would reject.
std::vector<std::string> option_strings(const Options& options);

/// Compiles the modules into one program: PTX text or LTO-IR bytes (in a std::string). Throws
/// NvvmError with the program log on failure, std::invalid_argument for bad options or no modules.
std::string compile(std::span<const Module> modules, const Options& options);
/// One module.
std::string compile(std::string_view ir, const Options& options);
/// Several modules given as texts (named module0, module1, ... in libNVVM's log).
std::string compile(const std::vector<std::string>& modules, const Options& options);

/// Checks the modules without generating code (nvvmVerifyProgram); throws NvvmError with the log.
void verify(std::span<const Module> modules, const Options& options);

/// The lowest and highest compute capability this libNVVM accepts (probed once, then cached).
struct ArchRange {
  ComputeCapability lowest;
  ComputeCapability highest;
  /// Every compute capability from the known list that this libNVVM accepts, ascending.
  std::vector<ComputeCapability> all;
  bool contains(ComputeCapability cc) const;
  /// "7.5 to 12.1"
  std::string to_string() const;
};
const ArchRange& supported_archs();

/// nvvmVersion() and nvvmIRVersion() (IR major, minor, debug-metadata major, minor).
std::pair<int, int> version();
std::vector<int> ir_version();

/// "!nvvmir.version = !{!0}\n!0 = !{i32 M, i32 m, i32 DM, i32 Dm}\n" for this libNVVM, so IR emitters
/// need not hard-code the numbers.
std::string ir_version_metadata();

}  // namespace cubridge::nvvm
