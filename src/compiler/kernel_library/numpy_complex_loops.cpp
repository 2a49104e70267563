// Internal: the complex loops of NumPy's ufuncs in kernels, written in the Python subset this compiler accepts
// and compiled with the kernel that calls them (typer_numpy.cpp), each as numba-cuda's ufunc table lowers it:
// sin, cos, tan, arcsin, arccos, arctan, arcsinh, arctanh and log are cmath's functions (the cmath prelude);
// sinh, cosh, tanh, arccosh, log2 and log10 are npyfuncs' translations of NumPy's funcs.inc.src (plain formulas,
// no special cases for infinities); the order comparisons are NumPy's CGT/CGE/CLT/CLE (lexicographic, with a NaN
// imaginary part deciding against unless the real parts are equal) and maximum/minimum/fmax/fmin pick with
// NumPy's NaN rules. Constants numba builds in the component type are passed in that type (`one`, `log2e`),
// so complex64 loops stay in float32 as numba's do.
#include "compiler/kernel_library/numpy_complex_loops.hpp"

#include <utility>

namespace cubridge::compiler {

namespace {

// ufunc -> prelude function; the second member: whether it has one function per width (_c64/_c128).
constexpr std::pair<std::string_view, bool> kLoops[] = {
    {"sin", false},     {"cos", false},         {"tan", false},     {"arcsin", false},    {"arccos", false},
    {"arctan", false},  {"sinh", false},        {"cosh", false},    {"tanh", true},       {"arcsinh", false},
    {"arccosh", true},  {"arctanh", false},     {"log", false},     {"log2", true},       {"log10", true},
    {"greater", false}, {"greater_equal", false}, {"less", false}, {"less_equal", false}, {"maximum", false},
    {"minimum", false}, {"fmax", false},        {"fmin", false}};

constexpr std::string_view kSource = R"PY(import math
import cmath
import numpy as __np


def __np_sin(z):
    return cmath.sin(z)


def __np_cos(z):
    return cmath.cos(z)


def __np_tan(z):
    return cmath.tan(z)


def __np_arcsin(z):
    return cmath.asin(z)


def __np_arccos(z):
    return cmath.acos(z)


def __np_arctan(z):
    return cmath.atan(z)


def __np_arcsinh(z):
    return cmath.asinh(z)


def __np_arctanh(z):
    return cmath.atanh(z)


def __np_log(z):
    return cmath.log(z)


def __np_sinh(z):
    xr = z.real
    xi = z.imag
    return complex(math.cos(xi) * math.sinh(xr), math.sin(xi) * math.cosh(xr))


def __np_cosh(z):
    xr = z.real
    xi = z.imag
    return complex(math.cos(xi) * math.cosh(xr), math.sin(xi) * math.sinh(xr))


def __np_tanh(z, one):
    xr = z.real
    xi = z.imag
    si = math.sin(xi)
    ci = math.cos(xi)
    shr = math.sinh(xr)
    chr_ = math.cosh(xr)
    rs = ci * shr
    is_ = si * chr_
    rc = ci * chr_
    ic = si * shr
    inv_d = one / (rc * rc + ic * ic)
    return complex((rs * rc + is_ * ic) * inv_d, (is_ * rc - rs * ic) * inv_d)


def __np_tanh_c64(z):
    return __np_tanh(z, __np.float32(1.0))


def __np_tanh_c128(z):
    return __np_tanh(z, 1.0)


def __np_arccosh(z, one):
    # log(z + sqrt(z + 1) * sqrt(z - 1))
    return cmath.log(z + cmath.sqrt(z + one) * cmath.sqrt(z - one))


def __np_arccosh_c64(z):
    return __np_arccosh(z, complex(__np.float32(1.0), __np.float32(0.0)))


def __np_arccosh_c128(z):
    return __np_arccosh(z, complex(1.0, 0.0))


def __np_log_scaled(z, factor):
    w = cmath.log(z)
    return complex(factor * w.real, factor * w.imag)


def __np_log2_c64(z):
    return __np_log_scaled(z, __np.float32(1.4426950408889634))


def __np_log2_c128(z):
    return __np_log_scaled(z, 1.4426950408889634)


def __np_log10_c64(z):
    return __np_log_scaled(z, __np.float32(0.4342944819032518))


def __np_log10_c128(z):
    return __np_log_scaled(z, 0.4342944819032518)


def __np_imag_ordered(x, y):
    return not (math.isnan(x.imag) or math.isnan(y.imag))


def __np_greater(x, y):
    return (x.real > y.real and __np_imag_ordered(x, y)) or (x.real == y.real and x.imag > y.imag)


def __np_greater_equal(x, y):
    return (x.real > y.real and __np_imag_ordered(x, y)) or (x.real == y.real and x.imag >= y.imag)


def __np_less(x, y):
    return (x.real < y.real and __np_imag_ordered(x, y)) or (x.real == y.real and x.imag < y.imag)


def __np_less_equal(x, y):
    return (x.real < y.real and __np_imag_ordered(x, y)) or (x.real == y.real and x.imag <= y.imag)


def __np_pick(a, b, a_first, keep_nan):
    # a_first: a is the ordered pick (a >= b for maximum, a <= b for minimum). keep_nan: maximum and minimum
    # return a NaN operand (the first when both are), fmax and fmin the other operand.
    a_nan = math.isnan(a.real) or math.isnan(a.imag)
    b_nan = math.isnan(b.real) or math.isnan(b.imag)
    if a_nan or b_nan:
        if keep_nan:
            if a_nan:
                return a
            return b
        if b_nan:
            return a
        return b
    if a_first:
        return a
    return b


def __np_maximum(a, b):
    return __np_pick(a, b, __np_greater_equal(a, b), True)


def __np_minimum(a, b):
    return __np_pick(a, b, __np_less_equal(a, b), True)


def __np_fmax(a, b):
    return __np_pick(a, b, __np_greater_equal(a, b), False)


def __np_fmin(a, b):
    return __np_pick(a, b, __np_less_equal(a, b), False)
)PY";

}  // namespace

std::optional<std::string> numpy_complex_loop(std::string_view ufunc, int bits) {
  for (const auto& [name, per_width] : kLoops)
    if (name == ufunc)
      return "__np_" + std::string(name) + (per_width ? (bits == 64 ? "_c64" : "_c128") : "");
  return std::nullopt;
}

std::string numpy_complex_loop_names() {
  std::string s;
  for (const auto& [name, per_width] : kLoops) s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

const ModuleAst& numpy_complex_prelude() {
  static const ModuleAst parsed = parse_module(kSource, "<cubridge numpy complex loops>");
  return parsed;
}

}  // namespace cubridge::compiler
