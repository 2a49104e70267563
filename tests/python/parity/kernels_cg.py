"""Cooperative groups: kernels that synchronise the whole grid with cuda.cg.this_grid().sync(), launched
cooperatively by both compilers. Grids stay small (8 blocks) so every block is resident on any GPU."""
import numpy as np
from numba import cuda

from .cases import case, rng

N = 1024


def grid_two_phase(x, tmp, out, total):
    # Phase 1 writes tmp; after the grid barrier every thread reads an element another block wrote.
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    if i < x.size:
        tmp[i] = x[i] * 2.0
    g.sync()
    if i < x.size:
        out[i] = tmp[x.size - 1 - i] - tmp[i]
    g.sync()
    if i == 0:
        s = 0.0
        for k in range(tmp.size):
            s += tmp[k]
        total[0] = s


case(grid_two_phase, lambda: [rng().random(N), np.zeros(N), np.zeros(N), np.zeros(1)], grid=8, block=128,
     outs=[1, 2, 3])


def sequential_rows(M):
    # numba-cuda's documentation example: rows written one after the other by the whole grid.
    col = cuda.grid(1)
    g = cuda.cg.this_grid()
    rows = M.shape[0]
    cols = M.shape[1]
    for row in range(1, rows):
        opposite = cols - col - 1
        M[row, col] = M[row - 1, opposite] + 1
        g.sync()


case(sequential_rows, lambda: [np.zeros((64, 256), np.int32)], sig="void(int32[:, ::1])", grid=8, block=32)


def grid_sync_status(out):
    # sync() returns 0 (cudaSuccess) in numba-cuda; chained on this_grid() and repeated in a loop.
    i = cuda.grid(1)
    acc = 0
    for _ in range(3):
        acc += cuda.cg.this_grid().sync()
    out[i] = acc + i


case(grid_sync_status, lambda: [np.full(256, -1, np.int32)], grid=4, block=64)


@cuda.jit(device=True)
def publish_then_read(g, buf, i, v):
    buf[i] = v
    g.sync()
    return buf[buf.size - 1 - i]


def grid_sync_in_device_function(x, buf, out):
    # The grid group passed to a device function, which waits at the barrier.
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    out[i] = publish_then_read(g, buf, i, x[i] + 1)


case(grid_sync_in_device_function, lambda: [np.arange(512, dtype=np.int64), np.zeros(512, np.int64),
                                             np.zeros(512, np.int64)], grid=4, block=128, outs=[1, 2])
