// Internal: typing of print() and raise (see function_typer.hpp), with numba-cuda's rules. print() takes
// positional arguments only; it prints integers, floats, bools, string literals, tuples of them and
// cuda.threadIdx-style dim3 values (what numba-cuda's printimpl formats). raise takes an exception class or
// a call of one with constant arguments: numba-cuda keeps those arguments on the host and reports them
// when a debug=True kernel raises (the device only returns a status code).
#include <cstdio>

#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

constexpr const char* kPrintable = "integers, floats, bfloat16, bools, string literals, tuples of them and cuda.threadIdx "
                                   "(or blockIdx, blockDim, gridDim)";

// Python's builtin exception classes that a kernel may raise (those numba treats as plain user exceptions).
constexpr const char* kBuiltinExceptions[] = {
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BufferError", "EOFError",
    "EnvironmentError", "Exception", "FloatingPointError", "IOError", "ImportError", "IndexError", "KeyError",
    "LookupError", "MemoryError", "ModuleNotFoundError", "NameError", "NotImplementedError", "OSError",
    "OverflowError", "RecursionError", "ReferenceError", "RuntimeError", "SystemError", "TypeError",
    "UnboundLocalError", "UnicodeError", "ValueError", "ZeroDivisionError"};

bool is_dim3_name(std::string_view n) {
  return n == "threadIdx" || n == "blockIdx" || n == "blockDim" || n == "gridDim";
}

std::string hex_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

}  // namespace

Type FunctionTyper::print_call(Expr& e) {
  e.callee = Callee::Builtin;
  e.target = "print";
  if (!e.keywords.empty()) {
    std::string names;
    for (const std::string& k : e.keywords) names += (names.empty() ? "" : ", ") + k + "=";
    error(e.loc, "print() does not support keyword arguments (" + names + "), as in numba-cuda: it prints its "
                 "positional arguments separated by spaces and ended by a newline");
  }
  for (std::size_t i = 1; i < e.kids.size(); ++i) print_item(*e.kids[i]);
  return Type::none();
}

void FunctionTyper::print_item(Expr& a) {
  if (a.kind == ExprKind::Str) {
    if (a.ival == 1) error(a.loc, "print() cannot print a bytes literal; it prints " + std::string(kPrintable));
    if (a.ival == 2)
      error(a.loc, "print() cannot print an f-string with placeholders (its text is not a constant); pass the "
                   "values as separate arguments: print(\"x =\", x)");
    return;
  }
  if (a.kind == ExprKind::Attribute) {
    // cuda.threadIdx as a whole: numba-cuda prints a Dim3 as "(x, y, z)".
    std::string path = dotted(a);
    if (auto in = intrinsic_of(path); in && is_dim3_name(in->name)) {
      a.target = in->name;
      a.type = Type::tuple(std::vector<Type>(3, Type::integer(32, true)));
      return;
    }
  }
  Type t = expr(a);
  if (t.is_unknown()) return;
  auto printable = [](auto&& self, const Type& x) -> bool {
    if (x.is_int() || x.is_bool() || x.is_float() || x.is_bfloat16()) return true;  // bfloat16: %f of its double
    if (!x.is_tuple()) return false;
    for (const Type& el : x.elements())
      if (!self(self, el)) return false;
    return true;
  };
  if (!printable(printable, t))
    error(a.loc, "print() cannot print a value of type " + t.name() + " (as in numba-cuda); it prints " +
                     std::string(kPrintable));
}

void FunctionTyper::raise_statement(Stmt& s) {
  Expr& x = *s.value;
  const Expr* cls = &x;
  std::vector<Expr*> args;
  if (x.kind == ExprKind::Call) {
    cls = x.kids[0].get();
    if (!x.keywords.empty())
      error(x.loc, "exception arguments must be positional (keyword arguments to an exception are not supported)");
    for (std::size_t i = 1; i < x.kids.size(); ++i) args.push_back(x.kids[i].get());
  }
  s.what = exception_class(*cls);
  s.exception_args.clear();
  for (Expr* a : args) s.exception_args.push_back(exception_arg(*a));
}

std::string FunctionTyper::exception_class(const Expr& c) {
  const char* accepted = "raise a builtin exception class (ValueError, IndexError, ...) or an exception class bound "
                         "at module level or in a closure, alone or called with constant arguments: "
                         "raise ValueError, raise ValueError(\"bad value\", 3)";
  if (c.kind != ExprKind::Name) error(c.loc, std::string("this exception cannot be raised; ") + accepted);
  if (slot_of(c.name) >= 0)
    error(c.loc, "'" + c.name + "' is a local variable; exceptions held in variables cannot be raised; " + accepted);
  if (auto bound = prog_.options.exception_classes.find(c.name); bound != prog_.options.exception_classes.end())
    return bound->second;
  bool shadowed = prog_.functions.count(c.name) || prog_.imports.count(c.name) ||
                  prog_.options.constants.count(c.name) || prog_.module_assignments.count(c.name);
  if (!shadowed)
    for (const char* b : kBuiltinExceptions)
      if (c.name == b) return "builtins." + c.name;
  error(c.loc, "'" + c.name + "' is not an exception class; " + accepted);
}

std::string FunctionTyper::exception_arg(Expr& a) {
  const char* accepted = "exception arguments must be constants (string literals, numbers, True/False, None or "
                         "module-level constants), as in numba-cuda: run-time values do not reach the host";
  switch (a.kind) {
    case ExprKind::Str:
      if (a.ival != 0) error(a.loc, std::string("this string is not a constant; ") + accepted);
      return "s:" + a.name;
    case ExprKind::Int:
      return a.int_unsigned ? "u:" + std::to_string(a.ival) : "i:" + std::to_string(static_cast<std::int64_t>(a.ival));
    case ExprKind::Float: return "f:" + hex_double(a.fval);
    case ExprKind::Complex: return "c:" + hex_double(0.0) + " " + hex_double(a.imag);
    case ExprKind::Bool: return std::string("b:") + (a.ival ? "1" : "0");
    case ExprKind::NoneLit: return "n:";
    case ExprKind::Unary: {
      const Expr& k = *a.kids[0];
      if (a.unop == UnaryOp::Neg && k.kind == ExprKind::Int && !k.int_unsigned)
        return "i:" + std::to_string(-static_cast<std::int64_t>(k.ival));
      if (a.unop == UnaryOp::Neg && k.kind == ExprKind::Float) return "f:" + hex_double(-k.fval);
      break;
    }
    case ExprKind::Name: {
      if (slot_of(a.name) >= 0) break;
      const Constant* c = constant_of(a.name, a.loc);
      if (c == nullptr || c->type.is_tuple()) break;
      const Type& t = c->type;
      if (t.is_bool()) return std::string("b:") + (c->i ? "1" : "0");
      if (t.is_int()) return t.is_signed() ? "i:" + std::to_string(c->i) : "u:" + std::to_string(c->u);
      if (t.is_float()) return "f:" + hex_double(c->re);
      if (t.is_complex()) return "c:" + hex_double(c->re) + " " + hex_double(c->im);
      break;
    }
    default: break;
  }
  error(a.loc, accepted);
}

}  // namespace cubridge::compiler::typer_detail
