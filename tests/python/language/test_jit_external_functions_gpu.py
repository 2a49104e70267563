"""External device functions launched (GPU): CUDA C++ declared with cubridge.declare_device or numba-cuda's
cuda.declare_device, linked with cubridge.jit kernels; the values are numba-cuda's (its
test_device_func.TestDeclareDevice / TestDeclareDeviceCABI kernels, run through both on the same inputs)."""
import numpy as np
import pytest

import cubridge

TIMES2 = 'extern "C" __device__ int times2(int* out, int a) { *out = a * 2; return 0; }'
TIMES3 = 'extern "C" __device__ int times3(int* out, int a) { *out = a * 3; return 0; }'
FAILS = 'extern "C" __device__ int fails(int* out, int a) { *out = a; return a == 3 ? 1 : a == 1 ? -2 : 0; }'
CABI = ('extern "C" __device__ int add2(int a, int b) { return a + b; }\n'
        'extern "C" __device__ int const42() { return 42; }\n'
        'extern "C" __device__ void consume(int a) { asm volatile("" : : "r"(a) : "memory"); }')


class CUSource:
    """The shape of numba-cuda's numba.cuda.CUSource (used where numba-cuda is not installed)."""

    def __init__(self, data, name="source.cu"):
        self.data, self.name = data, name


def _declare(declare, source_type, name, sig, source, abi="numba"):
    return declare(name, sig, link=source_type(source), abi=abi)


def _kernels(jit, times2, times3, add2, const42, consume):
    @jit(device=True)  # numba-cuda calls only device functions from kernels; cubridge takes either
    def helper(x):
        return times2(x)

    def numba_abi(r, x):
        i = 0
        while i < len(r):
            r[i] = helper(x[i]) + times2(x[i] + i) + times3(x[i])
            i += 1

    def c_abi(r, x):
        i = 0
        while i < len(r):
            consume(x[i])
            r[i] = add2(x[i], i) + const42()
            i += 1
    return numba_abi, c_abi


def _run(jit, declare, source_type):
    cabi = source_type(CABI)  # one source for the three C-ABI functions: linked once (numba-cuda links each object)
    fs = [_declare(declare, source_type, "times2", "int32(int32)", TIMES2),
          _declare(declare, source_type, "times3", "int32(int32)", TIMES3),
          declare("add2", "int32(int32, int32)", link=cabi, abi="c"),
          declare("const42", "int32()", link=cabi, abi="c"),
          declare("consume", "void(int32)", link=cabi, abi="c")]
    out = []
    for k in _kernels(jit, *fs):
        x = np.arange(10, dtype=np.int32)
        r = np.zeros(10, dtype=np.int32)
        jit(k)[1, 1](r, x)
        out.append(r)
    return out


@pytest.mark.gpu
def test_external_functions_give_the_declared_values():
    numba_abi, c_abi = _run(cubridge.jit, cubridge.declare_device, CUSource)
    x = np.arange(10, dtype=np.int32)
    np.testing.assert_array_equal(numba_abi, 2 * x + 2 * (x + x) + 3 * x)
    np.testing.assert_array_equal(c_abi, x + x + 42)


@pytest.mark.gpu
def test_external_functions_match_numba_cuda():
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    if not hasattr(numba_cuda, "CUSource"):
        pytest.skip("this numba has no numba.cuda.CUSource (numba-cuda 0.10 or later has)")
    theirs = _run(numba_cuda.jit, numba_cuda.declare_device, numba_cuda.CUSource)
    ours = _run(cubridge.jit, cubridge.declare_device, CUSource)
    through_numba = _run(cubridge.jit, numba_cuda.declare_device, numba_cuda.CUSource)  # numba's declarations
    for t, o, n in zip(theirs, ours, through_numba):
        np.testing.assert_array_equal(o, t)
        np.testing.assert_array_equal(n, t)


@pytest.mark.gpu
def test_non_zero_status_returns_from_the_caller():
    fails = cubridge.declare_device("fails", "int32(int32)", link=CUSource(FAILS))

    def helper(r, i):
        r[i] = fails(i)  # the status of fails(3) returns from helper before the store
        return 1

    def kernel(r):
        for i in range(5):
            helper(r, i)

    r = np.full(5, -1, dtype=np.int32)
    cubridge.jit(kernel)[1, 1](r)
    # numba-cuda: an error status (not 0, not -2: None) returns from the function that called, and its callers
    np.testing.assert_array_equal(r, [0, 1, 2, -1, -1])
