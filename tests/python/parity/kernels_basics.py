"""Baseline kernels both compilers already agreed on before the parity work: they keep the harness honest."""
import math

import numpy as np
from numba import cuda

from .cases import case, rng

N = 256


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


case(saxpy, lambda: [np.float32(2.5), rng().random(N, np.float32), rng(7).random(N, np.float32),
                     np.zeros(N, np.float32)], grid=N // 64, block=64, outs=[3])


def math_mix(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = math.sin(x[i]) * math.exp(-abs(x[i])) + math.sqrt(abs(x[i]))


case(math_mix, lambda: [rng().uniform(-3, 3, N), np.zeros(N)], grid=N // 64, block=64, outs=[1],
     rtol=1e-15)
