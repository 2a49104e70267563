// Internal: the syntax tree of the Python subset, plus the slots the typer fills in for the emitter.
// One Expr/Stmt struct each (a kind tag and generic children) keeps the parser, typer and emitter
// small; a new construct (subscripts of arrays, attribute calls for CUDA intrinsics) adds a kind.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cubridge/compiler/compile.hpp"
#include "cubridge/types/type.hpp"
#include "compiler/frontend/operators.hpp"

namespace cubridge::compiler {

struct SourceLoc {
  int line = 0;  ///< 1-based, in the file
  int col = 0;   ///< 1-based
};

enum class ExprKind {
  Name, Int, Float, Complex, Bool, NoneLit, Str, Tuple, Binary, Unary, BoolOp, Compare, IfExp, Call,
  Attribute, Subscript, Slice, Unwrap, Unsupported
};
enum class CmpOp { Lt, Le, Gt, Ge, Eq, Ne, Is, IsNot, In, NotIn };

/// How a for loop walks its iterable (set by the typer on the iterable, and on those inside enumerate/zip).
enum class IterKind { None, Range, Array, Tuple, Enumerate, Zip };

/// What a Call resolved to (set by the typer).
enum class Callee { Unresolved, Builtin, Math, UserFunction, TypeCast, Intrinsic, NumpyUfunc, Libdevice, Fp16, Bf16, Fp8, Vector,
                    External };

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  ExprKind kind = ExprKind::Unsupported;
  SourceLoc loc;
  std::string name;               ///< Name: identifier; Attribute: attribute; Call: dotted callee; Unsupported: what;
                                  ///< Str: the decoded text (ival 1: a bytes literal, 2: an f-string with placeholders)
  BinOp binop = BinOp::Add;       ///< Binary
  UnaryOp unop = UnaryOp::Neg;    ///< Unary
  bool is_and = false;            ///< BoolOp
  std::vector<CmpOp> cmp_ops;     ///< Compare: kids = operands (n+1)
  std::uint64_t ival = 0;         ///< Int: magnitude bits (two's complement of an int64 or a uint64)
  bool int_unsigned = false;      ///< Int: >= 2**63 (typed uint64, as Numba does)
  double fval = 0;                ///< Float / Complex (imaginary part)
  double imag = 0;
  std::vector<ExprPtr> kids;      ///< operands, tuple items, call args (kids[0] is not the callee); Unwrap: the
                                  ///< Optional value used where its value is needed (set by the typer); Slice:
                                  ///< start, stop[, step] (the step only when one is written after a second ':')
  std::vector<std::string> keywords;  ///< Call: keyword names of the trailing args (bound to parameters by the typer)

  // Filled by the typer.
  Type type;                      ///< the value's type
  std::vector<Type> formals;      ///< operand types after conversion (binary: 2, compare: one per pair, calls: per arg)
  Callee callee = Callee::Unresolved;
  int callee_index = -1;          ///< UserFunction: index into TypedModule::functions
  int slot = -1;                  ///< Name: index of the local variable (-1: not a local)
  const Constant* constant = nullptr;  ///< Name/Attribute folded to a constant (module global, closure, math.pi)
  const ConstantArray* constant_array = nullptr;  ///< Name: a NumPy array bound outside the source
  const DeviceArrayRef* device_array = nullptr;   ///< Name: a GPU array bound outside the source
  std::string target;             ///< Call: resolved builtin/math name ("abs", "math.sqrt"), cast type name or
                                  ///< CUDA intrinsic ("grid", "atomic.add"); Attribute: intrinsic ("threadIdx.x")
  std::vector<std::int64_t> shape;  ///< shared.array/local.array: the constant shape (0 for dynamic shared memory)
  std::int64_t alignment = 0;     ///< shared.array/local.array: numba-cuda's alignment= in bytes (0: not given)
  int field = -1;                 ///< Attribute/Subscript of a record (r.x, r['x']): the field's index
  IterKind iter = IterKind::None;  ///< a for loop's iterable: how it is walked (its operands keep their own type)
  Type item;                       ///< ... and the type of each item it yields (Range: the counter's type)
  /// Call of an @overload'ed function, once resolved (typer_overload_calls.cpp): the call's own positional
  /// count and keywords, from which its argument types are read again in later passes (-1: not resolved).
  int overload_positional = -1;
  std::vector<std::string> overload_keywords;
};

/// A Name expression reading `name`, placed at `loc` (what the front end's and the typer's rewrites insert).
inline ExprPtr name_expr(std::string name, SourceLoc loc) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::Name;
  e->name = std::move(name);
  e->loc = loc;
  return e;
}

/// Def and Nonlocal exist only between the parser and lift_nested_functions, which replaces each by Pass.
enum class StmtKind { Expr, Assign, AugAssign, If, While, For, Break, Continue, Pass, Return, Assert, Raise, Def, Nonlocal,
                      Unsupported };

struct Stmt;
struct FunctionDef;
using StmtPtr = std::unique_ptr<Stmt>;

struct Stmt {
  StmtKind kind = StmtKind::Unsupported;
  SourceLoc loc;
  std::vector<ExprPtr> targets;   ///< Assign: a = b = value has two; For: one target
  ExprPtr value;                  ///< Assign/AugAssign/Return/Expr value; For: the iterable; Raise: the
                                  ///< exception (a class or a call of one)
  ExprPtr test;                   ///< If/While/Assert
  ExprPtr msg;                    ///< Assert message
  BinOp aug_op = BinOp::Add;
  std::vector<StmtPtr> body, orelse;
  std::string what;               ///< Unsupported: the construct's name; Raise: the exception class (RaiseSite::exception)
  std::vector<std::string> exception_args;  ///< Raise: the constant arguments (RaiseSite::args)
  std::shared_ptr<FunctionDef> def;         ///< Def: the nested function (Nonlocal: targets are its Names)
};

struct FunctionDef {
  std::string name;
  std::string qualname;
  SourceLoc loc;
  std::vector<std::string> params;
  std::vector<SourceLoc> param_locs;
  std::vector<ExprPtr> defaults;  ///< per parameter: its default value (a constant expression), or null
  bool vararg = false;            ///< the last parameter is `*name`: a tuple of the surplus positional arguments
  std::vector<StmtPtr> body;
  std::string file;               ///< source file name for messages
  std::string parse_error;        ///< non-empty: the body failed to parse (reported when it is compiled)
};

/// A parsed source unit: its functions, `import` aliases and module-level constant assignments.
struct ModuleAst {
  std::vector<FunctionDef> functions;
  /// alias -> dotted target: "math" -> "math", "m" -> "math", "sqrt" -> "math.sqrt"
  std::vector<std::pair<std::string, std::string>> imports;
  /// NAME = <constant expression> at module level, in order.
  std::vector<std::pair<std::string, ExprPtr>> assignments;
};

/// How deeply a function's statements and expressions may nest (src/compiler/frontend/ast_depth.cpp).
inline constexpr int kMaxNesting = 300;  // under ASan (bigger frames) 400 levels still fit a thread's 8 MiB stack
/// Throws CompileError at the first place `f` (or a module-level expression of `file`) nests more than
/// kMaxNesting levels (checked iteratively).
void check_nesting(const FunctionDef& f);
void check_nesting(const Expr& e, const std::string& file);

/// The spelling of `*value` among a call's arguments (an Unsupported expression whose one kid is the value): the
/// typer spreads a tuple there into its items; anywhere else it is refused by this name.
inline constexpr const char* kStarredArgument = "argument unpacking ('*value') of this value";

/// Lifts each function's nested `def`s out as functions of the module (nested_functions.cpp): a nested function
/// called where it is defined takes the variables it reads from its encloser as leading parameters (those
/// it assigns as `nonlocal` come back as its result), one passed to another function has its captured
/// constants folded in, as numba-cuda's closure inlining and MakeFunctionToJitFunction do; anything else
/// is recorded as the encloser's parse_error, by name.
void lift_nested_functions(ModuleAst& m);

/// Parses one unit; errors in a function body are recorded in FunctionDef::parse_error (so a module
/// with one unsupported function still compiles the others); other syntax errors throw CompileError.
ModuleAst parse_module(std::string_view source, const std::string& file, int first_line = 1);

/// Throws CompileError "file:line:col: message".
[[noreturn]] void fail(const std::string& file, SourceLoc loc, const std::string& message);
/// Throws CompileTypeError "file:line:col: message" (an error numba reports as a TypeError).
[[noreturn]] void fail_type(const std::string& file, SourceLoc loc, const std::string& message);

}  // namespace cubridge::compiler
