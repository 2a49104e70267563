// Internal: typing of cmath calls in kernels (see function_typer.hpp), with numba-cuda's signatures: exp, log,
// sqrt, sin, cos, tan, asin, acos, atan, asinh, atanh and the predicates take complex64 or complex128 (a real
// argument converts, as numba's ConcreteTemplate cases convert it) and return that type; log10, sinh, cosh,
// tanh, acosh, phase and polar take complex numbers only and return what their Python implementation computes
// (numba's @overload), as rect(r, phi) does for two floats. The implementations are the prelude's
// (cmath_prelude.cpp), compiled as module functions of the kernel.
#include "compiler/kernel_library/cmath_prelude.hpp"
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

constexpr const char* kCmath =
    "exp, log, log10, sqrt, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, phase, polar, "
    "rect, isnan, isinf, isfinite, and the constants pi, e, tau, inf, nan, infj, nanj";

bool one_of(std::string_view n, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

// numba's CMath_unary/CMath_predicate/Cmath_log cases: (complex64) or (complex128), chosen by the usual score.
std::optional<Type> complex_case(const std::vector<Type>& args) {
  static const std::vector<Case> cases = {{Type::complex(64), Type::complex(64), Type::complex(64)},
                                          {Type::complex(128), Type::complex(128), Type::complex(128)}};
  if (args.size() == 1) {
    auto r = resolve_cases(cases, args[0], args[0]);
    return r ? std::optional<Type>(r->result) : std::nullopt;
  }
  auto r = resolve_cases(cases, args[0], args[1]);
  return r ? std::optional<Type>(r->result) : std::nullopt;
}

}  // namespace

Type FunctionTyper::cmath_constant(Expr& e, std::string_view attr) {
  Constant c;
  c.type = f64();
  if (attr == "pi") c.re = M_PI;
  else if (attr == "e") c.re = M_E;
  else if (attr == "tau") c.re = 2 * M_PI;
  else if (attr == "inf") c.re = INFINITY;
  else if (attr == "nan") c.re = NAN;
  else if (attr == "infj" || attr == "nanj") {
    c.type = Type::complex(128);
    c.im = attr == "infj" ? INFINITY : NAN;
  } else {
    error(e.loc, "cmath." + std::string(attr) + " is not supported; the cmath module offers: " + kCmath);
  }
  return folded(e, c);
}

Type FunctionTyper::cmath_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown) {
  std::string shown = "cmath." + fname;
  bool fixed = one_of(fname, {"exp", "log", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "asinh", "atanh",
                              "isnan", "isinf", "isfinite"});
  bool complex_only = one_of(fname, {"log10", "sinh", "cosh", "tanh", "acosh", "phase", "polar"});
  if (!fixed && !complex_only && fname != "rect")
    error(e.loc, shown + " is not supported; the cmath module offers: " + kCmath);
  std::size_t n = args.size();
  arity(e, shown, n, fname == "rect" ? 2 : 1, fname == "rect" || fname == "log" ? 2 : 1);
  if (unknown) return Type();
  auto given = [&] {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += (i ? ", " : "") + args[i].name();
    return s;
  };
  std::string impl = "__cmath_" + fname;
  std::vector<Type> formals = args;
  if (fixed) {
    auto t = complex_case(args);
    if (!t || !std::all_of(args.begin(), args.end(), [](const Type& a) { return a.is_scalar(); }))
      error(e.loc, "no implementation of " + shown + "(" + given() + "); it takes complex64 or complex128 (a real "
                   "number converts to one)");
    formals.assign(n, *t);
    if (fname == "sqrt") impl += t->bits() == 64 ? "_c64" : "_c128";
    if (fname == "log" && n == 2) impl = "__cmath_log_base";
  } else if (complex_only) {
    if (!args[0].is_complex())
      error(e.loc, "no implementation of " + shown + "(" + given() + "); it takes a complex number (complex64 or "
                   "complex128), as numba-cuda's does");
  } else if (!args[0].is_float() || !args[1].is_float() || args[0].bits() == 16 || args[1].bits() == 16) {
    error(e.loc, "no implementation of " + shown + "(" + given() + "); it takes two floats (float32 or float64)");
  }
  Type r = user_call(e, cmath_function(impl), formals, false);
  // numba's lowered signatures fix the result type (exp(complex64) is complex64 even where its Python
  // implementation returns a complex128 on one path); the emitter converts the call's value to it.
  if (fixed && !r.is_unknown()) return one_of(fname, {"isnan", "isinf", "isfinite"}) ? Type::boolean() : formals[0];
  return r;
}

const FunctionDef& FunctionTyper::cmath_function(const std::string& impl) {
  return prelude_function(cmath_prelude(), impl);
}

const FunctionDef& FunctionTyper::prelude_function(const ModuleAst& prelude, const std::string& impl) {
  // The prelude's functions join the program the first time a kernel calls one of them (cmath, a complex
  // power, a complex ufunc loop).
  if (!prog_.functions.count(impl)) {
    for (const FunctionDef& f : prelude.functions) prog_.functions.emplace(f.name, &f);
    for (const auto& [alias, target] : prelude.imports) prog_.imports.emplace(alias, target);
  }
  return *prog_.functions.find(impl)->second;
}

Type FunctionTyper::complex_power(Expr& e, const Type& t) {
  // numba-cuda lowers a ** b, pow(a, b) and a **= b on complex64/complex128 with cpow_internal, a Python
  // function compiled with the kernel (mathimpl.cpow_implement): so is the prelude's copy of it.
  std::string impl = t.bits() == 64 ? "__cpow_c64" : "__cpow_c128";
  user_call(e, cmath_function(impl), {t, t}, false);
  e.formals = {t, t};  // an augmented assignment's target gets its index types back (statement())
  return t;
}

}  // namespace cubridge::compiler::typer_detail
