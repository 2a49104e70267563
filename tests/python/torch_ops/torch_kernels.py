"""Kernels and op names the cubridge.torch tests share (test_torch_ops.py without a GPU, test_torch_ops_gpu.py with
one): an elementwise add, a row scaling that mutates its input, and a unique torch.library name per op."""
import itertools

import cubridge

_count = itertools.count()


def unique(stem: str, namespace: str = "cubridge_test") -> str:
    """A fresh qualified op name (torch.library refuses a name defined twice in one process)."""
    return f"{namespace}::{stem}_{next(_count)}"


@cubridge.jit("void(const float32[::1], const float32[::1], float32[::1])")
def add(x, y, out):
    i = cubridge.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]


@cubridge.jit("void(float32[:, ::1], float32, int64)")
def scale_rows(x, factor, rows):
    i = cubridge.grid(1)
    if i < rows:
        for j in range(x.shape[1]):
            x[i, j] *= factor
