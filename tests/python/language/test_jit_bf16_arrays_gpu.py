"""bfloat16 arrays as kernel arguments on the GPU: torch.bfloat16 tensors (DLPack's kDLBfloat, through the
exchange table or __dlpack__), CuPy arrays of ml_dtypes.bfloat16 (through CuPy's __dlpack__, as numba-cuda types
them) and NumPy arrays of ml_dtypes.bfloat16 (staged, copied back). Values against the host's exact rounding
(ml_dtypes rounds float64 to nearest even, as cuda_bf16's __double2bfloat16 does) and, where numba-cuda is
installed, against numba-cuda running the same kernel (numba-cuda's test_cupy_bfloat16_interop)."""
import numpy as np
import pytest

import cubridge

pytestmark = pytest.mark.gpu
ml_dtypes = pytest.importorskip("ml_dtypes")


def lib(name):
    return pytest.importorskip(name)


@pytest.fixture(autouse=True)
def needs_sm80():
    if tuple(cubridge.Device(0).compute_capability) < (8, 0):
        pytest.skip("bfloat16 needs compute capability 8.0")


def interop(arr_in, arr_in2, arr_out):
    tid = cubridge.grid(1)
    if tid < arr_in.size:
        arr_out[tid] = 2 * arr_in[tid] + 4 * arr_in2[tid] + ml_dtypes.bfloat16(3.0)


def double_it(src, dst):
    i = cubridge.grid(1)
    if i < src.size:
        dst[i] = src[i] * src[i] + src[i]


VALUES = [1, 2, 3, 4, 5, -0.5, 1.0078125, 300.5, 1e-3, 65504.0]


def expected_interop(a, b):
    return (2 * a.astype(np.float64) + 4 * b.astype(np.float64) + 3.0).astype(ml_dtypes.bfloat16)


def expected_double(a):
    # bfloat16 * bfloat16 rounds once (cuda_bf16's __hmul), then + rounds once (__hadd)
    sq = (a.astype(np.float64) * a.astype(np.float64)).astype(ml_dtypes.bfloat16)
    return (sq.astype(np.float64) + a.astype(np.float64)).astype(ml_dtypes.bfloat16)


def assert_double_of(got_bits, a):
    """x * x + x in bfloat16: cuda_bf16's __hmul and __hadd are mul.bf16 / add.bf16 without a rounding
    modifier, which ptxas may fuse into one fma.rn.bf16 (one rounding), as it does for numba-cuda's code too:
    each element is the two-rounding or the fused result (test_double_it_against_numba_cuda compares bits)."""
    two = bits(expected_double(a))
    fused = bits((a.astype(np.float64) * a.astype(np.float64) + a.astype(np.float64)).astype(ml_dtypes.bfloat16))
    assert np.all((got_bits == two) | (got_bits == fused)), (got_bits, two, fused)


def bits(a):
    return np.asarray(a).view(np.uint16)


def test_cupy_ml_dtypes_arrays_as_numba_cuda_test_runs_them():
    cp = lib("cupy")
    h = np.asarray(VALUES, dtype=ml_dtypes.bfloat16)
    d = cp.asarray(h)
    d2 = cp.arange(len(VALUES))
    out = cp.empty(d.size, dtype=ml_dtypes.bfloat16)
    k = cubridge.jit(interop)
    assert cubridge.typeof(d) == "array(bfloat16, 1d, C)"
    k[1, 128](d, d2, out)
    np.testing.assert_array_equal(bits(cp.asnumpy(out)), bits(expected_interop(h, np.arange(len(VALUES)))))


def test_torch_bfloat16_tensors():
    torch = lib("torch")
    h = np.asarray(VALUES, dtype=ml_dtypes.bfloat16)
    t = torch.tensor(h.astype(np.float32), device="cuda").to(torch.bfloat16)
    out = torch.empty_like(t)
    assert cubridge.typeof(t) == "array(bfloat16, 1d, C)"
    cubridge.jit(double_it)[1, 128](t, out)
    got = out.view(torch.int16).cpu().numpy().view(np.uint16)
    assert_double_of(got, h)
    # the DLPack import itself: a cubridge array of the tensor, exported back to torch as bfloat16
    a = cubridge.from_dlpack(t)
    assert a.shape == (len(VALUES),)
    assert torch.from_dlpack(a).dtype == torch.bfloat16


def test_numpy_ml_dtypes_arrays_are_staged_and_copied_back():
    h = np.asarray(VALUES, dtype=ml_dtypes.bfloat16)
    out = np.zeros_like(h)
    cubridge.jit(double_it)[1, 128](h, out)
    assert_double_of(bits(out), h)


try:  # numba-cuda, where installed: the peer this file compares with
    from numba import cuda as numba_cuda
except ImportError:
    numba_cuda = None


def interop_numba(arr_in, arr_in2, arr_out):
    tid = numba_cuda.grid(1)
    if tid < arr_in.size:
        arr_out[tid] = 2 * arr_in[tid] + 4 * arr_in2[tid] + ml_dtypes.bfloat16(3.0)


def test_against_numba_cuda():
    if numba_cuda is None:
        pytest.skip("numba-cuda is not installed")
    cp = lib("cupy")
    h = np.asarray(VALUES, dtype=ml_dtypes.bfloat16)
    d, d2 = cp.asarray(h), cp.arange(len(VALUES))
    ours, theirs = cp.empty(d.size, dtype=ml_dtypes.bfloat16), cp.empty(d.size, dtype=ml_dtypes.bfloat16)
    cubridge.jit(interop)[1, 128](d, d2, ours)
    numba_cuda.jit(interop_numba)[1, 128](d, d2, theirs)
    np.testing.assert_array_equal(bits(cp.asnumpy(ours)), bits(cp.asnumpy(theirs)))


def double_it_numba(src, dst):
    i = numba_cuda.grid(1)
    if i < src.size:
        dst[i] = src[i] * src[i] + src[i]


def test_double_it_against_numba_cuda():
    if numba_cuda is None:
        pytest.skip("numba-cuda is not installed")
    cp = lib("cupy")
    d = cp.asarray(np.asarray(VALUES, dtype=ml_dtypes.bfloat16))
    ours, theirs = cp.empty_like(d), cp.empty_like(d)
    cubridge.jit(double_it)[1, 128](d, ours)
    numba_cuda.jit(double_it_numba)[1, 128](d, theirs)
    np.testing.assert_array_equal(bits(cp.asnumpy(ours)), bits(cp.asnumpy(theirs)))
