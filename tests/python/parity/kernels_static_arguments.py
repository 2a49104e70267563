"""Device functions given a type, an atomic, another device function and a constant as arguments (numba-cuda's
test_atomics helpers), compared value for value with numba-cuda's."""
import numpy as np
from numba import cuda, float64, uint32

from .cases import case, rng


@cuda.jit(device=True)
def _cast_none(x):
    return x


@cuda.jit(device=True)
def _to_int(x):
    return int(x)


@cuda.jit(device=True)
def _shared_apply(ary, idx, value, dtype, n, op, cast):
    tid = cuda.threadIdx.x
    sm = cuda.shared.array(n, dtype)
    sm[tid] = ary[tid]
    cuda.syncthreads()
    op(sm, cast(idx[tid] % n), value)
    cuda.syncthreads()
    ary[tid] = sm[tid]


def static_add_u32(ary, idx):
    _shared_apply(ary, idx, 1, uint32, 32, cuda.atomic.add, _cast_none)


case(static_add_u32, lambda: [np.zeros(32, np.uint32), rng().integers(0, 64, 32)], grid=1, block=32, outs=[0])


def static_max_f64(ary, idx):
    tid = cuda.threadIdx.x
    _shared_apply(ary, idx, idx[tid] * 0.5, float64, 32, cuda.atomic.max, _to_int)


case(static_max_f64, lambda: [rng().random(32), rng(3).uniform(0, 64, 32)], grid=1, block=32, outs=[0])
