"""for loops as Python writes them (issue 12, item 7): tuple literals and module tuples, arrays (1-d
elements, rows of 2-d arrays as views, rows of strided and F-ordered arrays), enumerate() with a start,
zip() of arrays, ranges and tuples, nested loops with break/continue/else, empty iterables, and
homogeneous tuples indexed by a run-time integer. Each thread writes only its own outputs."""
import numpy as np
from numba import cuda

from .cases import case, rng

N = 96
WEIGHTS = (0.25, -1.5, 2.0, 0.125)
OFFSETS = (3, 1, 4, 1, 5)


def tuple_literal_loop(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        s = 0.0
        for c in (0.5, 1.5, 2.5):
            s = s * c + x[i]
        out[i] = s


case(tuple_literal_loop, lambda: [rng().random(N), np.zeros(N)], grid=N // 32, block=32, outs=[1])


def module_tuple_stencil(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        s = 0.0
        for k, w in enumerate(WEIGHTS, -1):
            j = i + k
            if 0 <= j < x.shape[0]:
                s += w * x[j]
        for o in OFFSETS:
            s += o
        out[i] = s + len(WEIGHTS)


case(module_tuple_stencil, lambda: [rng(2).random(N, np.float32), np.zeros(N, np.float32)], grid=N // 32, block=32,
     outs=[1])


def row_sums(m, out):
    i = cuda.grid(1)
    if i < m.shape[0]:
        s = 0.0
        for v in m[i]:
            s = s * 0.5 + v
        out[i] = s


case(row_sums, lambda: [rng(3).random((N, 7)), np.zeros(N)], grid=N // 32, block=32, outs=[1])
case(row_sums, lambda: [np.asfortranarray(rng(4).random((N, 5))), np.zeros(N)], grid=N // 32,
     block=32, outs=[1])


def column_through_rows(m, out):
    # Each thread walks every row (a view) and reads its own column.
    j = cuda.grid(1)
    if j < m.shape[1]:
        s = 0
        for r, row in enumerate(m):
            s += (r + 1) * row[j]
        out[j] = s


case(column_through_rows, lambda: [rng(5).integers(-50, 50, (9, N)), np.zeros(N, np.int64)], grid=N // 32, block=32,
     outs=[1])
case(column_through_rows, lambda: [np.asfortranarray(rng(6).integers(-50, 50, (9, N))), np.zeros(N, np.int64)],
     grid=N // 32, block=32, outs=[1])


def strided_views(x, m, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        s = 0.0
        for v in x[i::7]:
            s += v
        for row in m[::-2, 1::3]:
            s = s * 0.75 + row[i % row.shape[0]]
        for v in x[x.shape[0]:]:
            s += 1000.0  # an empty view: never runs
        out[i] = s


case(strided_views, lambda: [rng(7).random(N), rng(8).random((11, 10)), np.zeros(32)], grid=1, block=32, outs=[2])


def zip_dot(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        s = 0.0
        for x, y in zip(a[i], b[i, ::-1]):
            s += x * y
        out[i] = s


case(zip_dot, lambda: [rng(9).random((N, 6), np.float32), np.asfortranarray(rng(10).random((N, 8), np.float32)),
                       np.zeros(N, np.float32)], grid=N // 32, block=32, outs=[2])


def zip_mixed(x, out, n):
    i = cuda.grid(1)
    if i < out.shape[0]:
        s = 0
        for v, k, t in zip(x, range(i, i + n), (7, -8, 9, 10, 11)):
            s = s * 3 + v * k + t
        for (w,) in zip(OFFSETS):
            s += w
        out[i] = s


case(zip_mixed, lambda: [rng(11).integers(0, 9, 4).astype(np.int32), np.zeros(N, np.int64), np.int64(6)],
     grid=N // 32, block=32, outs=[1])


def enumerate_range_start(out, n):
    i = cuda.grid(1)
    if i < out.shape[0]:
        s = 0
        for k, v in enumerate(range(i % 5, n), 10):
            s += k * v
        for k, (a, b) in enumerate(zip(range(3), (4, 5, 6)), i):
            s += k * a * b
        out[i] = s


case(enumerate_range_start, lambda: [np.zeros(N, np.int64), np.int32(9)], grid=N // 32, block=32, outs=[0])


def nested_break_continue_else(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        s = 0
        for k, v in enumerate(x[i]):
            for t in (1, 2, 3, 4):
                if t == 2:
                    continue
                if t * v > 40:
                    break
                s += t * v
            else:
                s += 1000
            if s > 5000:
                break
        else:
            s += 100000
        out[i] = s


case(nested_break_continue_else, lambda: [rng(12).integers(0, 20, (N, 6)), np.zeros(N, np.int64)], grid=N // 32,
     block=32, outs=[1])


def tuple_runtime_index(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        t = (1.5, -2.0, 3.25, 0.5)
        k = i % 4
        out[i] = x[i] * t[k] + t[-1 - k] + WEIGHTS[np.int32(k)] + OFFSETS[np.uint8(i % 5)]


# One ulp, legitimately: numba-cuda reads a tuple at a run-time index through a switch, so x[i] * t[k] and
# the add after it sit in different blocks, which the backend cannot fuse into an fma; cubridge selects the
# item in one block and the multiply-add is contracted, as numba-cuda's own is for a constant index.
case(tuple_runtime_index, lambda: [rng(13).random(N), np.zeros(N)], grid=N // 32, block=32, outs=[1], rtol=2e-16)


def loop_over_tuple_of_arrays(a, b, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        s = 0.0
        for arr in (a, b):
            s = s * 2.0 + arr[i % arr.shape[0]]
        out[i] = s


case(loop_over_tuple_of_arrays, lambda: [rng(14).random(17), rng(15).random(23), np.zeros(N)], grid=N // 32,
     block=32, outs=[2])


def loops_with_own_counters(result, v):
    # test_ssa's issue2194: the counters of range(uint32) and range(uint32, int) are two variables.
    s = np.uint32(3)
    for i in range(s):
        v[i] = i * 2
    for i in range(s, 5):
        v[i] = -i
    result[0] = v[0] + v[4]


case(loops_with_own_counters, lambda: [np.zeros(1), np.zeros(5, np.int64)], grid=1, block=1)
