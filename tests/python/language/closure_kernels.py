"""Kernels with nested functions and *args (numba-cuda's test_make_function_to_jit_function and test_analysis
cases, written for cubridge), shared by test_jit_nested_functions.py (PTX on the CPU) and
test_jit_nested_functions_gpu.py (values against numba-cuda)."""
_global = 123


def consumer(func, *args):
    return func(*args)


def consumer2arg(func1, func2):
    return func2(func1)


def escape(out):
    def inner():
        return 10

    out[0] = consumer(inner)


def nested_escape(out):
    def inner():
        return 10

    def innerinner(x):
        return x()

    out[0] = consumer2arg(inner, innerinner)


def closure_in_escaper(out):
    def callinner():
        def inner():
            return 10

        return inner()

    out[0] = consumer(callinner)


def close_over_consts(out, x):
    y = 10

    def callinner(z):
        return y + z + _global

    out[0] = consumer(callinner, 6) + consumer(callinner, x)


def called_closure_reads_arguments(out, x):
    def inner(z):
        return z * x + 1

    out[0] = inner(3) + inner(x)


def grandchild_reads_outer_argument(out, a):
    def callinner():
        def inner():
            return 10 + a

        return inner()

    out[0] = callinner()


def defaults_and_keywords(out, a):
    t = 12

    def inner(a, b, c, mydefault1=123, mydefault2=456):
        z = 4
        return mydefault1 + mydefault2 + z + t + a + b + c

    out[0] = inner(1, 2, 5, 91, 53)
    out[1] = consumer(inner, 1, 2, 3, 73)
    out[2] = consumer(inner, 1, 2, 3)
    out[3] = inner(a, 2, 4, mydefault2=7)


def nonlocal_constant(res):
    x = 1000

    def closure():
        nonlocal x
        x = 0

    closure()
    if x == 0:
        res[0] = True
    else:
        res[0] = False


def nonlocal_argument(n, res):
    x = 1000

    def closure(t):
        nonlocal x
        x = t

    closure(n)
    if x == 0:
        res[0] = True
    else:
        res[0] = False


def star_call(out, a, b):
    t = (a, b)
    out[0] = consumer(_sub, *t)


def _sub(p, q):
    return p - q
