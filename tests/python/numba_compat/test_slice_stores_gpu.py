"""Slice stores with array sources on the GPU (parity/kernels_slice_stores.py, NRT_CASES): numba-cuda
compiles a[1:4] = b[0:3] only with its runtime (NRT) enabled, since it copies an overlapping source into
an NRT allocation, so these cases run outside the shared parity harness: numba-cuda with
CUDA_ENABLE_NRT on for its compile and launch (restored after), cubridge as it is, on the same CuPy
inputs, compared bit for bit."""
import contextlib
import os
import sys

import numpy as np
import pytest

import cubridge

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity.kernels_slice_stores import NRT_CASES  # noqa: E402
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
def test_array_source_slice_stores_match_numba_cuda_with_its_runtime(case):
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    with numba_cuda_runtime_enabled():
        theirs = _run(case, numba_cuda.jit)
    ours = _run(case, cubridge.jit)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        np.testing.assert_array_equal(a, b, err_msg=f"{case.id}: output {k} differs from numba-cuda's")
