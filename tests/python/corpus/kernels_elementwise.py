"""Kernel corpus, part 1: elementwise kernels over 1-d, 2-d and 3-d arrays (C, F and strided layouts,
negative indices, views, scalars of several types). Plain functions in cubridge's spelling of the CUDA
intrinsics; CASES (kernel_cases.py) pairs each with its signature, inputs and NumPy reference."""
import math

import numpy as np

import cubridge


def add_f32(a, b, out):
    i = cubridge.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] + b[i]


def saxpy(alpha, x, y, out):
    i = cubridge.grid(1)
    if i < x.size:
        out[i] = alpha * x[i] + y[i]


def scale_inplace(x, s):
    i = cubridge.grid(1)
    if i < len(x):
        x[i] *= s


def square_f64(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] * x[i]


def abs_diff_i32(a, b, out):
    i = cubridge.grid(1)
    if i < a.shape[0]:
        out[i] = abs(a[i] - b[i])


def clamp_f32(x, lo, hi, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        out[i] = min(max(x[i], lo), hi)


def sqrt_f32(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        out[i] = math.sqrt(x[i])


def exp_f64(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        out[i] = math.exp(x[i])


def relu(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        if x[i] > 0:
            out[i] = x[i]
        else:
            out[i] = 0.0


def horner(coef, x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        acc = 0.0
        for k in range(coef.shape[0]):
            acc = acc * x[i] + coef[k]
        out[i] = acc


def floordiv_mod_i64(a, b, q, r):
    i = cubridge.grid(1)
    if i < a.shape[0]:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


def cast_f32_to_i32(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        out[i] = int(x[i])


def positive_mask(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] > 0


def grid_stride_add(a, b, out):
    start = cubridge.grid(1)
    stride = cubridge.gridsize(1)
    for i in range(start, out.shape[0], stride):
        out[i] = a[i] + b[i]


def uint8_wrap(x):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        x[i] += 200


def half_add(a, b, out):
    i = cubridge.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] + b[i]


def complex_mul(a, b, out):
    i = cubridge.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] * b[i]


def reverse_copy(x, out):
    i = cubridge.grid(1)
    n = x.shape[0]
    if i < n:
        out[i] = x[n - 1 - i]


def negative_index_reverse(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        out[i] = x[-1 - i]


def broadcast_last(x, out):
    i = cubridge.grid(1)
    if i < out.shape[0]:
        out[i] = x[-1] + i


def strided_add(a, b, out):
    i = cubridge.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] + b[i]


def shifts_u32(x, left, right):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        left[i] = x[i] << 3
        right[i] = x[i] >> 2


def thread_ids(out):
    i = cubridge.grid(1)
    if i < out.shape[0]:
        out[i] = cubridge.threadIdx.x + 1000 * cubridge.blockIdx.x


def launch_dims(out):
    if cubridge.grid(1) == 0:
        out[0] = cubridge.blockDim.x
        out[1] = cubridge.gridDim.x
        out[2] = cubridge.warpsize


def attrs(x, out):
    if cubridge.grid(1) == 0:
        out[0] = x.size
        out[1] = x.ndim
        out[2] = x.shape[1]
        out[3] = x.strides[0]
        out[4] = x.itemsize
        out[5] = len(x)


def int_accumulate(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        acc = 0
        for k in range(i + 1):
            acc += x[k]
        out[i] = acc


def bump_last(x):
    if cubridge.grid(1) == 0:
        x[-1] += 1
        x[-2] -= 1


def unpack_shape(x, out):
    n, m = x.shape
    i = cubridge.grid(1)
    if i < n:
        s = 0.0
        for j in range(m):
            s += x[i, j]
        out[i] = s


def int32_index(x, out):
    i = cubridge.grid(1)
    k = cubridge.int32(i)
    if k < x.shape[0]:
        out[k] = x[k] * 2


def uint_index(x, out):
    i = cubridge.grid(1)
    k = cubridge.uint32(i)
    if k < x.shape[0]:
        out[k] = x[k] + 1


def add_2d(a, b, out):
    i, j = cubridge.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j] + b[i, j]


def transpose(x, out):
    i, j = cubridge.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        out[j, i] = x[i, j]


def scale_f_order(x, s):
    i, j = cubridge.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        x[i, j] = x[i, j] * s


def row_sums(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        s = 0.0
        for j in range(x.shape[1]):
            s += x[i, j]
        out[i] = s


def chained_index(x, out):
    i, j = cubridge.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        out[i][j] = x[i][j] * 10


def row_view(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        row = x[i]
        out[i] = row[0] + row[-1]


def explicit_2d_ids(out):
    i = cubridge.blockIdx.y * cubridge.blockDim.y + cubridge.threadIdx.y
    j = cubridge.blockIdx.x * cubridge.blockDim.x + cubridge.threadIdx.x
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = 100 * i + j


def fill_3d(out):
    i, j, k = cubridge.grid(3)
    if i < out.shape[0] and j < out.shape[1] and k < out.shape[2]:
        out[i, j, k] = 100 * i + 10 * j + k


def gridsize_2d(out):
    x, y = cubridge.grid(2)
    sx, sy = cubridge.gridsize(2)
    for i in range(x, out.shape[0], sx):
        for j in range(y, out.shape[1], sy):
            out[i, j] = i - j


def double_it(x, i):
    return x[i] * 2


def calls_device_function(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        out[i] = double_it(x, i) + 1


def local_scratch(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        tmp = cubridge.local.array(4, cubridge.float32)
        for k in range(4):
            tmp[k] = x[i] + k
        out[i] = tmp[3] - tmp[0] + tmp[1]


def bit_ops_u32(x, pop, lead, first, rev):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        pop[i] = cubridge.popc(x[i])
        lead[i] = cubridge.clz(x[i])
        first[i] = cubridge.ffs(x[i])
        rev[i] = cubridge.brev(x[i])


def bit_ops_i64(x, pop, lead, first):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        pop[i] = cubridge.popc(x[i])
        lead[i] = cubridge.clz(x[i])
        first[i] = cubridge.ffs(x[i])


def fma_cbrt_selp(a, b, c, fused, root, larger):
    i = cubridge.grid(1)
    if i < a.shape[0]:
        fused[i] = cubridge.fma(a[i], b[i], c[i])
        root[i] = cubridge.cbrt(a[i])
        larger[i] = cubridge.selp(a[i] > b[i], a[i], b[i])


# Module-level NumPy arrays: frozen into the code as constant memory (numba-cuda's rule for global arrays),
# read directly or through const.array_like.
STENCIL_WEIGHTS = np.array([0.25, 0.5, 0.25], dtype=np.float32)
LOOKUP = np.arange(12, dtype=np.int64).reshape(3, 4) * 7 - 20


def const_stencil(x, out):
    w = cubridge.const.array_like(STENCIL_WEIGHTS)
    i = cubridge.grid(1)
    if 0 < i < x.shape[0] - 1:
        out[i] = w[0] * x[i - 1] + w[1] * x[i] + w[2] * x[i + 1]


def const_lookup(idx, out):
    i = cubridge.grid(1)
    if i < idx.shape[0]:
        out[i] = LOOKUP[idx[i] % 3, i % LOOKUP.shape[1]]


def tuple_of_views(x, out):
    a, b = x[1:], x[:-1]
    t = (a, (b, 2.0))
    i = cubridge.grid(1)
    if i < a.shape[0]:
        out[i] = (t[0][i] - t[1][0][i]) * t[1][1]


def pick_by_flag(x, y, out, flag):
    a, b = (x, y) if flag else (y, x)
    i = cubridge.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] - 2 * b[i]
