"""Calls of other functions of the module (compiled as device functions), module constants, float16."""
import math

SCALE = 3
OFFSET = 0.5
PAIR = (2, 3)


def sq(x):
    return x * x

def dist2(x, y):
    return sq(x) + sq(y)

def dist(x, y):
    return math.sqrt(dist2(x, y))

def scaled(x):
    return x * SCALE + OFFSET

def use_pair(x):
    a, b = PAIR
    return x * a + b

def checked(x):
    assert x != 0
    return 100 // x

def call_checked(x):
    return checked(x) + 1

def relu(x):
    return x if x > 0 else 0.0

def layer(a, b):
    return relu(a) + relu(b) * 2

def specialise(a, b):
    return sq(a) + sq(b)

def h_fma(a, b, c):
    return a * b + c

def h_mix(a, b):
    return a * b + 1

def h_cmp(a, b):
    return a < b

def h_neg_abs(a):
    return -abs(a)

SIGS = {
    "sq": [("int32",), ("float32",)],
    "dist2": [("float32", "float32")],
    "dist": [("float64", "float64"), ("float32", "float32")],
    "scaled": [("int32",), ("float32",)],
    "use_pair": [("int64",)],
    "checked": [("int64",)],
    "call_checked": [("int64",)],
    "relu": [("float32",), ("float64",)],
    "layer": [("float32", "float32")],
    "specialise": [("int32", "float64")],
    "h_fma": [("float16", "float16", "float16")],
    "h_mix": [("float16", "float16"), ("float16", "int8")],
    "h_cmp": [("float16", "float16")],
    "h_neg_abs": [("float16",)],
}
