// Internal: isinstance(x, T) as numba types it (numba's ol_isinstance), for the number types: true exactly
// when x's type is T's numba type (int is int64, float float64, complex complex128, bool bool; a number
// class such as float32, bfloat16 or fp8_e4m3 is itself), or one of them when T is a tuple of types. numba
// decides it when it compiles; the answer is taken when the function is emitted, from x's final type
// (emit_calls.cpp). x must be a variable of a number type: numba supports more kinds (containers, arrays,
// jitclasses), which are refused here by name rather than answered wrongly.
#include "compiler/typing/function_typer.hpp"
#include "cubridge/types/type_spelling.hpp"

namespace cubridge::compiler::typer_detail {
namespace {

// The numba type of a class at `path` ("numpy.float32", "numba.cuda.bfloat16", "int"), or nullopt.
std::optional<Type> class_type(const std::string& path) {
  if (path == "int") return Type::integer(64, true);
  if (path == "float") return Type::floating(64);
  if (path == "complex") return Type::complex(128);
  if (path == "bool") return Type::boolean();
  auto dot = path.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  const std::string mod = path.substr(0, dot), name = path.substr(dot + 1);
  if (mod == "numba.cuda._internal.cuda_fp8") {
    if (name == "fp8_e4m3") return Type::fp8_e4m3();
    if (name == "fp8_e5m2") return Type::fp8_e5m2();
    if (name == "fp8_e8m0") return Type::fp8_e8m0();
    return std::nullopt;
  }
  if (!is_numeric_module(mod) && !mod.starts_with("numba")) return std::nullopt;
  if (name == "bfloat16") return Type::bfloat16();
  if (auto t = parse_type_name(name); t && t->is_scalar()) return t;
  return std::nullopt;
}

}  // namespace

Type FunctionTyper::isinstance_call(Expr& e) {
  arity(e, "isinstance", e.kids.size() - 1, 2, 2);
  Expr& var = *e.kids[1];
  Expr& classes = *e.kids[2];
  std::vector<Expr*> items;
  if (classes.kind == ExprKind::Tuple)
    for (auto& k : classes.kids) items.push_back(k.get());
  else
    items.push_back(&classes);
  e.formals.clear();
  for (Expr* c : items) {
    std::string path = dotted(*c);
    if (path.empty() && c->kind == ExprKind::Name && !prog_.functions.count(c->name) && slot_of(c->name) < 0)
      path = c->name;  // the builtins int, float, complex, bool
    auto t = class_type(path);
    if (!t)
      error(c->loc, "isinstance(): the second argument must be a number type or a tuple of them (int, float, "
                    "complex, bool, float32, int16, ..., bfloat16, fp8_e4m3, ...); cubridge does not compile "
                    "isinstance with other classes");
    e.formals.push_back(*t);
  }
  if (var.kind != ExprKind::Name)
    error(var.loc, "isinstance(): the first argument must be a variable (numba evaluates the expression and "
                   "discards it; assign it to a variable first)");
  Type t = expr(var);
  if (!t.is_unknown() && !(t.is_scalar() || t.is_bfloat16() || t.is_fp8()))
    error(var.loc, "isinstance() on a value of type " + t.name() + " is not supported: cubridge answers it for "
                   "numbers, bfloat16 and fp8 values");
  e.callee = Callee::Builtin;
  e.target = "isinstance";
  return Type::boolean();
}

}  // namespace cubridge::compiler::typer_detail
