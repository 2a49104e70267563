"""Kernel parity (GPU): each case of parity/ runs through cubridge (@cubridge.jit) and through numba-cuda
(@numba.cuda.jit) on the same inputs (CuPy arrays, fresh copies for each compiler) and the outputs are
compared: bit for bit (NaNs equal) unless the case gives a tolerance or its own comparison."""
import os
import sys

import numpy as np
import pytest

import cubridge

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity.cases import load_all  # noqa: E402

CASES = load_all()


def _run(case, jit):
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    host = case.make()
    args = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in host]
    sig = case.sig
    kernel = jit(sig, **case.options)(case.fn) if sig is not None else jit(**case.options)(case.fn)
    for _ in range(case.launches):
        kernel[case.grid, case.block, 0, case.shared](*args)
    cp.cuda.Device().synchronize()
    return [args[i].get() for i in case.out_indices(host)]


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_parity_case_matches_numba_cuda(case):
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    theirs = _run(case, numba_cuda.jit)
    ours = _run(case, cubridge.jit)
    if case.compare is not None:
        case.compare(ours, theirs)
        return
    for k, (a, b) in enumerate(zip(ours, theirs)):
        if case.atol or case.rtol:
            np.testing.assert_allclose(a, b, rtol=case.rtol, atol=case.atol, equal_nan=True,
                                       err_msg=f"{case.id}: output {k}")
        else:
            np.testing.assert_array_equal(a, b, err_msg=f"{case.id}: output {k} differs from numba-cuda's: "
                                                        f"{_differences(a, b)}")


def _differences(ours, theirs, shown=6) -> str:
    """Where two outputs differ (NaNs equal, one NaN against a number not), with both values: numpy's own
    report gives no index for a NaN mismatch."""
    a, b = np.asarray(ours), np.asarray(theirs)
    if a.shape != b.shape:
        return f"shapes {a.shape} and {b.shape}"
    if a.dtype.kind in "fc":
        same = (a == b) | ((a != a) & (b != b))
        if a.dtype.kind == "c":
            same = ((a.real == b.real) | (np.isnan(a.real) & np.isnan(b.real))) & \
                   ((a.imag == b.imag) | (np.isnan(a.imag) & np.isnan(b.imag)))
    else:
        same = a == b
    where = np.argwhere(~same)
    items = ", ".join(f"{tuple(int(i) for i in ix)}: ours {a[tuple(ix)]!r}, numba-cuda {b[tuple(ix)]!r}"
                      for ix in where[:shown])
    return f"{len(where)} element(s) differ; first: {items}"
