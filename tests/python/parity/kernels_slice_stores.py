"""Slice stores (issue 12, item 5): a number or a tuple stored into a view (out[i, :] = 0.0,
a[i, ::2] = v, out[i, 1:4] = (1.0, 2.0, 3.0)) on C, F-ordered and strided views, empty slices, and a
tuple whose length does not match (numba raises ValueError; outside debug mode the thread ends there).

Array sources (a[1:4] = b[0:3], a[i] = row, x[:, j] = y[:, j], broadcasting, overlapping rows, dtype
conversion, shape mismatches) need numba-cuda's runtime (NRT): numba-cuda refuses them with "NRT required
but not enabled" unless NUMBA_CUDA_ENABLE_NRT is set, because it copies an overlapping source into an NRT
allocation. They are listed in NRT_CASES, outside the shared harness, and run against numba-cuda with its
NRT enabled by numba_compat/test_nrt_parity_gpu.py. Each thread writes only its own row or column."""
import numpy as np
from numba import cuda

from .cases import NRT_CASES, case, nrt_case, rng  # noqa: F401 (NRT_CASES: read by test_jit_slice_stores)

N = 64


def zero_rows(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, :] = 0.0
        out[i, 0] = i


case(zero_rows, lambda: [rng().integers(1, 9, (N, 5)).astype(np.int32)], grid=N // 32, block=32)
case(zero_rows, lambda: [np.asfortranarray(rng(1).random((N, 6), np.float32))], grid=N // 32, block=32)


def every_other(a, v):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i, ::2] = v
        a[i, 1::2] = i
        a[i, ::-3] = -v


case(every_other, lambda: [rng(2).random((N, 7)), np.float64(0.1)], grid=N // 32, block=32, outs=[0])
case(every_other, lambda: [np.asfortranarray(np.zeros((N, 8), np.int16)), np.int32(5)], grid=N // 32, block=32,
     outs=[0])


def fill_columns(x):
    j = cuda.grid(1)
    if j < x.shape[1]:
        x[:, j] = j * 0.5
        x[1::2, j] = -1
        x[x.shape[0]:, j] = 99.0  # empty
        x[3:1, j] = 99.0  # empty


case(fill_columns, lambda: [np.asfortranarray(np.zeros((9, N), np.float32))], grid=N // 32, block=32)
case(fill_columns, lambda: [np.zeros((9, N))], grid=N // 32, block=32)


def fill_strided_view(m):
    i = cuda.grid(1)
    if i < m.shape[0]:
        v = m[:, ::2]
        v[i, 1:] = 7
        m[i, ::-1][:2] = 3


case(fill_strided_view, lambda: [rng(3).integers(0, 5, (N, 9))], grid=N // 32, block=32)


def from_tuples(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 1:4] = (1.5, 2.5, 3.5)
        out[i, ::-2] = (i, -i, 2 * i)


case(from_tuples, lambda: [np.zeros((N, 6))], grid=N // 32, block=32)
case(from_tuples, lambda: [np.asfortranarray(np.zeros((N, 6), np.int32))], grid=N // 32, block=32)


def tuple_length_mismatch(out, ks):
    # out[i, :k] has k items; a tuple of 3 fits only k == 3: other threads raise ValueError and stop there.
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 5] = 1
        out[i, :ks[i]] = (7, 8, 9)
        out[i, 6] = 2


case(tuple_length_mismatch, lambda: [np.zeros((N, 8), np.int64), (np.arange(N) % 6).astype(np.int64)],
     grid=N // 32, block=32, outs=[0])


# ---- array sources: run against numba-cuda with NRT enabled (numba_compat/test_nrt_parity_gpu.py) ----



def copy_windows(a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i, 1:4] = b[i, 0:3]
        a[i, 5:] = b[i, ::-2][:a.shape[1] - 5]


nrt_case(copy_windows, lambda: [np.zeros((N, 8)), rng(4).random((N, 9))], grid=N // 32, block=32, outs=[0])
nrt_case(copy_windows, lambda: [np.asfortranarray(np.zeros((N, 8), np.float32)), rng(5).random((N, 9))],
         grid=N // 32, block=32, outs=[0])


def copy_rows(a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = b[i]
        a[i, :] = b[i, ::-1]
        a[i][::3] = b[(i + 1) % b.shape[0]][::3]


nrt_case(copy_rows, lambda: [np.zeros((N, 7), np.int32), rng(6).integers(-99, 99, (N, 7)).astype(np.int32)],
         grid=N // 32, block=32, outs=[0])


def copy_columns(x, y):
    j = cuda.grid(1)
    if j < x.shape[1]:
        x[:, j] = y[:, j]
        x[::2, j] = y[::-2, (j + 3) % y.shape[1]]


nrt_case(copy_columns, lambda: [np.asfortranarray(np.zeros((10, N))), rng(7).random((10, N))], grid=N // 32,
         block=32, outs=[0])
nrt_case(copy_columns, lambda: [np.zeros((10, N)), np.asfortranarray(rng(8).random((10, N)))], grid=N // 32,
         block=32, outs=[0])


def broadcast_sources(m, t, r, c):
    i = cuda.grid(1)
    if i < m.shape[0]:
        m[i] = r
        m[i, ::2] = c[i]
        t[i] = r
        t[i, 1:, :] = c[i:i + 1]


nrt_case(broadcast_sources, lambda: [np.zeros((N, 6)), np.zeros((N, 3, 6), np.float32), rng(9).random(6),
                                     rng(10).random((N, 1))], grid=N // 32, block=32, outs=[0, 1])


def overlapping_rows(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        if i % 4 == 0:
            a[i, 1:] = a[i, :-1]
        elif i % 4 == 1:
            a[i, :-1] = a[i, 1:]
        elif i % 4 == 2:
            a[i, :] = a[i, ::-1]
        else:
            a[i, ::2] = a[i, :5]


nrt_case(overlapping_rows, lambda: [rng(11).integers(0, 1000, (N, 10))], grid=N // 32, block=32)
nrt_case(overlapping_rows, lambda: [np.asfortranarray(rng(12).integers(0, 1000, (N, 10)))], grid=N // 32, block=32)


def converting_stores(a, b, flags):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i, :] = b[i, :]
        flags[i, :] = b[i, :]


nrt_case(converting_stores, lambda: [np.zeros((N, 5), np.int32), rng(13).uniform(-9, 9, (N, 5)).round(1),
                                     np.zeros((N, 5), np.bool_)], grid=N // 32, block=32, outs=[0, 2])


def mismatched_shapes(a, b, ks):
    # A source of k items fits a[i, 3:5] when k is 2, or 1 (broadcast); other threads raise ValueError
    # and stop there. A source of one item broadcasts to any length, 0 included.
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i, 6] = 1
        a[i, 3:5] = b[i, :ks[i]]
        a[i, 7] = 2
        a[i, :ks[i]] = b[i, :1]
        a[i, 5] = 3


nrt_case(mismatched_shapes, lambda: [np.zeros((N, 8), np.int64), rng(14).integers(1, 9, (N, 4)),
                                     (np.arange(N) % 5).astype(np.int64)], grid=N // 32, block=32, outs=[0])


def empty_sources(a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i, 3:3] = b[i, 0:0]
        a[i, :0] = b[i, 5:2]
        a[i, 0] = b[i, 0:0].shape[0] + 1


nrt_case(empty_sources, lambda: [np.zeros((N, 4)), rng(15).random((N, 6))], grid=N // 32, block=32, outs=[0])
