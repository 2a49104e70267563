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


class _CUSource:
    """numba-cuda's in-memory CUDA C++ shape (numba.cuda.CUSource: data and name), where numba-cuda is not installed."""

    def __init__(self, data, name):
        self.data, self.name = data, name


# numba-cuda's own CUSource where it exists (its linker accepts only its LinkableCode objects; cubridge reads either)
CUSource = getattr(cuda, "CUSource", _CUSource)
BLOCK_SUM_CU = CUSource("""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __device__ int block_sum(int* out, int v) {
    __shared__ int total;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) total = 0;
    block.sync();
    atomicAdd(&total, v);
    block.sync();
    *out = total;
    return 0;
}
""", "block_sum.cu")


def sums_in_blocks(out):
    i = cuda.grid(1)
    out[i] = block_sum(i)  # noqa: F821 (bound per test)


@pytest.mark.parametrize("declare", ["cubridge", "numba"])
def test_a_kernel_calling_a_use_cooperative_external_function_launches_cooperatively(declare, monkeypatch):
    """numba-cuda's test_external_cooperative_func: declare_device(use_cooperative=True) marks the kernel calling it
    cooperative; it is launched so (grid up to max_cooperative_grid_blocks) and gives numba-cuda's values."""
    maker = cubridge.declare_device if declare == "cubridge" else cuda.declare_device
    monkeypatch.setitem(globals(), "block_sum", maker("block_sum", "int32(int32)", link=[BLOCK_SUM_CU],
                                                      use_cooperative=True))
    k = cubridge.jit("void(int32[::1])")(sums_in_blocks)  # compiled now, with the declaration bound now
    overload = next(iter(k.overloads.values()))
    assert overload.cooperative
    block = 32
    grid = min(overload.max_cooperative_grid_blocks(block), 4)
    out = np.zeros(grid * block, np.int32)
    k[grid, block](out)
    expected = np.repeat([sum(range(b * block, (b + 1) * block)) for b in range(grid)], block)
    np.testing.assert_array_equal(out, expected)
    monkeypatch.setitem(globals(), "block_sum", cuda.declare_device("block_sum", "int32(int32)", link=[BLOCK_SUM_CU],
                                                                    use_cooperative=True))
    theirs = np.zeros_like(out)
    numba_kernel = cuda.jit("void(int32[::1])")(sums_in_blocks)
    numba_kernel[grid, block](theirs)
    assert next(iter(numba_kernel.overloads.values())).cooperative
    np.testing.assert_array_equal(out, theirs)


def test_a_grid_sync_kernel_captured_in_a_torch_graph_replays_as_eager():
    """A cooperative launch under torch.cuda.graph (global capture mode): the grid check (an occupancy query) and the
    launch (cuLaunchKernelEx, the packed parameters whole) are recorded or allowed, and each replay equals an eager
    launch; the lazy kernel's first launch compiles and loads inside the capture."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    k = cubridge.jit(two_phase)
    block = 128
    n = 4 * block
    x = torch.arange(n, dtype=torch.float32, device="cuda")
    out = torch.zeros(n, dtype=torch.float32, device="cuda")
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        k[4, block, torch.cuda.current_stream()](x, out)
    torch.cuda.synchronize()
    assert not out.any().item(), "captured, not run"
    g.replay()
    torch.cuda.synchronize()
    host = np.arange(n, dtype=np.float32)
    np.testing.assert_array_equal(out.cpu().numpy(), host * 2 + host[::-1])
    out.zero_()
    g.replay()
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), host * 2 + host[::-1])
