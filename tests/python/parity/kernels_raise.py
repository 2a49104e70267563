"""raise and assert without debug: numba-cuda's raising thread returns at the raise (its status is dropped),
so the elements it would have written keep their values while every other thread writes."""
import numpy as np
from numba import cuda

from .cases import case

N = 256


class OutOfRange(Exception):
    pass


@cuda.jit(device=True)
def check_positive(v):
    if v < 0:
        raise OutOfRange("negative", 1)
    return v * 2


def raise_stops_the_thread(x, out):
    i = cuda.grid(1)
    if i % 5 == 3:
        raise ValueError("skipped")
    if i < x.size:
        out[i] = check_positive(x[i])


case(raise_stops_the_thread, lambda: [np.arange(N, dtype=np.int64) - 20, np.full(N, 7, np.int64)], grid=4,
     block=64, outs=[1])


def assert_stops_the_thread(x, out):
    i = cuda.grid(1)
    if i < x.size:
        assert x[i] % 3 != 0, "multiple of three"
        out[i] = x[i] + 1.5


case(assert_stops_the_thread, lambda: [np.arange(N, dtype=np.float64), np.zeros(N)], grid=4, block=64,
     outs=[1])
