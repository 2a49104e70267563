"""The families of numba-cuda's kernel language cubridge compiles since the peer suite (issue 21): atomic
nanmax/nanmin, atomics and indexing through a tuple variable, .real/.imag of complex arrays, int.bit_count,
math.frexp/modf/remainder/nextafter and complex powers, compared value for value with numba-cuda's."""
import math

import numpy as np
from numba import cuda

from .cases import case, rng

N = 64


def _with_nans(dtype):
    x = rng().uniform(-100, 100, N).astype(dtype)
    x[::7] = np.nan
    return x


def atomic_nan_extremes(res, ary):
    i = cuda.grid(1)
    if i < ary.size:
        cuda.atomic.nanmax(res, 0, ary[i])
        cuda.atomic.nanmin(res, 1, ary[i])


case(atomic_nan_extremes, lambda: [np.array([np.nan, np.nan]), _with_nans(np.float64)], grid=1, block=N, outs=[0])
case(atomic_nan_extremes, lambda: [np.array([np.nan, 5.0], np.float32), _with_nans(np.float32)], grid=1, block=N,
     outs=[0], sig="void(float32[::1], float32[::1])")


def atomic_nan_extremes_int(res, ary):
    i = cuda.grid(1)
    if i < ary.size:
        cuda.atomic.nanmax(res, 0, ary[i])
        cuda.atomic.nanmin(res, 1, ary[i])


case(atomic_nan_extremes_int, lambda: [np.array([0, 0], np.int32), rng().integers(-1000, 1000, N).astype(np.int32)],
     grid=1, block=N, outs=[0])


def atomic_tuple_index(ary):
    at = (cuda.threadIdx.x, cuda.threadIdx.y)
    cuda.atomic.add(ary, at, 3)
    cuda.atomic.max(ary, (at[0], at[1]), 2)


case(atomic_tuple_index, lambda: [rng().integers(0, 10, (4, 8)).astype(np.uint32)], grid=1, block=(4, 8))


def atomic_on_components(values):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(values.real, i, 1)
        cuda.atomic.add(values.imag, i, 2)


case(atomic_on_components, lambda: [np.arange(N) + np.arange(N) * 1j], grid=1, block=N)


def bit_count(r, x):
    i = cuda.grid(1)
    if i < x.size:
        r[i] = x[i].bit_count()


case(bit_count, lambda: [np.zeros(N, np.int64), rng().integers(0, 2**63, N, dtype=np.uint64)], grid=1, block=N,
     outs=[0])


def math_pairs(x, y, mant, expo, frac, whole, rem, nxt):
    i = cuda.grid(1)
    if i < x.size:
        m, e = math.frexp(x[i])
        mant[i] = m
        expo[i] = e
        f, w = math.modf(x[i])
        frac[i] = f
        whole[i] = w
        rem[i] = math.remainder(x[i], y[i])
        nxt[i] = math.nextafter(x[i], y[i])


def _math_inputs(dtype):
    x = rng().uniform(-1e3, 1e3, N).astype(dtype)
    x[:4] = [0.0, -0.0, np.inf, np.nan]
    y = rng(5).uniform(-10, 10, N).astype(dtype)
    return [x, y, np.zeros(N, dtype), np.zeros(N, np.int32), np.zeros(N, dtype), np.zeros(N, dtype),
            np.zeros(N, dtype), np.zeros(N, dtype)]


case(math_pairs, lambda: _math_inputs(np.float64), grid=1, block=N, outs=[2, 3, 4, 5, 6, 7])


def complex_power(r, s, t, x, y):
    i = cuda.grid(1)
    if i < x.size:
        r[i] = x[i] ** y[i]
        s[i] = pow(x[i], y[i])
        t[i] = x[i]
        t[i] **= y[i]


def _power_inputs(dtype):
    x = (rng().uniform(-3, 3, N) + 1j * rng(2).uniform(-3, 3, N)).astype(dtype)
    y = (rng(3).uniform(-2, 2, N) + 1j * rng(4).uniform(-2, 2, N)).astype(dtype)
    x[:4] = [0, 0, 2 + 1j, -1]
    y[:4] = [0, 1 + 1j, 2, 0.5j]
    return [np.zeros(N, dtype), np.zeros(N, dtype), np.zeros(N, dtype), x, y]


case(complex_power, lambda: _power_inputs(np.complex128), grid=1, block=N, outs=[0, 1, 2], rtol=1e-13)
case(complex_power, lambda: _power_inputs(np.complex64), grid=1, block=N, outs=[0, 1, 2], rtol=1e-5)
