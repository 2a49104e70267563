"""How real code calls helpers (issue 12, item 3): keyword arguments and default values, helpers and
constants reached through a package of the project's own (helpers_pkg), helpers returning a value or
nothing, `x is None` on omitted arguments, device functions handed to kernel factories (closure variables,
tuples of functions, a second global name), and numba-cuda's decorator options on helpers and kernels."""
import math

import numpy as np
from numba import cuda

from . import helpers_pkg
from .cases import case, rng
from .helpers_pkg import sub

N = 256
GRID, BLOCK = N // 64, 64


def _two_inputs():
    return [rng().uniform(-2, 2, N).astype(np.float32), rng(7).uniform(-2, 2, N).astype(np.float32),
            np.zeros(N, np.float32)]


# ---- keyword arguments and default values ----

@cuda.jit(device=True)
def scaled(x, scale=2.0, offset=None):
    if offset is None:
        return x * scale
    return x * scale + offset


def keyword_and_default_arguments(x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = (scaled(x[i]) + scaled(x[i], offset=y[i]) + scaled(x[i], 0.5, y[i])
                  + scaled(offset=1.0, x=y[i], scale=3.0) + scaled(x[i], 1.5, None))


case(keyword_and_default_arguments, _two_inputs, grid=GRID, block=BLOCK, outs=[2])


@cuda.jit(device=True)
def weighted(x, w=(1.0, 0.5), bias=-1):
    return x * w[0] + w[1] + bias


def tuple_and_negative_defaults(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = weighted(x[i]) + weighted(x[i], (2.0, 1.0)) + weighted(x[i], bias=3)


case(tuple_and_negative_defaults, lambda: [rng().uniform(-2, 2, N), np.zeros(N)], grid=GRID, block=BLOCK,
     outs=[1])


# ---- helpers and constants reached through a package ----

def package_members(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        v = x[i]
        out[i] = (helpers_pkg.shift(v) + helpers_pkg.OFFSET + helpers_pkg.sub.clamp(v, -0.5, 0.5)
                  + sub.smooth(v) + sub.clamp(v, -2.0, 2.0) + helpers_pkg.WEIGHTS[1] * sub.LIMIT)


case(package_members, lambda: [rng().uniform(-3, 3, N), np.zeros(N)], grid=GRID, block=BLOCK, outs=[1],
     rtol=1e-15)


# ---- helpers that return a value, nothing, or return early ----

@cuda.jit(device=True)
def store(a, i, v):
    a[i] = v


@cuda.jit(device=True)
def bump_unless_negative(a, i):
    if a[i] < 0:
        return
    a[i] += 1.0


@cuda.jit(device=True)
def nothing_returned(a, i):
    a[i] = a[i] * 2.0
    return None


def helpers_returning_nothing(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        store(out, i, x[i])
        bump_unless_negative(out, i)
        nothing_returned(out, i)


case(helpers_returning_nothing, lambda: [rng().uniform(-2, 2, N).astype(np.float32), np.zeros(N, np.float32)],
     grid=GRID, block=BLOCK, outs=[1])


# ---- helpers returning a value or None: numba's Optional ----

@cuda.jit(device=True)
def positive_or_none(x):
    if x > 0:
        return x
    return None


@cuda.jit(device=True)
def half_if_even(n):
    if n % 2 == 0:
        return n // 2
    return None


def optional_results(x, n, out, halves):
    i = cuda.grid(1)
    if i < out.shape[0]:
        r = positive_or_none(x[i])
        if r is not None:
            out[i] = r * 2.0
        else:
            out[i] = -1.0
        h = half_if_even(n[i])
        if h is None:
            halves[i] = -n[i]
        else:
            halves[i] = h + 100
        picked = r if r is not None else x[i] * 0.5
        out[i] += picked


case(optional_results, lambda: [rng().uniform(-2, 2, N), np.arange(N, dtype=np.int64), np.zeros(N),
                                np.zeros(N, np.int64)], grid=GRID, block=BLOCK, outs=[2, 3])


def optional_used_as_value(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = positive_or_none(abs(x[i]) + 1.0) + 1.0  # never None here: numba converts Optional to float64


case(optional_used_as_value, lambda: [rng().uniform(-2, 2, N), np.zeros(N)], grid=GRID, block=BLOCK, outs=[1])


# ---- device functions under other names ----

@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit(device=True)
def negate(x):
    return -x


OPS = (square, negate)
twice = square  # a second global name for the same device function


def tuple_of_functions(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = OPS[0](x[i]) + OPS[1](x[i]) + twice(x[i])


case(tuple_of_functions, lambda: [rng().uniform(-2, 2, N), np.zeros(N)], grid=GRID, block=BLOCK, outs=[1])


def make_apply(op):
    def apply_op(x, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = op(x[i]) + 1.0
    return apply_op


apply_op = make_apply(negate)  # the closure variable `op` holds the device function
case(apply_op, lambda: [rng().uniform(-2, 2, N), np.zeros(N)], grid=GRID, block=BLOCK, outs=[1])


def make_combine(ops):
    def combine(x, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = ops[0](x[i]) - ops[1](x[i])
    return combine


combine = make_combine((square, negate))  # a closure tuple of device functions
case(combine, lambda: [rng().uniform(-2, 2, N), np.zeros(N)], grid=GRID, block=BLOCK, outs=[1])


# ---- numba-cuda's decorator options ----

@cuda.jit(device=True, forceinline=True)
def forced(x):
    return x * 3.0 + 1.0


@cuda.jit(device=True, inline="always")
def inlined(x):
    return math.sqrt(abs(x))


@cuda.jit(device=True, inline="never")
def not_forced(x):
    return x - 0.5


def decorated_helpers(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = forced(x[i]) + inlined(x[i]) * not_forced(x[i])


case(decorated_helpers, lambda: [rng().uniform(-2, 2, N), np.zeros(N)], grid=GRID, block=BLOCK, outs=[1],
     rtol=1e-15)


@cuda.jit(device=True, inline="always")
def clipped_sum(a, lo, hi):
    # inlined at the IR level (numba-cuda's inline='always'): loops, continue, early returns of a tuple
    s = 0.0
    for i in range(a.shape[0]):
        if a[i] < lo:
            continue
        if a[i] > hi:
            return -1.0, i
        s += a[i]
    return s, a.shape[0]


@cuda.jit(device=True, inline="always")
def doubled_count(n):
    return clipped_count(n) * 2


@cuda.jit(device=True, inline="always")
def clipped_count(n):
    if n > 100:
        return 100
    return n


def inlined_bodies(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        row = x[i]
        s, n = clipped_sum(row, -1.0, 1.5)
        t, m = clipped_sum(row, 0.0, 1.0)
        out[i, 0] = s
        out[i, 1] = t
        out[i, 2] = doubled_count(n + m)


case(inlined_bodies, lambda: [rng(3).uniform(-2, 2, (N, 8)), np.zeros((N, 3))], grid=GRID, block=BLOCK, outs=[1],
     rtol=1e-15)


def launch_bounded(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = x[i] * 2.0 + 1.0


case(launch_bounded, lambda: [rng().uniform(-2, 2, N), np.zeros(N)], grid=GRID, block=BLOCK, outs=[1],
     options={"launch_bounds": (64, 2), "lineinfo": True})


def fastmath_kernel(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = math.sqrt(abs(x[i])) / (x[i] * x[i] + 1.0)


case(fastmath_kernel, lambda: [rng().uniform(-2, 2, N).astype(np.float32), np.zeros(N, np.float32)],
     grid=GRID, block=BLOCK, outs=[1], options={"fastmath": True}, rtol=2e-6)


def is_of_values(flags, xs, out):
    # numba-cuda's generic_is (test_ssa's issue5623: `pred is True`): one type compares with ==, two types
    # are never the same object.
    i = cuda.grid(1)
    if i < xs.size:
        pred = flags[i] != 0
        x = xs[i]
        three, three_f = 3, 3.0
        out[i, 0] = pred is True
        out[i, 1] = pred is not False
        out[i, 2] = x is three
        out[i, 3] = x is three_f
        out[i, 4] = (x, 1) is (three, 1)


case(is_of_values, lambda: [rng().integers(0, 2, N).astype(np.int8), rng(2).integers(0, 5, N), np.zeros((N, 5), np.bool_)],
     grid=GRID, block=BLOCK, outs=[2])


def none_variables(xs, res):
    # test_analysis' single_if: z = None; y = z; `x == y` is False for a number x, `y == None` True.
    i = cuda.grid(1)
    if i < xs.size:
        z = None
        y = z
        res[i] = 1.0
        if xs[i] == y:
            res[i] = -1.0
        if y == None:  # noqa: E711
            res[i] += 100.0
        if xs[i] != y:
            res[i] += 10.0


case(none_variables, lambda: [rng().integers(-5, 5, N), np.zeros(N)], grid=GRID, block=BLOCK, outs=[1])


_PRUNE_LIMIT = 123


def pruned_branches(array, res):
    # test_analysis' semantic constants: a.ndim of an argument, a global, a single-definition local.
    i = cuda.grid(1)
    if i < res.size:
        c = 2
        if array.ndim == c:
            if array.shape[1] == 2:
                res[i] = 1.0
            else:
                res[i] = array[i % array.shape[0], 0]
        else:
            res[i] = 10.0
        if _PRUNE_LIMIT > 100:
            res[i] += 0.5


case(pruned_branches, lambda: [rng().random((8, 3)), np.zeros(N)], grid=GRID, block=BLOCK, outs=[1])
