"""numba-cuda's cooperative groups without a GPU: cuda.cg.this_grid() gives a GridGroup whose .sync() is a
grid-wide barrier (returning int32, as numba-cuda types it). The compile result says the kernel needs a
cooperative launch; the PTX reads the grid workspace from %envreg1/%envreg2 and synchronises with
atom.add.release.gpu / ld.acquire.gpu between two block barriers (CUDA's cooperative_groups code, no
libcudadevrt), and ptxas takes it. Every spelling numba-cuda accepts compiles; other methods and groups are
refused by name. The GPU runs (parity/kernels_cg.py, test_cooperative_gpu.py) check the barrier and the
launch-size limit against numba-cuda's."""
import pytest
from numba import cuda
from numba.cuda import cg
from numba.cuda.cg import this_grid

import cubridge
from cubridge import _compiler

CC = (9, 0)


def _result(fn, sig, **kw):
    kw.setdefault("device", False)
    r = _compiler._compile_result(fn, sig, abi="numba", cc=CC, **kw)
    check = cubridge.ptxas_check(r.code.decode(), CC)
    assert check, check.log
    return r


def two_phase(x, out):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    out[i] = x[i] * 2
    g.sync()
    out[i] += out[out.size - 1 - i]


def test_grid_sync_needs_a_cooperative_launch_and_uses_the_grid_workspace():
    r = _result(two_phase, "void(float32[::1], float32[::1])")
    assert r.cooperative
    ptx = r.code.decode()
    for text in ["%envreg1", "%envreg2", "atom.add.release.gpu.u32", "ld.acquire.gpu.u32", "trap;"]:
        assert text in ptx, text
    assert ptx.count("bar.sync \t0") + ptx.count("barrier.sync \t0") >= 2


def chained(out):
    out[0] = cuda.cg.this_grid().sync()


def through_cg_module(out):
    cg.this_grid().sync()


def through_imported_function(out):
    this_grid().sync()


def through_cubridge(out):
    g = cubridge.cg.this_grid()
    g.sync()
    g.sync()


@pytest.mark.parametrize("fn", [chained, through_cg_module, through_imported_function, through_cubridge])
def test_every_spelling_compiles(fn):
    assert _result(fn, "void(int32[::1])").cooperative


@cuda.jit(device=True)
def wait_then_add(g, v):
    g.sync()
    return v + 1


def group_passed_to_device_function(out):
    g = cuda.cg.this_grid()
    out[0] = wait_then_add(g, out[0])


def test_a_grid_group_passes_to_device_functions():
    r = _result(group_passed_to_device_function, "void(int32[::1])")
    assert r.cooperative and "atom.add.release.gpu.u32" in r.code.decode()


def sync_result():
    return cuda.cg.this_grid().sync()


def test_sync_returns_int32_as_in_numba_cuda():
    # numba-cuda's _grid_group_sync intrinsic: signature(types.int32, group) (its compile_ptx of cg code
    # needs a driver to link libcudadevrt, so it cannot be asked here).
    assert _result(sync_result, "()", device=True).result_type == "int32"


def only_this_grid(out):
    g = cuda.cg.this_grid()
    out[0] = 1


def no_cg(out):
    out[0] = 1


def test_this_grid_alone_marks_the_kernel_cooperative_as_numba_cuda_does():
    assert _result(only_this_grid, "void(int32[::1])").cooperative
    assert not _result(no_cg, "void(int32[::1])").cooperative


def bad_method(out):
    cuda.cg.this_grid().thread_rank()


def bad_group(out):
    cuda.cg.this_thread_block().sync()


def bad_arity(out):
    cuda.cg.this_grid(1)


def print_group(out):
    print(cuda.cg.this_grid())


@pytest.mark.parametrize("fn, match", [
    (bad_method, r"method 'thread_rank' of a GridGroup is not supported; a grid group offers \.sync\(\)"),
    (bad_group, r"cuda\.cg\.this_thread_block\(\) is not supported; numba-cuda's cooperative groups offer"),
    (bad_arity, r"cuda\.cg\.this_grid\(\) takes 0 argument\(s\), got 1"),
    (print_group, r"cannot print a value of type GridGroup"),
])
def test_what_numba_cuda_does_not_offer_is_refused(fn, match):
    with pytest.raises(cubridge.CompileError, match=match):
        cubridge.compile(fn, "void(int32[::1])", device=False, abi="numba", cc=CC)
