"""Records on the GPU: each case of parity/kernels_records.py runs through numba-cuda and through
cubridge on copies of the same host arrays and the outputs are compared byte for byte (a structured
array as its raw bytes, padding included: neither compiler may write outside the fields it stores).

numba-cuda gets `cuda.to_device` copies (it cannot take a structured CuPy array: its CAI import keeps only
the typestr, '|V<n>'); cubridge gets `cupy.asarray` copies, typed through their structured dtype."""
import os
import sys

import numpy as np
import pytest

import cubridge

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity.kernels_records import RECORD_CASES  # noqa: E402


def _launch(case, jit, to_device, to_host):
    host = case.make()
    args = [to_device(a) if isinstance(a, np.ndarray) else a for a in host]
    kernel = jit(case.sig, **case.options)(case.fn) if case.sig is not None else jit(**case.options)(case.fn)
    for _ in range(case.launches):
        kernel[case.grid, case.block, 0, case.shared](*args)
    return [to_host(args[i]) for i in case.out_indices(host)]


def _bytes(a):
    return np.ascontiguousarray(a).view(np.uint8) if a.dtype.fields is not None else a


@pytest.mark.gpu
@pytest.mark.parametrize("case", RECORD_CASES, ids=[c.id for c in RECORD_CASES])
def test_record_case_matches_numba_cuda(case):
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")

    def numba_host(d):
        numba_cuda.synchronize()
        return d.copy_to_host()

    def cupy_host(d):
        cp.cuda.Device().synchronize()
        return d.get()

    theirs = _launch(case, numba_cuda.jit, numba_cuda.to_device, numba_host)
    ours = _launch(case, cubridge.jit, cp.asarray, cupy_host)
    if case.compare is not None:
        case.compare(ours, theirs)
        return
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert a.dtype == b.dtype, f"{case.id}: output {k} dtype {a.dtype} != {b.dtype}"
        if case.atol or case.rtol:
            np.testing.assert_allclose(a, b, rtol=case.rtol, atol=case.atol, equal_nan=True,
                                       err_msg=f"{case.id}: output {k}")
        else:
            np.testing.assert_array_equal(_bytes(a), _bytes(b), err_msg=f"{case.id}: output {k} differs from numba-cuda's")


REC = np.dtype([("x", np.float32), ("n", np.int32), ("v", np.float64, (2,))], align=True)


def record_param(r, out):
    out[0] = r.x * r.n + r.v[1]
    r.n += 1
    r["x"] = r.v[0]
    r.v[1] = 3.0


def _host_record():
    host = np.zeros((), REC)
    host["x"], host["n"], host["v"] = 1.5, 7, (0.25, -2.0)
    return host


@pytest.mark.gpu
def test_a_device_record_parameter_matches_numba_cuda():
    """A device record on both sides (numba's DeviceRecord, cubridge.from_record_like): the kernel reads and
    writes the one record through its address."""
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    host = _host_record()
    d = numba_cuda.to_device(host[()])  # a DeviceRecord (numba's from_record_like, then a copy)
    out = numba_cuda.to_device(np.zeros(1))
    numba_cuda.jit(record_param)[1, 1](d, out)
    theirs = d.copy_to_host(), out.copy_to_host()

    ours_d = cubridge.from_record_like(host)
    assert cubridge.typeof(ours_d) == cubridge.typeof(host[()])
    ours_d.copy_to_device(host)
    ours_out = cubridge.to_device(np.zeros(1))
    cubridge.jit(record_param)[1, 1](ours_d, ours_out)
    ours = ours_d.copy_to_host(), ours_out.copy_to_host()
    assert ours[0].tobytes() == np.asarray(theirs[0]).tobytes()
    np.testing.assert_array_equal(ours[1], theirs[1])


@pytest.mark.gpu
@pytest.mark.parametrize("recarray", [False, True], ids=["structured_array", "recarray"])
def test_a_host_record_is_copied_in_and_back_as_numba_cuda_does(recarray):
    """a[i] of a NumPy structured array passed as a record parameter: copied to the device and back into a.
    r[i] of a np.recarray is a numpy.record (a subclass of numpy.void), written through the same way (numba-cuda's
    test_record_dtype passes these)."""
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    theirs = np.zeros(3, REC).view(np.recarray) if recarray else np.zeros(3, REC)
    theirs[1] = _host_record()
    ours = theirs.copy()
    assert type(ours[1]) is (np.record if recarray else np.void)
    out_t, out_o = np.zeros(1), np.zeros(1)
    numba_cuda.jit(record_param)[1, 1](theirs[1], out_t)
    with pytest.warns(cubridge.PerformanceWarning):
        cubridge.jit(record_param)[1, 1](ours[1], out_o)
    assert ours.tobytes() == theirs.tobytes()
    np.testing.assert_array_equal(out_o, out_t)


@pytest.mark.gpu
def test_an_item_of_a_read_only_structured_array_is_refused_for_a_kernel_that_writes_it():
    ro = np.zeros(2, REC)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"argument 0: the array is read-only but the kernel may write it"):
        cubridge.jit(record_param)[1, 1](ro[0], np.zeros(1))
