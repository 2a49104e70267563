// Compiling a Python function (source text, parsed by our own front end) to NVVM IR and, through
// libNVVM, to PTX or LTO-IR, with the C or the Numba ABI.
// Implements: issue 5 / DESIGN.md "code" face: compile(pyfunc, sig, debug, lineinfo, device, fastmath,
// cc, opt, abi, abi_info, output) -> (code, resty).
#pragma once

#include <chrono>
#include <complex>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cubridge/compiler/toolkit.hpp"
#include "cubridge/types/signature.hpp"
#include "cubridge/error.hpp"

namespace cubridge {

/// Source outside the supported subset, or a typing error. what() is "file:line:col: message" and
/// says what is supported; it is a std::invalid_argument (Python: ValueError).
class CompileError : public std::invalid_argument, public Error {
 public:
  CompileError(const std::string& what, std::string file, int line, int column)
      : std::invalid_argument(what), file_(std::move(file)), line_(line), column_(column) {}
  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }
  int column() const noexcept { return column_; }

 private:
  std::string file_;
  int line_ = 0;
  int column_ = 0;
};

/// A compile error in the type of what the caller asked for, which numba-cuda reports as a TypeError (a
/// kernel that returns a value): Python's cubridge.CompileError and TypeError both catch it.
class CompileTypeError : public CompileError {
 public:
  using CompileError::CompileError;
};

namespace compiler {

/// Thrown by the front end at a call of a function numba implements through an @overload
/// (CompileOptions::overloads) for argument types no resolution covers yet: `function` is the name the code
/// calls, `args` the types of the call's arguments (positional ones, then the keyword ones in the call's
/// order) and `keywords` the keyword names. The caller resolves it (numba's overload function called with
/// these types gives the implementation), adds the resolution and compiles again.
class OverloadNeeded : public CompileError {
 public:
  OverloadNeeded(const std::string& what, std::string function, std::vector<Type> args,
                 std::vector<std::string> keywords, std::vector<std::optional<std::int64_t>> literals = {},
                 std::vector<std::size_t> unknown_literals = {}, std::vector<std::string> functions = {})
      : CompileError(what, "", 0, 0), function_(std::move(function)), args_(std::move(args)),
        keywords_(std::move(keywords)), literals_(std::move(literals)),
        unknown_literals_(std::move(unknown_literals)), functions_(std::move(functions)) {}
  const std::string& function() const noexcept { return function_; }
  const std::vector<Type>& args() const noexcept { return args_; }
  const std::vector<std::string>& keywords() const noexcept { return keywords_; }
  /// Per argument, its value when it is an integer literal (numba types it as IntegerLiteral too).
  const std::vector<std::optional<std::int64_t>>& literals() const noexcept { return literals_; }
  /// The arguments numba may type as literals whose value is not given here (a bool constant, a variable
  /// that may hold a constant): a prefer_literal overload cannot be resolved faithfully for them.
  const std::vector<std::size_t>& unknown_literals() const noexcept { return unknown_literals_; }
  /// Per argument, the module function (one of the units) it is when the call passes a function (numba
  /// types it as a Dispatcher of that function; its entry in args() is None), else "".
  const std::vector<std::string>& functions() const noexcept { return functions_; }

 private:
  std::string function_;
  std::vector<Type> args_;
  std::vector<std::string> keywords_;
  std::vector<std::optional<std::int64_t>> literals_;
  std::vector<std::size_t> unknown_literals_;
  std::vector<std::string> functions_;
};

/// A value folded into the code as a constant: a module-level or closure variable.
struct Constant {
  Type type;                       ///< a scalar type or a tuple of them
  std::int64_t i = 0;              ///< Bool and signed Int
  std::uint64_t u = 0;             ///< unsigned Int
  double re = 0, im = 0;           ///< Float (re) and Complex
  std::vector<Constant> elements;  ///< Tuple
};

/// A NumPy array bound outside the source (a module global or closure variable): numba-cuda freezes such
/// arrays into the module as read-only constant data, and cuda.const.array_like(X) gives X in constant
/// memory; both read this. `bytes` holds the elements in C order.
struct ConstantArray {
  Type dtype;                        ///< a scalar type or a record (a structured NumPy array)
  std::vector<std::int64_t> shape;   ///< 0 to 32 dimensions (none: numba's 0-d array, one element)
  std::string bytes;                 ///< product(shape) * itemsize bytes
};

/// A ConstantArray, checked: `dtype_name` a scalar type name ("float32"), `shape` non-negative with 0 to
/// 32 dimensions, `bytes` exactly the elements' size. Throws std::invalid_argument naming the problem.
ConstantArray constant_array(std::string_view dtype_name, std::vector<std::int64_t> shape, std::string bytes);

/// A GPU array bound outside the source (a module global or closure variable with __cuda_array_interface__):
/// numba-cuda embeds its device pointer, shape and strides in the code as constants, so the code reads and
/// writes that memory, a mutable array unless the interface says read-only. The caller keeps the array alive
/// while the code may run.
struct DeviceArrayRef {
  Type type;                          ///< the array's type (dtype, rank, layout, read-only), as typeof gives it
  std::uint64_t address = 0;          ///< the data pointer
  std::vector<std::int64_t> shape;    ///< one extent per dimension
  std::vector<std::int64_t> strides;  ///< in bytes, one per dimension
};

/// A DeviceArrayRef, checked: `type_name` an array type of numbers of any rank, 0 included ("array(float32, 2d, C)"),
/// shape and strides of its rank, extents non-negative. Throws std::invalid_argument naming the problem.
DeviceArrayRef device_array_ref(std::string_view type_name, std::uint64_t address, std::vector<std::int64_t> shape,
                                std::vector<std::int64_t> strides);

/// A constant from text: the scalar leaves of `type` in order, separated by spaces (a complex takes
/// two: real and imaginary part). Integers in decimal, floats as C99 hex or decimal, "inf", "-inf",
/// "nan"; bools as 0/1. Throws std::invalid_argument naming the bad text.
Constant constant_from_text(std::string_view type_name, std::string_view text);

enum class Abi { c, numba };
enum class Output { ptx, ltoir };

/// A call of an @overload'ed function resolved for its argument types (as OverloadNeeded reports them): the
/// module function (one of the units) that implements it.
struct OverloadResolution {
  std::vector<Type> args;
  std::vector<std::string> keywords;
  std::string function;
  /// Empty: resolved for the types alone (any values). Else resolved for these literal values (an overload
  /// that took IntegerLiteral types: prefer_literal=True, or one that needed them): only calls with the
  /// same literal arguments use it.
  std::vector<std::optional<std::int64_t>> literals;
  /// Per argument, the module function passed there ("" for a value), as OverloadNeeded::functions():
  /// numba resolves an overload per function passed (a Dispatcher type each).
  std::vector<std::string> functions;
};

/// A device function defined outside the compiled code (numba-cuda's cuda.declare_device: CUDA C++, PTX or
/// LTO-IR linked with the kernel), called by `symbol` with `signature`: under the Numba ABI as
/// `int symbol(R* result, args...)` returning a status (non-zero: the caller returns it, as numba-cuda's
/// callers do), under the C ABI as `R symbol(args...)`. Arguments are numbers or C pointers.
struct ExternalFunction {
  std::string symbol;
  Signature signature;
  Abi abi = Abi::numba;
  /// Declared use_cooperative (its code syncs the grid): a kernel whose code calls it is launched
  /// cooperatively (CompileResult::cooperative), as numba-cuda marks it.
  bool cooperative = false;
};

struct CompileOptions {
  bool debug = false;
  bool lineinfo = false;
  /// Only device functions are supported by this front end (kernels come with arrays, issue 6).
  bool device = true;
  bool fastmath = false;
  /// Empty: the lowest compute capability libNVVM accepts (the spec's 5.0, raised).
  std::optional<ComputeCapability> cc;
  /// With cc: "" or numba-cuda's cc=(9, 0, 'a') / (10, 0, 'f') letter, an architecture-specific target
  /// (.target sm_90a: code for that GPU only) or a family-specific one (sm_100f).
  std::string arch_variant;
  bool opt = true;
  /// numba-cuda's _dbg_optnone: functions not forced inline are marked optnone noinline (kernel entries not).
  bool optnone = false;
  /// Kernels: numba-cuda's max_registers and launch_bounds, which the emitter writes as the entry's PTX
  /// performance directives (.maxnreg; .maxntid, .minnctapersm, .maxclusterrank); 0: not given.
  int max_registers = 0;
  int max_threads_per_block = 0;   ///< launch_bounds[0]
  int min_blocks_per_sm = 0;       ///< launch_bounds[1]
  int max_blocks_per_cluster = 0;  ///< launch_bounds[2]: thread-block clusters, compute capability 9.0 and up
  Abi abi = Abi::c;
  /// The exported name; empty: the function's own name (C ABI) or its mangled name (Numba ABI).
  std::string abi_name;
  Output output = Output::ptx;
  /// The file name for messages and line info.
  std::string filename = "<string>";
  /// Line of the first line of `source` in `filename` (when the source is a slice of a file).
  int first_line = 1;
  /// Module name used in Numba-ABI mangled names.
  std::string module_name = "__main__";
  /// Names bound outside the source: module globals and closure cells of the Python function.
  std::map<std::string, Constant, std::less<>> constants;
  /// Arrays bound outside the source (module globals and closure cells holding NumPy arrays).
  std::map<std::string, ConstantArray, std::less<>> constant_arrays;
  /// Tuples bound outside the source whose items are NumPy arrays (or numbers), as numba-cuda freezes them:
  /// the tuple's name -> the names of its items in order, each a key of constant_arrays or constants
  /// ("cases" -> "cases[0]", "cases[1]"). The code indexes them with constants, takes len() and iterates
  /// them with literal_unroll.
  std::map<std::string, std::vector<std::string>, std::less<>> constant_tuples;
  /// GPU arrays bound outside the source (module globals and closure cells with __cuda_array_interface__).
  std::map<std::string, DeviceArrayRef, std::less<>> device_arrays;
  /// Names bound outside the source to exception classes, as "module.qualname" ("mymod.BadInput"); a
  /// `raise` of a name not listed here may name a builtin exception (ValueError, ...).
  std::map<std::string, std::string, std::less<>> exception_classes;
  /// Names bound outside the source to a dtype (a NumPy structured dtype, a Numba Record type): the
  /// dtype of cuda.local.array / cuda.shared.array.
  std::map<std::string, Type, std::less<>> dtypes;
  /// Extra source units (other functions the compiled one calls), each with its file and first line.
  struct Unit {
    std::string source;
    std::string filename;
    int first_line = 1;
  };
  std::vector<Unit> extra_units;
  /// Other names the source calls a module function by, each -> the function's own name in the units:
  /// a global or closure variable bound to it ("op" -> "scale"), a path through an imported module
  /// ("pkg.sub.fn" -> "fn") or an item of a tuple of functions ("ops[1]" -> "g").
  std::map<std::string, std::string, std::less<>> function_aliases;
  /// Module functions declared with inline='never' (numba-cuda's jit option: no forced inlining): not
  /// marked alwaysinline, so NVVM's inliner decides, as it does for numba-cuda.
  std::set<std::string, std::less<>> inline_never;
  /// Module functions declared with inline='always' (numba-cuda inlines them at its IR level): each call's
  /// body is written into the caller, so the IR has no call of them and no alwaysinline. Where a call cannot
  /// be inlined so (a recursive function, debug info or line info on) it is a call of the function marked
  /// alwaysinline, which runs the same code.
  std::set<std::string, std::less<>> inline_ir;
  /// Names bound outside the source to functions whose GPU code cubridge cannot compile faithfully, each
  /// -> why (a numba @overload or @intrinsic: its Python body is not what numba runs on the GPU). A call
  /// of such a name is refused with that reason, never compiled from the Python body. Other values the
  /// compiler cannot take faithfully (an Enum that is not an IntEnum, a 0-d GPU array) are listed here too:
  /// any use of the name is refused with the reason.
  std::map<std::string, std::string, std::less<>> refused_functions;
  /// Module functions given signatures (numba-cuda's jit(sigs, device=True)), by the function's own name: a
  /// call picks one by Numba's overload score and converts its arguments to it (unsafely where needed:
  /// 1.5 -> int64 is 1), and a declared return type converts the result.
  std::map<std::string, std::vector<Signature>, std::less<>> declared_signatures;
  /// Names bound outside the source to external device functions (cuda.declare_device), by the name the
  /// code calls them by.
  std::map<std::string, ExternalFunction, std::less<>> external_functions;
  /// NVVM IR modules compiled in the same libNVVM program as the front end's (numba's own lowering of the
  /// @intrinsic / lower_builtin calls the code makes, built in Python: their functions are called by
  /// symbol through external_functions, C ABI). libdevice is added with them (numba's code may call it).
  std::vector<std::string> nvvm_modules;
  /// Names bound outside the source to functions numba implements through an @overload, by the name the
  /// code calls them by, each with the resolutions found so far (a call with other types: OverloadNeeded).
  std::map<std::string, std::vector<OverloadResolution>, std::less<>> overloads;
};

/// Where the time went, in seconds.
struct CompileTimings {
  double parse = 0, type = 0, emit = 0, nvvm = 0;
};

/// A place where the compiled code raises (raise, assert, division by zero under debug=True): the
/// Numba-ABI status it returns there, and what the host raises when a debug=True kernel reports it
/// (numba-cuda's report: "In function 'f', file F, line L, tid=[z, y, x] ctaid=[z, y, x]: <args[0]>").
struct RaiseSite {
  int code = 0;                    ///< the status (>= 1); codes are numbered per compiled module
  std::string exception;           ///< "builtins.ValueError", or an exception_classes value
  /// The constant arguments, each "<kind>:<text>": s (str, UTF-8), i (int64), u (uint64), f (float64
  /// as C99 hex), b (bool 0/1), c (complex: two hex floats), n (None).
  std::vector<std::string> args;
  std::string function;            ///< the Python function that raises
  std::string file;
  int line = 0;                    ///< 0: no source location (numba reports divisions by zero without one)
};

/// A read of a local variable that some path reaches with the variable never assigned (numba's SSA finds no
/// definition there: "Detected uninitialized variable x", a NumbaWarning under its ALWAYS_WARN_UNINIT_VAR).
struct UninitializedRead {
  std::string variable;
  std::string function;  ///< the Python function that reads it
  std::string file;
  int line = 0;
};

struct CompileResult {
  std::string code;       ///< PTX text or LTO-IR bytes
  Type result_type;       ///< the return type (declared or inferred)
  std::string name;       ///< the exported symbol
  std::string nvvm_ir;    ///< the NVVM IR given to libNVVM
  bool uses_libdevice = false;
  /// Where the code raises (empty when it cannot): a debug=True kernel stores the first raising thread's
  /// status in the globals "<name>__errcode__", "<name>__tid{x,y,z}__", "<name>__ctaid{x,y,z}__".
  std::vector<RaiseSite> raise_sites;
  /// The kernel synchronises its grid (cuda.cg.this_grid().sync()): it must be launched cooperatively.
  bool cooperative = false;
  /// numba-cuda's warnings (NumbaWarning) for this code, raised by the Python layer where it compiles (print()
  /// of more than 32 items). Empty in a result read from the on-disk cache, as numba-cuda's cache reads none.
  std::vector<std::string> warnings;
  CompileTimings timings;
  bool from_cache = false;  ///< compile_cached() read it from the on-disk cache (compile_cache.hpp)
  /// The entry function's variables as the source names them, parameters first, each with the type the
  /// front end inferred (numba-cuda's typemap: ``overloads[sig]._type_annotation``). Filled by the front
  /// end (compile_to_nvvm_ir, compile); empty in a result read from the on-disk cache. Left out: parameters
  /// bound at compile time, variables never typed (unreachable), and a loop's own version of a variable.
  std::vector<std::pair<std::string, Type>> variable_types;
  /// The reads of variables that may be unassigned there, in every function compiled (each once).
  std::vector<UninitializedRead> uninitialized_reads;
};

/// Front end only: the NVVM IR text for `function_name` in `source` with `signature`. Throws
/// CompileError for unsupported or ill-typed source, std::invalid_argument for a bad signature.
CompileResult compile_to_nvvm_ir(std::string_view source, std::string_view function_name,
                                 const Signature& signature, const CompileOptions& options);

/// The whole path: front end, then libNVVM. Also throws ToolkitError/NvvmError from libNVVM, and
/// std::invalid_argument naming the supported range for a `cc` libNVVM cannot target.
CompileResult compile(std::string_view source, std::string_view function_name, const Signature& signature,
                      const CompileOptions& options);
/// Same, with the signature as text ("float32(float32, float32)").
CompileResult compile(std::string_view source, std::string_view function_name, std::string_view signature,
                      const CompileOptions& options);

/// The Numba-ABI symbol: Itanium-style `_ZN<module parts><qualname parts>E<arg types>`.
std::string mangle_numba_abi(std::string_view module_name, std::string_view qualname, const std::vector<Type>& args);

}  // namespace compiler

using compiler::compile;

}  // namespace cubridge
