"""Self-recursion as numba-cuda types it, without a GPU. The rules:

1. a function that calls itself with the same argument types and declares no signature takes, at the
   recursive call, the type its other returns give (numba's RecursiveCall), and is compiled as a real call;
2. a function whose every return depends on the recursive call ("runaway" recursion) is refused with
   numba's words, "cannot type infer runaway recursion"; one whose returned type grows with each recursive
   call (`return (n, growing(n - 1))`) with numba's "Return type of recursive function does not converge";
3. a declared signature (jit("int64(int64)", device=True)) still gives the type (test_jit_numba_families).
Values against numba-cuda on the GPU: parity/kernels_recursion.py."""
import os
import sys

import pytest

import cubridge
from conftest import assembled_ptx

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity import kernels_recursion as kernels  # noqa: E402


@cubridge.jit(device=True)
def runaway(x):
    return runaway(x)


@cubridge.jit(device=True)
def growing(n):
    if n <= 0:
        return None
    return (n, growing(n - 1))


def calls_runaway(out):
    out[0] = runaway(1)


def calls_growing(out, n):
    growing(n)


def test_implicit_recursion_is_a_real_call_of_the_inferred_type():
    ptx = assembled_ptx(kernels.recursion_implicit, "void(int64[::1], int64[::1], float64[::1])")
    assert "call.uni" in ptx
    assert cubridge.compile(kernels.fib_implicit, "(int64,)")[1] == cubridge.int64
    assert cubridge.compile(kernels.halves, "(float64, int64)")[1] == cubridge.float64


@pytest.mark.parametrize("fn, sig, words", [
    (calls_runaway, "void(int64[::1])", "cannot type infer runaway recursion"),
    (calls_growing, "void(int64[::1], int64)", "Return type of recursive function does not converge"),
])
def test_runaway_recursion_is_refused_with_numbas_words(fn, sig, words):
    with pytest.raises(cubridge.CompileError, match=words):
        cubridge.compile_ptx(fn, sig)
