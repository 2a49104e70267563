"""Tuples of scalars as values (build, index, unpack, return) and complex arithmetic."""


def make_pair(a, b):
    return a, b

def swap(a, b):
    return b, a

def tuple_index(a, b):
    t = (a, b, a + b)
    return t[2] - t[-1] + t[0]

def tuple_len(a):
    t = (a, a, a)
    return len(t) * a

def divmod_sum(a, b):
    q, r = divmod(a, b)
    return q + r

def minmax(a, b):
    return min(a, b), max(a, b)

def tuple_eq(a, b):
    return (a, b) == (b, a)

def nested_tuple(a, b):
    t = ((a, b), a)
    (x, y), z = t
    return x + y + z

def c_mul(a, b):
    return a * b

def c_div(a, b):
    return a / b

def c_parts(z):
    return z.real * 2 + z.imag

def c_conj(z):
    return z.conjugate()

def c_abs(z):
    return abs(z)

def c_build(x, y):
    z = complex(x, y)
    return z * z

def c_lit(x):
    return x * 1j + 2

def c_eq(a, b):
    return a == b

SIGS = {
    "make_pair": [("int32", "float32"), ("float64", "float64")],
    "swap": [("int64", "bool")],
    "tuple_index": [("int32", "int32"), ("float64", "float64")],
    "tuple_len": [("int32",)],
    "divmod_sum": [("int64", "int64"), ("float64", "float64")],
    "minmax": [("int32", "int32"), ("float32", "float32")],
    "tuple_eq": [("int32", "int32")],
    "nested_tuple": [("int64", "int64")],
    "c_mul": [("complex64", "complex64"), ("complex128", "float64")],
    "c_div": [("complex128", "complex128"), ("complex64", "complex64")],
    "c_parts": [("complex64",), ("complex128",)],
    "c_conj": [("complex128",)],
    "c_abs": [("complex128",), ("complex64",)],
    "c_build": [("float32", "float32"), ("float64", "float64")],
    "c_lit": [("float64",)],
    "c_eq": [("complex128", "complex128")],
}
