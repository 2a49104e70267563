"""Atomics indexed by a tuple whose items are not all integers (numba-cuda's test_atomics *_3 cases): the
2-d helper's index (tx, uint64(ty)) unifies with (tx % 4, uint64(ty) % 8) to (int64, float64), and numba-cuda
casts each item to intp before the wraparound; compared value for value with numba-cuda's."""
import numpy as np
from numba import cuda, float64, uint32, uint64

from .cases import case, rng


@cuda.jit(device=True)
def _to_uint64(x):
    return uint64(x)


@cuda.jit(device=True)
def _apply_2d_shared(ary, value, dtype, shape, op, cast_y, wrap):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    sm = cuda.shared.array(shape, dtype)
    sm[tx, ty] = ary[tx, ty]
    cuda.syncthreads()
    at = (tx, cast_y(ty))
    if wrap:
        at = (at[0] % shape[0], at[1] % shape[1])
    op(sm, at, value)
    cuda.syncthreads()
    ary[tx, ty] = sm[tx, ty]


def atomic_add_u32_float_index(ary):
    _apply_2d_shared(ary, 1, uint32, (4, 8), cuda.atomic.add, _to_uint64, False)


def atomic_sub_f64_float_index(ary):
    _apply_2d_shared(ary, 1.5, float64, (4, 8), cuda.atomic.sub, _to_uint64, False)


def atomic_max_global_float_index(ary, vals):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    at = (tx, uint64(ty))
    if ty > 100:  # never taken, but types `at` as (int64, float64), as numba unifies it
        at = (at[0] % 4, at[1] % 8)
    cuda.atomic.max(ary, at, vals[tx, ty])


def atomic_add_negative_float_index(ary):
    # -1.0 casts to intp -1 and wraps to the last column, as numba-cuda's wraparound does.
    tx = cuda.threadIdx.x
    cuda.atomic.add(ary, (tx, -1.0), 1)


case(atomic_add_u32_float_index, lambda: [rng().integers(0, 32, (4, 8)).astype(np.uint32)], grid=1, block=(4, 8))
case(atomic_sub_f64_float_index, lambda: [rng().random((4, 8))], grid=1, block=(4, 8))
case(atomic_max_global_float_index, lambda: [rng().random((4, 8)), rng(5).random((4, 8))], grid=1, block=(4, 8),
     outs=[0])
case(atomic_add_negative_float_index, lambda: [np.zeros((4, 8), np.int32)], grid=1, block=4)
