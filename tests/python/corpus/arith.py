"""Arithmetic, bitwise and comparison operators over the scalar types (Numba's typing rules)."""

def add(x, y):
    return x + y

def sub(x, y):
    return x - y

def mul(x, y):
    return x * y

def truediv(x, y):
    return x / y

def floordiv(x, y):
    return x // y

def mod(x, y):
    return x % y

def power(x, y):
    return x ** y

def neg(x):
    return -x

def pos(x):
    return +x

def invert(x):
    return ~x

def not_(x):
    return not x

def band(x, y):
    return x & y

def bor(x, y):
    return x | y

def bxor(x, y):
    return x ^ y

def lshift(x, y):
    return x << (y & 31)

def rshift(x, y):
    return x >> (y & 31)

def lt(x, y):
    return x < y

def le(x, y):
    return x <= y

def gt(x, y):
    return x > y

def ge(x, y):
    return x >= y

def eq(x, y):
    return x == y

def ne(x, y):
    return x != y

def add1(x):
    return x + 1

def mul2(x):
    return x * 2

def mul2f(x):
    return x * 2.0

def add_true(x):
    return x + True

def pow2(x):
    return x ** 2

def pow_m1(x):
    return x ** -1

def pow_half(x):
    return x ** 0.5

def fdiv2(x):
    return x // 2

def mod3(x):
    return x % 3

def mod_neg3(x):
    return x % -3

def div_by_lit(x):
    return x / 4

def poly3(x):
    return 3 * x * x - 2 * x + 1

def horner(x):
    return ((x * 0.5 + 1.5) * x - 2.0) * x + 0.25

def mixed(a, b):
    return a * 2 + b / 3 - a // 2

def avg(a, b):
    return (a + b) / 2

def sq_diff(a, b):
    d = a - b
    return d * d

def clamp_bits(x):
    return (x & 0xFF) | ((x >> 8) & 0xF0)

def sign_bit(x):
    return (x >> 63) & 1

def lerp(a, b, t):
    return a + (b - a) * t

def chain3(a, b, c):
    return a < b < c

def chain_mixed(a, b, c):
    return a <= b != c

def chain4(a, b, c, d):
    return a < b <= c < d

def big_literal(x):
    return x + 9223372036854775807

def hex_literal(x):
    return x ^ 0x5555

def float_lit(x):
    return x * 1e-3 + 2.5e2

def int_to_float_mix(i, f):
    return i * f + i

def f32_keep(x, y):
    return x * y + x

SIGS = {
    "add": [("int32", "int32"), ("int64", "uint64"), ("uint8", "uint8"), ("float32", "float32"), ("float32", "int16"),
            ("float32", "int32"), ("float64", "int64"), ("bool", "bool"), ("float16", "float16"), ("complex64", "float64")],
    "sub": [("int32", "int32"), ("uint32", "uint32"), ("float64", "float64")],
    "mul": [("int64", "int64"), ("float32", "float32"), ("complex128", "complex128"), ("int16", "float32")],
    "truediv": [("int32", "int32"), ("float64", "float64"), ("float32", "float32"), ("complex128", "complex128"),
                ("int64", "float32")],
    "floordiv": [("int64", "int64"), ("int32", "int32"), ("uint64", "uint64"), ("float64", "float64"), ("float32", "float32"),
                 ("int8", "uint8")],
    "mod": [("int64", "int64"), ("int32", "int32"), ("uint32", "uint32"), ("float64", "float64"), ("float32", "float32")],
    "power": [("int64", "int64"), ("int32", "int32"), ("float64", "int64"), ("float32", "int32"), ("float64", "float64"),
              ("float32", "float32"), ("uint64", "uint64")],
    "neg": [("int32",), ("uint8",), ("float64",), ("bool",), ("complex64",), ("float16",)],
    "pos": [("int16",), ("float32",)],
    "invert": [("int32",), ("uint8",), ("bool",), ("uint64",)],
    "not_": [("int32",), ("float64",), ("bool",)],
    "band": [("int32", "int32"), ("bool", "bool"), ("uint16", "uint16")],
    "bor": [("int64", "int64"), ("bool", "bool")],
    "bxor": [("int32", "int64"), ("uint32", "uint32")],
    "lshift": [("int32", "int32"), ("uint8", "int64"), ("int64", "uint32")],
    "rshift": [("int64", "int64"), ("uint64", "int32"), ("int8", "int8")],
    "lt": [("int64", "uint64"), ("int32", "uint32"), ("float32", "int64"), ("float64", "float64"), ("uint8", "int8")],
    "le": [("int32", "float32"), ("bool", "bool")],
    "gt": [("float64", "int32"), ("uint64", "uint64")],
    "ge": [("int16", "int16"), ("float32", "float32")],
    "eq": [("int64", "uint64"), ("float64", "float64"), ("complex128", "complex128"), ("int32", "float64")],
    "ne": [("float32", "float32"), ("complex64", "complex64"), ("int8", "uint8")],
    "add1": [("int8",), ("int32",), ("uint64",), ("float32",), ("float16",), ("bool",), ("complex64",)],
    "mul2": [("float32",), ("int32",)],
    "mul2f": [("float32",), ("int64",)],
    "add_true": [("int32",), ("float32",), ("bool",)],
    "pow2": [("int32",), ("float32",), ("float64",)],
    "pow_m1": [("int64",), ("float64",)],
    "pow_half": [("int64",), ("float32",)],
    "fdiv2": [("float32",), ("int32",)],
    "mod3": [("int32",), ("float64",)],
    "mod_neg3": [("int64",), ("float32",)],
    "div_by_lit": [("int32",), ("float32",)],
    "poly3": [("int32",), ("float64",), ("float32",)],
    "horner": [("float64",), ("float32",)],
    "mixed": [("int32", "int32"), ("float64", "int64")],
    "avg": [("int64", "int64"), ("float32", "float32")],
    "sq_diff": [("float64", "float64"), ("int32", "int32")],
    "clamp_bits": [("int64",), ("uint32",)],
    "sign_bit": [("int64",)],
    "lerp": [("float32", "float32", "float32"), ("float64", "float64", "float64")],
    "chain3": [("int32", "int32", "int32"), ("float64", "int64", "uint64")],
    "chain_mixed": [("int32", "float32", "int64")],
    "chain4": [("int64", "int64", "int64", "int64")],
    "big_literal": [("int64",)],
    "hex_literal": [("int32",)],
    "float_lit": [("float32",), ("float64",)],
    "int_to_float_mix": [("int32", "float32"), ("int16", "float32")],
    "f32_keep": [("float32", "float32")],
}
