"""Cooperative launches on a GPU: a kernel that synchronises its grid (cuda.cg) is launched cooperatively
and its grid is checked first: max_cooperative_grid_blocks is numba-cuda's (active blocks per
multiprocessor x multiprocessors), a grid at the limit runs with every block resident, one block more is
refused before launching with a message naming the grid, the block and the limit. The values of grid-sync
kernels are compared with numba-cuda's by parity/kernels_cg.py."""
import numpy as np
import pytest
from numba import cuda

import cubridge

pytestmark = [pytest.mark.gpu, pytest.mark.real_driver]

SIG = "void(float32[::1], float32[::1])"


def two_phase(x, out):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * 2
    g.sync()
    if i < x.size:
        out[i] += x[x.size - 1 - i]


def plain(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i]


def test_the_grid_limit_is_numba_cudas():
    ours = cubridge.jit(SIG)(two_phase).specialize()
    theirs = next(iter(cuda.jit(SIG)(two_phase).overloads.values()))
    assert ours.cooperative
    # 32 threads per block: the device's blocks-per-multiprocessor limit binds for both compilers' code
    # (registers would only bind above 64 per thread); larger blocks may differ with the register counts.
    assert ours.max_cooperative_grid_blocks(32) == theirs.max_cooperative_grid_blocks(32)
    sms = cubridge.Device(0).multiprocessor_count
    for block in (128, (16, 4), 1024):
        blocks = ours.max_cooperative_grid_blocks(block)
        assert blocks >= sms and blocks % sms == 0, (block, blocks, sms)


def test_a_grid_at_the_limit_runs_and_one_block_more_is_refused():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    k = cubridge.jit(SIG)(two_phase)
    block = 128
    limit = k.specialize().max_cooperative_grid_blocks(block)
    n = limit * block
    x = cp.arange(n, dtype=np.float32)
    out = cp.zeros(n, np.float32)
    k[limit, block](x, out)
    cp.cuda.Device().synchronize()
    host = np.arange(n, dtype=np.float32)
    np.testing.assert_array_equal(out.get(), host * 2 + host[::-1])
    with pytest.raises(ValueError, match=rf"griddim {limit + 1} with blockdim {block}: kernel '.*' synchronises "
                                         rf"its grid \(cuda\.cg\).*at most {limit} blocks fit"):
        k[limit + 1, block](x, out)


def test_kernels_without_grid_sync_launch_as_before():
    k = cubridge.jit(SIG)(plain)
    assert not k.specialize().cooperative
