// Internal: the cmath module for kernels, written in the Python subset this compiler accepts and compiled with
// the kernel when it calls cmath (typer_cmath.cpp), as numba-cuda compiles its own Python implementations
// (cmathimpl.py: CPython's and NumPy's algorithms over math functions), and numba-cuda's complex power
// (mathimpl.cpow_implement: `a ** b` and pow(a, b) on complex numbers, __cpow_c64/_c128). Bit-for-bit parity with numba-cuda
// depends on doing the same floating-point operations in the same types, so each function keeps numba's
// operation order, and a name never holds two types where numba's SSA would give them two variables.
// Thresholds are numba's: float32 ones (FLT_MAX / 4, FLT_MAX / (1 + sqrt 2)) are written as the float64
// numbers equal to them; they are only compared with, never computed with.
#include "compiler/kernel_library/cmath_prelude.hpp"

namespace cubridge::compiler {

std::string_view cmath_prelude_source() {
  return R"PY(import math
import cmath
import numpy as __np


def __cmath_isnan(z):
    return math.isnan(z.real) or math.isnan(z.imag)


def __cmath_isinf(z):
    return math.isinf(z.real) or math.isinf(z.imag)


def __cmath_isfinite(z):
    return math.isfinite(z.real) and math.isfinite(z.imag)


def __cmath_phase(z):
    return math.atan2(z.imag, z.real)


def __cmath_polar(z):
    return math.hypot(z.real, z.imag), math.atan2(z.imag, z.real)


def __cmath_rect(r, phi):
    if not math.isfinite(phi):
        if not r:
            return abs(r)
        if math.isinf(r):
            return complex(r, phi)
    re = math.cos(phi)
    im = math.sin(phi)
    # 0 * inf is NaN: a zero part divided by the infinite radius keeps its zero (and takes the sign).
    if re == 0.0 and math.isinf(r):
        re /= r
    else:
        re *= r
    if im == 0.0 and math.isinf(r):
        im /= r
    else:
        im *= r
    return complex(re, im)


def __cmath_exp(z):
    x = z.real
    y = z.imag
    if math.isfinite(x):
        if math.isfinite(y):
            c = math.cos(y)
            s = math.sin(y)
            r = math.exp(x)
            return complex(r * c, r * s)
        return complex(math.nan, math.nan)
    if math.isnan(x):
        if y:
            return complex(x, x)
        return complex(x, y)
    if x > 0.0:
        if math.isfinite(y):
            re = math.cos(y)
            im = math.sin(y)
            if re != 0:
                re *= x
            if im != 0:
                im *= x
            return complex(re, im)
        return complex(x, math.nan)
    if math.isfinite(y):
        m = math.exp(x)
        cy = math.cos(y)
        sy = math.sin(y)
        return complex(m * cy, m * sy)
    return complex(0, 0)


def __cmath_log(z):
    return complex(math.log(math.hypot(z.real, z.imag)), math.atan2(z.imag, z.real))


def __cmath_log_base(z, base):
    return cmath.log(z) / cmath.log(base)


def __cmath_log10(z):
    w = cmath.log(z)
    return complex(w.real / 2.302585092994045684, w.imag / 2.302585092994045684)


def __cmath_sqrt_below(z, thres):
    # NumPy's npy_csqrt (Algorithm 312, CACM 10, 1967), scaled by 1/4 near overflow.
    a = z.real
    b = z.imag
    if a == 0.0 and b == 0.0:
        return complex(abs(b), b)
    if math.isinf(b):
        return complex(abs(b), b)
    if math.isnan(a):
        return complex(a, a)
    if math.isinf(a):
        if a < 0.0:
            return complex(abs(b - b), math.copysign(a, b))
        return complex(a, math.copysign(b - b, b))
    if abs(a) >= thres or abs(b) >= thres:
        a *= 0.25
        b *= 0.25
        scale = True
    else:
        scale = False
    if a >= 0:
        t = math.sqrt((a + math.hypot(a, b)) * 0.5)
        re = t
        im = b / (2 * t)
    else:
        t = math.sqrt((-a + math.hypot(a, b)) * 0.5)
        re = abs(b) / (2 * t)
        im = math.copysign(t, b)
    if scale:
        return complex(re * 2, im)
    return complex(re, im)


def __cpow(a, b, zero, one):
    # numba-cuda's cpow_internal with fty(0.0) = zero, fty(1.0) = one and cty(x) = complex(x, zero): the
    # constants in the component type, so complex64 stays in float32 as numba's does.
    if b.real == zero and b.imag == zero:
        return complex(one, zero) + complex(zero, zero)
    elif a.real == zero and b.real == zero:
        return complex(zero, zero) + complex(zero, zero)
    vabs = math.hypot(a.real, a.imag)
    length = math.pow(vabs, b.real)
    at = math.atan2(a.imag, a.real)
    phase = at * b.real
    if b.imag != zero:
        length /= math.exp(at * b.imag)
        phase += b.imag * math.log(vabs)
    return length * (complex(math.cos(phase), zero) + complex(math.sin(phase), zero) * complex(zero, one))


def __cpow_c64(a, b):
    return __cpow(a, b, __np.float32(0.0), __np.float32(1.0))


def __cpow_c128(a, b):
    return __cpow(a, b, 0.0, 1.0)


def __cmath_sqrt_c64(z):
    return __cmath_sqrt_below(z, 1.4094955303793193e+38)


def __cmath_sqrt_c128(z):
    return __cmath_sqrt_below(z, 7.446288774449766e+307)


def __cmath_cosh(z):
    x = z.real
    y = z.imag
    if math.isinf(x):
        if math.isnan(y):
            re = abs(x)
            im = y
        elif y == 0.0:
            re = abs(x)
            im = y
        else:
            re = math.copysign(x, math.cos(y))
            im = math.copysign(x, math.sin(y))
        if x < 0.0:
            im = -im
        return complex(re, im)
    return complex(math.cos(y) * math.cosh(x), math.sin(y) * math.sinh(x))


def __cmath_cos(z):
    return cmath.cosh(complex(-z.imag, z.real))


def __cmath_sinh(z):
    x = z.real
    y = z.imag
    if math.isinf(x):
        if math.isnan(y):
            re = x
            im = y
        else:
            re = math.cos(y)
            im = math.sin(y)
            if re != 0.0:
                re *= x
            if im != 0.0:
                im *= abs(x)
        return complex(re, im)
    return complex(math.cos(y) * math.sinh(x), math.sin(y) * math.cosh(x))


def __cmath_sin(z):
    w = cmath.sinh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)


def __cmath_tanh(z):
    x = z.real
    y = z.imag
    if math.isinf(x):
        re = math.copysign(1.0, x)
        if math.isinf(y):
            im = 0.0
        else:
            im = math.copysign(0.0, math.sin(2.0 * y))
        return complex(re, im)
    # CPython's c_tanh.
    tx = math.tanh(x)
    ty = math.tan(y)
    cx = 1.0 / math.cosh(x)
    txty = tx * ty
    denom = 1.0 + txty * txty
    return complex(tx * (1.0 + ty * ty) / denom, ((ty / denom) * cx) * cx)


def __cmath_tan(z):
    w = cmath.tanh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)


def __cmath_acos(z):
    # CPython's c_acos; large arguments avoid overflow (and handle infinities).
    if abs(z.real) > 8.5070586659632215e+37 or abs(z.imag) > 8.5070586659632215e+37:
        big_re = math.atan2(abs(z.imag), z.real)
        big_im = math.copysign(math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + 1.3862943611198906, -z.imag)
        return complex(big_re, big_im)
    s1 = cmath.sqrt(complex(1.0 - z.real, -z.imag))
    s2 = cmath.sqrt(complex(1.0 + z.real, z.imag))
    re = 2.0 * math.atan2(s1.real, s2.real)
    im = math.asinh(s2.real * s1.imag - s2.imag * s1.real)
    return complex(re, im)


def __cmath_acosh(z):
    # CPython's c_acosh.
    if abs(z.real) > 8.5070586659632215e+37 or abs(z.imag) > 8.5070586659632215e+37:
        big_re = math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + 1.3862943611198906
        big_im = math.atan2(z.imag, z.real)
        return complex(big_re, big_im)
    s1 = cmath.sqrt(complex(z.real - 1.0, z.imag))
    s2 = cmath.sqrt(complex(z.real + 1.0, z.imag))
    re = math.asinh(s1.real * s2.real + s1.imag * s2.imag)
    im = 2.0 * math.atan2(s1.imag, s2.real)
    return complex(re, im)


def __cmath_asinh(z):
    # CPython's c_asinh.
    if abs(z.real) > 8.5070586659632215e+37 or abs(z.imag) > 8.5070586659632215e+37:
        big_re = math.copysign(math.log(math.hypot(z.real * 0.5, z.imag * 0.5)) + 1.3862943611198906, z.real)
        big_im = math.atan2(z.imag, abs(z.real))
        return complex(big_re, big_im)
    s1 = cmath.sqrt(complex(1.0 + z.imag, -z.real))
    s2 = cmath.sqrt(complex(1.0 - z.imag, z.real))
    re = math.asinh(s1.real * s2.imag - s2.real * s1.imag)
    im = math.atan2(z.imag, s1.real * s2.real - s1.imag * s2.imag)
    return complex(re, im)


def __cmath_asin(z):
    w = cmath.asinh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)


def __cmath_atan(z):
    w = cmath.atanh(complex(-z.imag, z.real))
    if math.isinf(z.real) and math.isnan(z.imag):
        return complex(w.imag, w.real)
    return complex(w.imag, -w.real)


def __cmath_atanh(z):
    # CPython's c_atanh, reduced to z.real >= 0 by atanh(z) = -atanh(-z).
    if z.real < 0.0:
        negate = True
        z = -z
    else:
        negate = False
    ay = abs(z.imag)
    if math.isnan(z.real) or z.real > 9.223371761976865e+18 or ay > 9.223371761976865e+18:
        if math.isinf(z.imag):
            re = math.copysign(0.0, z.real)
        elif math.isinf(z.real):
            re = 0.0
        else:
            h = math.hypot(z.real * 0.5, z.imag * 0.5)
            re = z.real / 4.0 / h / h
        im = -math.copysign(1.5707963267948966, -z.imag)
    elif z.real == 1.0 and ay < 1.0842021724855044e-19:
        if ay == 0.0:
            re = math.inf
            im = z.imag
        else:
            re = -math.log(math.sqrt(ay) / math.sqrt(math.hypot(ay, 2.0)))
            im = math.copysign(math.atan2(2.0, -ay) / 2, z.imag)
    else:
        sqay = ay * ay
        zr1 = 1 - z.real
        re = math.log1p(4.0 * z.real / (zr1 * zr1 + sqay)) * 0.25
        im = -math.atan2(-2.0 * z.imag, zr1 * (1 + z.real) - sqay) * 0.5
    if math.isnan(z.imag):
        im = math.nan
    if negate:
        return complex(-re, -im)
    return complex(re, im)
)PY";
}

}  // namespace cubridge::compiler

namespace cubridge::compiler {

const ModuleAst& cmath_prelude() {
  static const ModuleAst parsed = parse_module(cmath_prelude_source(), "<cubridge cmath>");
  return parsed;
}

}  // namespace cubridge::compiler
