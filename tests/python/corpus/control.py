"""Statements: if/elif/else, while, for-range with break/continue/else, returns on every path, unpacking,
augmented assignment, assert, conditional expressions and short-circuit and/or."""

def absval(x):
    if x < 0:
        return -x
    return x

def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    else:
        return 0

def classify(x):
    if x < 10:
        r = 0
    elif x < 100:
        r = 1
    elif x < 1000:
        r = 2
    else:
        r = 3
    return r

def sum_range(n):
    s = 0
    for i in range(n):
        s += i
    return s

def sum_range_f(n, x):
    s = 0.0
    for i in range(n):
        s += x
    return s

def sum_step(a, b, c):
    s = 0
    for i in range(a, b, c):
        s += i
    return s

def count_down(n):
    s = 0
    for i in range(n, 0, -1):
        s = s * 3 + i
    return s

def first_multiple(n, k):
    for i in range(1, n):
        if i % k == 0:
            break
    else:
        i = -1
    return i

def skip_odd(n):
    s = 0
    for i in range(n):
        if i % 2:
            continue
        s += i
    return s

def while_collatz(n):
    steps = 0
    while n != 1 and steps < 1000:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps

def while_else(n):
    i = 0
    while i < n:
        if i == 7:
            break
        i += 1
    else:
        i = 100
    return i

def nested_loops(n):
    s = 0
    for i in range(n):
        for j in range(i):
            if j > 5:
                break
            s += i * j
    return s

def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a

def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a

def isqrt(n):
    if n < 2:
        return n
    x = n
    y = (x + 1) // 2
    while y < x:
        x = y
        y = (x + n // x) // 2
    return x

def ternary(c, a, b):
    return a if c else b

def ternary_lit(c, x):
    return x if c else 1

def and_val(x, y):
    return x and y

def or_val(x, y):
    return x or y

def not_and(x, y):
    return not (x and y)

def short_circuit(x, y):
    return x != 0 and y / x > 1.0

def early_return(x):
    for i in range(10):
        if i * i > x:
            return i
    return -1

def ret_mixed(c, a, b):
    if c:
        return a
    return b

def ret_lit_float(c):
    if c:
        return 1
    return 2.5

def var_promote(c, x):
    r = 1
    if c:
        r = x
    return r

def accumulate(n, x):
    acc = x
    for i in range(n):
        acc = acc + 1
    return acc

def aug_ops(x):
    y = x
    y += 3
    y *= 2
    y -= 1
    y //= 2
    y %= 1000
    y <<= 1
    y >>= 1
    y |= 1
    y &= 0xFFFF
    y ^= 5
    return y

def aug_float(x):
    y = x
    y /= 3.0
    y **= 2
    return y

def unpack(a, b):
    x, y = a + b, a - b
    return x * y

def swap_sub(a, b):
    a, b = b, a
    return a - b

def asserts(x):
    assert x >= 0, "negative"
    return x * 2

def pass_stmt(x):
    if x > 0:
        pass
    else:
        x = -x
    return x

def docstring(x):
    """A docstring is ignored."""
    return x + 1

def chained_assign(x):
    a = b = x * 2
    return a + b

def while_true(x):
    i = 0
    while True:
        i += 1
        if i >= x:
            return i

def loop_var_after(n):
    i = -1
    for i in range(n):
        pass
    return i

SIGS = {
    "absval": [("int32",), ("float64",)],
    "sign": [("int64",), ("float32",)],
    "classify": [("int32",), ("float64",)],
    "sum_range": [("int32",), ("int64",), ("uint64",)],
    "sum_range_f": [("int32", "float32"), ("int64", "float64")],
    "sum_step": [("int64", "int64", "int64"), ("int32", "int32", "int32")],
    "count_down": [("int32",)],
    "first_multiple": [("int64", "int64")],
    "skip_odd": [("int32",)],
    "while_collatz": [("int64",)],
    "while_else": [("int32",)],
    "nested_loops": [("int32",)],
    "gcd": [("int64", "int64"), ("int32", "int32")],
    "fib": [("int32",)],
    "isqrt": [("int64",)],
    "ternary": [("bool", "int32", "uint32"), ("bool", "float32", "int16"), ("bool", "int64", "uint64"), ("bool", "bool", "int32")],
    "ternary_lit": [("bool", "int32"), ("bool", "float32"), ("bool", "uint64")],
    "and_val": [("int32", "float64"), ("int64", "uint64"), ("float32", "float32")],
    "or_val": [("bool", "int64"), ("int32", "float64")],
    "not_and": [("int32", "int32")],
    "short_circuit": [("int32", "float64")],
    "early_return": [("int64",)],
    "ret_mixed": [("bool", "int32", "float32"), ("bool", "int32", "uint32")],
    "ret_lit_float": [("bool",)],
    "var_promote": [("bool", "float32"), ("bool", "int32")],
    "accumulate": [("int64", "int32"), ("int64", "float32")],
    "aug_ops": [("int64",), ("int32",)],
    "aug_float": [("float32",), ("float64",)],
    "unpack": [("int32", "int32"), ("float64", "float64")],
    "swap_sub": [("int64", "float64")],
    "asserts": [("int64",)],
    "pass_stmt": [("int32",)],
    "docstring": [("float32",)],
    "chained_assign": [("int32",)],
    "while_true": [("int64",)],
    "loop_var_after": [("int64",)],
}
