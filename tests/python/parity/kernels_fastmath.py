"""fastmath=True kernels: float32 math that numba-cuda replaces by libdevice's __nv_fast_* functions (cos,
sin, tan, exp, log, log2, log10, pow), math.tanh as tanh.approx.f32, float32 division as __nv_fast_fdividef
(dividing by zero gives inf, no exception), and float64 math (not replaced). Both compilers call the same
functions with the same NVVM flags, so outputs compare bit for bit."""
import math

import numpy as np
from numba import cuda

from .cases import case, rng

EDGES32 = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.75, 1e-40, 3e38, np.inf, -np.inf, np.nan, 100.0, 1e-3]


def float32_fast(x, y, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = x[i]
        b = y[i]
        out[0, i] = math.cos(a)
        out[1, i] = math.sin(a)
        out[2, i] = math.tan(a)
        out[3, i] = math.exp(a)
        out[4, i] = math.log(a)
        out[5, i] = math.log2(a)
        out[6, i] = math.log10(a)
        out[7, i] = math.pow(a, b)
        out[8, i] = math.tanh(a)
        out[9, i] = a / b
        out[10, i] = math.sqrt(a)


def _floats32():
    x = rng(3).uniform(-10, 10, 256).astype(np.float32)
    x[: len(EDGES32)] = np.array(EDGES32, np.float32)
    y = np.roll(x, 3)
    y[20] = 0.0
    return [x, y, np.zeros((11, 256), np.float32)]


case(float32_fast, _floats32, grid=4, block=64, outs=[2], options={"fastmath": True})


def float64_not_replaced(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = x[i]
        out[0, i] = math.cos(a)
        out[1, i] = math.log(a)
        out[2, i] = math.tanh(a)


def _floats64():
    x = rng(4).uniform(-10, 10, 256)
    x[: len(EDGES32)] = EDGES32
    return [x, np.zeros((3, 256))]


case(float64_not_replaced, _floats64, grid=4, block=64, outs=[1], options={"fastmath": True})
