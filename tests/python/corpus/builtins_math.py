"""Builtins (abs min max round int float bool complex divmod pow) and the math module."""
import math


def b_abs(x):
    return abs(x)

def b_min2(a, b):
    return min(a, b)

def b_max2(a, b):
    return max(a, b)

def b_min3(a, b, c):
    return min(a, b, c)

def b_max_tuple(a, b):
    return max((a, b, 7))

def b_round(x):
    return round(x)

def b_round2(x):
    return round(x, 2)

def b_round_neg(x):
    return round(x, -1)

def b_int(x):
    return int(x)

def b_float(x):
    return float(x)

def b_bool(x):
    return bool(x)

def b_complex(x):
    return complex(x)

def b_complex2(x, y):
    return complex(x, y)

def b_divmod(a, b):
    return divmod(a, b)

def b_pow(a, b):
    return pow(a, b)

def m_sqrt(x):
    return math.sqrt(x)

def m_exp(x):
    return math.exp(x)

def m_log(x):
    return math.log(x)

def m_log2(x):
    return math.log2(x)

def m_log10(x):
    return math.log10(x)

def m_log1p(x):
    return math.log1p(x)

def m_expm1(x):
    return math.expm1(x)

def m_sin(x):
    return math.sin(x)

def m_cos(x):
    return math.cos(x)

def m_tan(x):
    return math.tan(x)

def m_asin(x):
    return math.asin(x)

def m_acos(x):
    return math.acos(x)

def m_atan(x):
    return math.atan(x)

def m_atan2(y, x):
    return math.atan2(y, x)

def m_sinh(x):
    return math.sinh(x)

def m_cosh(x):
    return math.cosh(x)

def m_tanh(x):
    return math.tanh(x)

def m_floor(x):
    return math.floor(x)

def m_ceil(x):
    return math.ceil(x)

def m_trunc(x):
    return math.trunc(x)

def m_fabs(x):
    return math.fabs(x)

def m_copysign(x, y):
    return math.copysign(x, y)

def m_fmod(x, y):
    return math.fmod(x, y)

def m_hypot(x, y):
    return math.hypot(x, y)

def m_isnan(x):
    return math.isnan(x)

def m_isinf(x):
    return math.isinf(x)

def m_isfinite(x):
    return math.isfinite(x)

def m_erf(x):
    return math.erf(x) + math.erfc(x)

def m_gamma(x):
    return math.gamma(x)

def m_lgamma(x):
    return math.lgamma(x)

def m_consts(x):
    return x * math.pi + math.e

def m_inf_nan(x):
    if x > 0:
        return math.inf
    if x < 0:
        return -math.inf
    return math.nan

def m_pow(x, y):
    return math.pow(x, y)

def m_degrees(x):
    return math.degrees(x) + math.radians(x)

def m_sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))

def m_softplus(x):
    return math.log1p(math.exp(-abs(x))) + max(x, 0.0)

def m_gelu(x):
    return 0.5 * x * (1.0 + math.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))

SIGS = {
    "b_abs": [("int8",), ("bool",), ("uint16",), ("float32",), ("complex64",), ("float16",), ("int64",)],
    "b_min2": [("int32", "int32"), ("uint8", "int8"), ("float32", "float64"), ("int64", "uint64"), ("bool", "bool")],
    "b_max2": [("int32", "float32"), ("float64", "float64"), ("float16", "float16")],
    "b_min3": [("int32", "int32", "float32")],
    "b_max_tuple": [("int32", "int32")],
    "b_round": [("float32",), ("float64",), ("int32",)],
    "b_round2": [("float64",), ("float32",), ("int64",)],
    "b_round_neg": [("float64",)],
    "b_int": [("float32",), ("uint8",), ("bool",), ("float64",)],
    "b_float": [("int32",), ("float32",), ("float16",)],
    "b_bool": [("float64",), ("int32",), ("complex128",)],
    "b_complex": [("float32",), ("int32",)],
    "b_complex2": [("float32", "float32"), ("float64", "int32")],
    "b_divmod": [("int32", "int32"), ("int64", "uint64"), ("float32", "float32"), ("float64", "float64")],
    "b_pow": [("int32", "int32"), ("bool", "int32"), ("float32", "float32")],
    "m_sqrt": [("float32",), ("float64",), ("int32",), ("float16",)],
    "m_exp": [("float32",), ("float64",)],
    "m_log": [("float32",), ("float64",)],
    "m_log2": [("float64",)],
    "m_log10": [("float32",)],
    "m_log1p": [("float64",)],
    "m_expm1": [("float64",)],
    "m_sin": [("float32",), ("float64",), ("bool",), ("uint8",)],
    "m_cos": [("float64",)],
    "m_tan": [("float32",)],
    "m_asin": [("float64",)],
    "m_acos": [("float32",)],
    "m_atan": [("float64",)],
    "m_atan2": [("float64", "float64"), ("float32", "float32"), ("int32", "int32")],
    "m_sinh": [("float64",)],
    "m_cosh": [("float32",)],
    "m_tanh": [("float64",)],
    "m_floor": [("float64",), ("float32",), ("int32",)],
    "m_ceil": [("float64",)],
    "m_trunc": [("float32",)],
    "m_fabs": [("float64",), ("int64",)],
    "m_copysign": [("float64", "float64"), ("float32", "int16")],
    "m_fmod": [("float64", "float64"), ("float32", "float32")],
    "m_hypot": [("float64", "float64")],
    "m_isnan": [("float64",), ("int32",)],
    "m_isinf": [("float32",)],
    "m_isfinite": [("float64",)],
    "m_erf": [("float64",)],
    "m_gamma": [("float64",)],
    "m_lgamma": [("float64",)],
    "m_consts": [("float64",)],
    "m_inf_nan": [("int32",)],
    "m_pow": [("float64", "float64"), ("float32", "float32"), ("float32", "int32")],
    "m_degrees": [("float64",)],
    "m_sigmoid": [("float32",), ("float64",)],
    "m_softplus": [("float64",)],
    "m_gelu": [("float64",)],
}
