"""Slices of arrays inside kernels, without a GPU: device functions that slice are compiled to NVVM IR by
cubridge and that IR is run on the host (clang compiles it for the CPU; the slice arithmetic is plain
integer IR), so every start/stop/step combination, negative, omitted and out-of-range, is compared with
NumPy's slices. Kernels using slices are ptxas-checked with the rest of the corpus (test_jit_kernels.py)
and run on the GPU by test_jit_kernels_gpu.py (corpus/kernels_slices.py)."""
import ctypes
import itertools
import re
import shutil
import subprocess

import numpy as np
import pytest

import cubridge
from cubridge import _compiler, _core

CC = (9, 0)
clang = shutil.which("clang")
needs_clang = pytest.mark.skipif(clang is None, reason="clang is needed to run NVVM IR on the host")


def host_function(fn, sig, tmp_path):
    """`fn` compiled as a Numba-ABI device function to NVVM IR, then by clang to a host shared library."""
    o = _compiler._options(False, False, True, False, CC, True, "numba", None, "ptx")
    source, name = _compiler._collect(fn, o)
    r = _core._compile_source_to_ir(source, name, sig, o)
    ir = re.sub(r"^target (datalayout|triple) = .*$", "", r.nvvm_ir, flags=re.M)
    assert "@llvm.nvvm" not in ir and "@__nv_" not in ir, "the IR must be plain for the host"
    (tmp_path / "f.ll").write_text(ir)
    so = tmp_path / "f.so"
    subprocess.run([clang, "-shared", "-fPIC", "-O1", "-Wno-override-module", "-o", str(so), str(tmp_path / "f.ll")],
                   check=True, capture_output=True)
    f = getattr(ctypes.CDLL(str(so)), r.name)
    f.restype = ctypes.c_int32
    return f


def array_pieces(a):
    """numba-cuda's flattened array argument: meminfo, parent, nitems, itemsize, data, shape, strides."""
    return [None, None, ctypes.c_int64(a.size), ctypes.c_int64(a.itemsize), ctypes.c_void_p(a.ctypes.data),
            *[ctypes.c_int64(d) for d in a.shape], *[ctypes.c_int64(s) for s in a.strides]]


def call(f, *args):
    out = ctypes.c_int64(0)
    flat = []
    for a in args:
        flat += array_pieces(a) if isinstance(a, np.ndarray) else [ctypes.c_int64(a)]
    status = f(ctypes.byref(out), *flat)
    assert status == 0, f"status {status}"
    return out.value


def summary(v):
    """A view's length, first and last element in one number."""
    return len(v) * 1000000 + int(v[0]) * 1000 + int(v[-1]) if len(v) > 0 else 0


def slice_all(a, lo, hi, st):
    v = a[lo:hi:st]
    return len(v) * 1000000 + v[0] * 1000 + v[-1] if len(v) > 0 else 0


def slice_start_stop(a, lo, hi):
    v = a[lo:hi]
    return len(v) * 1000000 + v[0] * 1000 + v[-1] if len(v) > 0 else 0


def slice_step_only(a, st):
    v = a[::st]
    return len(v) * 1000000 + v[0] * 1000 + v[-1] if len(v) > 0 else 0


def slice_2d(b, lo, hi, st, j):
    # rows lo:hi:st of column j, then the last two columns of that row range, reversed
    col = b[lo:hi:st, j]
    blk = b[lo:hi:st, :-3:-1]
    n = len(col) * 1000000 + col[0] * 1000 + col[-1] if len(col) > 0 else 0
    return n * 100 + blk.shape[1] * 10 + (blk[0, 1] % 10 if blk.shape[0] > 0 else 0)


BOUNDS = (-12, -5, -1, 0, 1, 3, 7, 12)
STEPS = (-4, -2, -1, 1, 2, 3)


@needs_clang
@pytest.mark.parametrize("n", [0, 1, 6, 9])
def test_1d_slices_match_numpy(tmp_path, n):
    a = np.arange(1, n + 1, dtype=np.int64)
    f = host_function(slice_all, "int64(int64[:], int64, int64, int64)", tmp_path)
    wrong = [(lo, hi, st, call(f, a, lo, hi, st), summary(a[lo:hi:st]))
             for lo, hi, st in itertools.product(BOUNDS, BOUNDS, STEPS) if call(f, a, lo, hi, st) != summary(a[lo:hi:st])]
    assert not wrong, f"(start, stop, step, cubridge, numpy) differ for a of {n} elements: {wrong[:8]}"


@needs_clang
def test_omitted_bounds_and_a_zero_step_at_run_time(tmp_path):
    a = np.arange(1, 10, dtype=np.int64)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    two = host_function(slice_start_stop, "int64(int64[::1], int64, int64)", tmp_path / "a")
    step = host_function(slice_step_only, "int64(int64[:], int64)", tmp_path / "b")
    for lo, hi in itertools.product(BOUNDS, BOUNDS):
        assert call(two, a, lo, hi) == summary(a[lo:hi]), (lo, hi)
    for st in STEPS:
        assert call(step, a, st) == summary(a[::st]), st
    # A step of 0 known only at run time: an empty view (kernels cannot raise Python's ValueError).
    assert call(step, a, 0) == 0
    everything = host_function(slice_all, "int64(int64[:], int64, int64, int64)", tmp_path / "c")
    assert call(everything, a, 2, 7, 0) == 0


@needs_clang
def test_2d_views_of_strided_arrays_match_numpy(tmp_path):
    base = np.arange(11 * 13, dtype=np.int64).reshape(11, 13)
    b = base[1:, ::2]  # a strided input: the view's strides come from the argument's
    f = host_function(slice_2d, "int64(int64[:, :], int64, int64, int64, int64)", tmp_path)
    for lo, hi, st, j in itertools.product((-9, 0, 2), (-1, 4, 20), (-2, 1, 3), (0, -1, 3)):
        col, blk = b[lo:hi:st, j], b[lo:hi:st, :-3:-1]
        want = summary(col) * 100 + blk.shape[1] * 10 + (blk[0, 1] % 10 if blk.shape[0] > 0 else 0)
        assert call(f, b, lo, hi, st, j) == want, (lo, hi, st, j)


def slices_everywhere(a, b, out):
    i = cubridge.grid(1)
    v = a[1:]
    w = a[::-2]
    r = b[i % b.shape[0], :]
    c = b[:, 1]
    s = b[1:4, ::2]
    if i < len(v):
        out[i] = v[i] + w[i % len(w)] + r[0] + c[-1] + s[0, 1] + s.shape[1] + v[1:][0]


def test_kernel_with_slices_assembles_and_the_jit_takes_it():
    sig = "void(const float32[::1], const float32[:, ::1], float32[::1])"
    ptx, _ = cubridge.compile_ptx(slices_everywhere, sig, cc=CC)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    d = cubridge.jit(sig, cache=False)(slices_everywhere)
    assert list(d.inspect_ptx()) == [sig]
