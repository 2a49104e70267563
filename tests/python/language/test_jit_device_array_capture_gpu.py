"""GPU arrays captured by kernels and device functions (globals and closure variables with
__cuda_array_interface__), run on the GPU: reads through a helper, writes seen by the host, 2-d arrays, several
dtypes; each compared with NumPy and with numba-cuda on the same source where numba-cuda is installed
(numba-cuda's test_device_array_capture, doc_examples' PRICES)."""
import numpy as np
import pytest

import cubridge


def _makers():
    makers = [("cubridge", cubridge.to_device)]
    try:
        import cupy
        makers.append(("cupy", cupy.asarray))
    except ImportError:
        pass
    return makers


def _host(a):
    return a.copy_to_host() if hasattr(a, "copy_to_host") else a.get()


def _kernels(jit, grid, captured):
    @jit(device=True)
    def twice(i):
        return captured[i] * 2

    @jit
    def read(out):
        i = grid(1)
        if i < out.size:
            out[i] = twice(i)

    @jit
    def write():
        i = grid(1)
        if i < captured.size:
            captured[i] = i + 1

    return read, write


def _jits():
    jits = [("cubridge", cubridge.jit, cubridge.grid)]
    try:
        from numba import cuda
        jits.append(("numba-cuda", cuda.jit, cuda.grid))
    except ImportError:
        pass
    return jits


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("maker", _makers(), ids=lambda m: m[0])
def test_captured_array_is_read_and_written(maker, dtype):
    results = {}
    for name, jit, grid in _jits():
        captured = maker[1](np.arange(5, dtype=dtype) + 1)
        read, write = _kernels(jit, grid, captured)
        out = cubridge.device_array(5, dtype)
        read[1, 5](out)
        got_read = out.copy_to_host()
        write[1, 5]()
        results[name] = (got_read, _host(captured))
        np.testing.assert_array_equal(got_read, (np.arange(5, dtype=dtype) + 1) * 2, err_msg=name)
        np.testing.assert_array_equal(results[name][1], np.arange(5, dtype=dtype) + 1, err_msg=name)
    if "numba-cuda" in results:
        for a, b in zip(results["cubridge"], results["numba-cuda"]):
            np.testing.assert_array_equal(a, b)


@pytest.mark.gpu
def test_captured_2d_fortran_array():
    host = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(3, 2))
    table = cubridge.to_device(host)

    @cubridge.jit
    def flatten(out):
        i = cubridge.grid(1)
        if i < 6:
            out[i] = table[i // 2, i % 2]

    out = cubridge.device_array(6, np.float32)
    flatten[1, 6](out)
    np.testing.assert_array_equal(out.copy_to_host(), host.flatten())
