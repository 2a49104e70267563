"""Kernel parity (CPU): every case of parity/ (kernels in numba-cuda's spelling, family by family) compiles
with cubridge to PTX with the Numba ABI and ptxas assembles it. Their values are compared with numba-cuda's
on the GPU by test_parity_gpu.py."""
import os
import sys

import pytest

import cubridge

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity.cases import load_all  # noqa: E402

CASES = load_all()
CC = (9, 0)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_parity_case_compiles_and_assembles(case):
    ptx, resty = cubridge.compile_ptx(case.fn, case.signature(cubridge.typeof), cc=CC, **case.options)
    assert resty is None
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
