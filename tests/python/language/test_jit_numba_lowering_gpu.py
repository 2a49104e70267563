"""Calls of numba low-level extensions (@intrinsic, type_callable + lower_builtin) launched (GPU): the values
the extensions' own code gives, through cubridge.jit and through numba-cuda itself on the same inputs."""
import numpy as np
import pytest

cases = pytest.importorskip("numba_lowering_cases", reason="numba is not installed")
import cubridge  # noqa: E402

# (kernel, arguments maker, expected r[0]): each maker returns fresh arrays (r first where the kernel takes it)
CASES = [
    (cases.k_identity, lambda: (np.zeros(1, np.int64), np.array([5, 0], np.int64)), 5),
    (cases.k_add_shifted, lambda: (np.zeros(1, np.int64), np.array([3, 2], np.int64)), 3 + (2 << 3)),
    (cases.k_void, lambda: (np.zeros(1, np.int64),), 7),
    (cases.k_is_positive, lambda: (np.zeros(1, np.int64), np.array([4], np.int64)), 1),
    (cases.k_is_positive, lambda: (np.zeros(1, np.int64), np.array([-4], np.int64)), 2),
    (cases.k_func1_nullary, lambda: (np.zeros(1, np.float64),), 42.0),
    (cases.k_func1_unary, lambda: (np.zeros(1, np.float64), 18.0), 6.0),
    (cases.k_shift_by, lambda: (np.zeros(2, np.int64), np.array([3], np.int64)), 3 << 3),
    *([] if cases.ADD_CABI is None else [  # the lowering links CUDA C++ (numba-cuda's CUSource)
        (cases.k_external_add, lambda: (np.zeros(1, np.uint32), np.ones(1, np.uint32), np.full(1, 2, np.uint32)), 3)]),
]
IDS = [f"{k.__name__}-{i}" for i, (k, _, _) in enumerate(CASES)]


def _run(jit, kernel, make):
    args = make()
    jit(kernel)[1, 1](*args)
    return args[0][0]


@pytest.mark.gpu
@pytest.mark.parametrize("kernel, make, expected", CASES, ids=IDS)
def test_extension_calls_give_their_codes_values(kernel, make, expected):
    assert _run(cubridge.jit, kernel, make) == expected


@pytest.mark.gpu
@pytest.mark.parametrize("kernel, make, expected", CASES, ids=IDS)
def test_extension_calls_match_numba_cuda(kernel, make, expected):
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    if not hasattr(numba_cuda, "CUSource"):
        pytest.skip("this numba.cuda is numba's old built-in target, not numba-cuda")
    assert _run(cubridge.jit, kernel, make) == _run(numba_cuda.jit, kernel, make)
