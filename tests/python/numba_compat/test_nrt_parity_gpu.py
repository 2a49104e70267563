"""Parity cases numba-cuda compiles only with its runtime (NRT) enabled (parity/cases.py NRT_CASES): slice
stores with array sources (kernels_slice_stores.py: numba-cuda copies an overlapping source into an NRT
allocation) and NumPy's whole-array reductions (kernels_reductions.py: numba-cuda's np.min/np.max need it).
They run outside the shared parity harness: numba-cuda with
CUDA_ENABLE_NRT on for its compile and launch (restored after), cubridge as it is, on the same CuPy
inputs, compared bit for bit."""
import contextlib
import os
import sys

import numpy as np
import pytest

import cubridge

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
import parity.kernels_reductions  # noqa: E402,F401  (registers its NRT cases)
import parity.kernels_slice_stores  # noqa: E402,F401
from parity.cases import NRT_CASES  # noqa: E402
from test_parity_gpu import _run  # noqa: E402


@contextlib.contextmanager
def numba_cuda_runtime_enabled():
    try:
        from numba.cuda import config  # numba-cuda
    except ImportError:
        from numba.core import config
    old = getattr(config, "CUDA_ENABLE_NRT", False)
    config.CUDA_ENABLE_NRT = True
    try:
        yield
    finally:
        config.CUDA_ENABLE_NRT = old


@pytest.mark.gpu
@pytest.mark.parametrize("case", NRT_CASES, ids=[c.id for c in NRT_CASES])
def test_nrt_cases_match_numba_cuda_with_its_runtime(case):
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    with numba_cuda_runtime_enabled():
        theirs = _run(case, numba_cuda.jit)
    ours = _run(case, cubridge.jit)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        np.testing.assert_array_equal(a, b, err_msg=f"{case.id}: output {k} differs from numba-cuda's")
