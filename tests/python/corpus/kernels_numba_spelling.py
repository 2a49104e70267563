"""Kernels written with numba-cuda's spelling (`from numba import cuda`), which cubridge compiles the same
way as its own; imported only where numba-cuda is installed."""
from numba import cuda, int32


def saxpy_numba(a, x, y, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = a * x[i] + y[i]


def block_max(x, out):
    s = cuda.shared.array(128, int32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    s[t] = x[i] if i < x.shape[0] else 0
    cuda.syncthreads()
    if t == 0:
        m = s[0]
        for k in range(1, cuda.blockDim.x):
            m = max(m, s[k])
        cuda.atomic.max(out, 0, m)
