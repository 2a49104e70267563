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

sys.path.insert(0, os.path.dirname(__file__))
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
