"""cubridge.random on the GPU, across libraries: states made by cubridge and by numba-cuda are the same
bytes, each library's init fills the other's arrays, a generator advanced by one library's kernel goes on
in the other's, and kernels spelt with cubridge.random draw what numba-cuda's draw. (The parity harness,
parity/kernels_random.py, runs every draw function from both libraries' states.)"""
import numpy as np
import pytest

import cubridge
import cubridge.random as cr

pytestmark = pytest.mark.gpu

numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
nr = pytest.importorskip("numba.cuda.random", reason="numba-cuda is not installed")

THREADS, DRAWS = 128, 6


def words(states):
    """A states array's bytes as uint64 pairs, from either library's array."""
    host = states.copy_to_host()
    assert host.dtype == nr.xoroshiro128p_dtype
    return host.view(np.uint64)


@pytest.mark.parametrize("n, seed, subsequence_start", [(1, 0, 0), (THREADS, 1234, 0), (1000, 2**64 - 1, 3),
                                                          (257, -5, 1)])
def test_created_states_are_numbas(n, seed, subsequence_start):
    ours = cr.create_xoroshiro128p_states(n, seed, subsequence_start)
    theirs = nr.create_xoroshiro128p_states(n, np.uint64(seed % 2**64), subsequence_start)
    assert isinstance(ours, cubridge.DeviceArray) and ours.shape == (n,)
    assert ours.dtype == nr.xoroshiro128p_dtype and ours.dtype.isalignedstruct
    np.testing.assert_array_equal(words(ours), words(theirs))


def test_no_states():
    states = cr.create_xoroshiro128p_states(0, 1)
    assert states.shape == (0,) and states.dtype == cr.xoroshiro128p_dtype


@pytest.mark.parametrize("make_stream", [cubridge.stream, lambda: numba_cuda.stream()], ids=["cubridge", "numba"])
def test_created_on_a_stream(make_stream):
    stream = make_stream()
    ours = cr.create_xoroshiro128p_states(64, 9, 2, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(words(ours), words(nr.create_xoroshiro128p_states(64, 9, 2)))


def test_each_librarys_init_fills_the_others_arrays():
    numba_array = numba_cuda.device_array(50, dtype=nr.xoroshiro128p_dtype)
    cr.init_xoroshiro128p_states(numba_array, 77, 4)
    ours = cr.create_xoroshiro128p_states(50, 0)
    nr.init_xoroshiro128p_states(ours, 77, 4)  # numba's copy_to_device(..., stream=0) on a cubridge array
    reference = nr.create_xoroshiro128p_states(50, 77, 4)
    np.testing.assert_array_equal(words(numba_array), words(reference))
    np.testing.assert_array_equal(words(ours), words(reference))


def _numba_uniform_kernel():
    from numba.cuda.random import xoroshiro128p_uniform_float32

    @numba_cuda.jit
    def draw(states, out):
        i = numba_cuda.grid(1)
        if i < out.shape[0]:
            for k in range(out.shape[1]):
                out[i, k] = xoroshiro128p_uniform_float32(states, i)
    return draw


def _cubridge_uniform_kernel():
    """The same kernel spelt with cubridge's names only."""
    from cubridge.random import xoroshiro128p_uniform_float32

    @cubridge.jit
    def draw(states, out):
        i = cubridge.grid(1)
        if i < out.shape[0]:
            for k in range(out.shape[1]):
                out[i, k] = xoroshiro128p_uniform_float32(states, i)
    return draw


def _launch(kernel, states, out):
    kernel[THREADS // 64, 64](states, out)
    numba_cuda.synchronize()
    return out.copy_to_host()


def test_a_generator_goes_on_across_libraries():
    """Half the draws by one library's kernel, the rest by the other's, on one states array: the same
    numbers as all of them drawn by numba-cuda alone."""
    theirs, ours = _numba_uniform_kernel(), _cubridge_uniform_kernel()
    alone = _launch(theirs, nr.create_xoroshiro128p_states(THREADS, 31), numba_cuda.device_array((THREADS, 2 * DRAWS), np.float32))
    for make_states in (cr.create_xoroshiro128p_states, nr.create_xoroshiro128p_states):
        for first, second in ((ours, theirs), (theirs, ours)):
            states = make_states(THREADS, 31)
            a = _launch(first, states, cubridge.device_array((THREADS, DRAWS), np.float32))
            b = _launch(second, states, numba_cuda.device_array((THREADS, DRAWS), np.float32))
            np.testing.assert_array_equal(np.hstack([a, b]), alone)


def test_kernel_spelt_with_cubridge_names_draws_numbas_numbers():
    ours = _launch(_cubridge_uniform_kernel(), cr.create_xoroshiro128p_states(THREADS, 5),
                   cubridge.device_array((THREADS, DRAWS), np.float32))
    theirs = _launch(_numba_uniform_kernel(), nr.create_xoroshiro128p_states(THREADS, 5),
                     numba_cuda.device_array((THREADS, DRAWS), np.float32))
    np.testing.assert_array_equal(ours, theirs)


def test_states_advance_alike():
    """After the same draws, the states themselves are equal (the kernels write both words back)."""
    ours_states = cr.create_xoroshiro128p_states(THREADS, 8)
    theirs_states = nr.create_xoroshiro128p_states(THREADS, 8)
    _launch(_cubridge_uniform_kernel(), ours_states, cubridge.device_array((THREADS, DRAWS), np.float32))
    _launch(_numba_uniform_kernel(), theirs_states, numba_cuda.device_array((THREADS, DRAWS), np.float32))
    np.testing.assert_array_equal(words(ours_states), words(theirs_states))


def test_normals_and_raw_draws_from_cubridge_names():
    from cubridge.random import (xoroshiro128p_jump, xoroshiro128p_next, xoroshiro128p_normal_float32,
                                 xoroshiro128p_normal_float64)
    from numba.cuda.random import xoroshiro128p_jump as njump
    from numba.cuda.random import xoroshiro128p_next as nnext
    from numba.cuda.random import xoroshiro128p_normal_float32 as nnormal32
    from numba.cuda.random import xoroshiro128p_normal_float64 as nnormal64

    @cubridge.jit
    def ours(states, f32, f64, raw):
        i = cubridge.grid(1)
        if i < f32.shape[0]:
            f32[i] = xoroshiro128p_normal_float32(states, i)
            f64[i] = xoroshiro128p_normal_float64(states, i)
            xoroshiro128p_jump(states, i)
            raw[i] = xoroshiro128p_next(states, i)

    @numba_cuda.jit
    def theirs(states, f32, f64, raw):
        i = numba_cuda.grid(1)
        if i < f32.shape[0]:
            f32[i] = nnormal32(states, i)
            f64[i] = nnormal64(states, i)
            njump(states, i)
            raw[i] = nnext(states, i)

    results = []
    for kernel, make_out in ((ours, cubridge.device_array), (theirs, numba_cuda.device_array)):
        outs = [make_out(THREADS, np.float32), make_out(THREADS, np.float64), make_out(THREADS, np.uint64)]
        kernel[THREADS // 64, 64](nr.create_xoroshiro128p_states(THREADS, 2024), *outs)
        numba_cuda.synchronize()
        results.append([o.copy_to_host() for o in outs])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
