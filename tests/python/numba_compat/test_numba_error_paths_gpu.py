"""The raises cubridge registers as raise sites (test_numba_error_paths.py rule 10), on a GPU against numba-cuda:
a debug=True kernel that indexes a tuple out of range, or stores a slice from a source of another size, raises
on the host the class numba-cuda raises, with numba-cuda's words (numba-cuda's test_exception.test_exception:
IndexError "tuple index out of range"), never cubridge's "unknown error"."""
import numpy as np
import pytest

import cubridge

pytestmark = [pytest.mark.gpu, pytest.mark.real_driver]

cuda = pytest.importorskip("numba.cuda")


def tuple_index(ary):
    x = cuda.threadIdx.x
    if x == 2:
        ary.shape[-x]


def slice_from_tuple(a):
    if cuda.threadIdx.x == 1:
        a[0:4] = (1.0, 2.0, 3.0)


def _raised(jit, fn, ary):
    with pytest.raises(Exception) as info:
        jit(debug=True, opt=False)(fn)[1, 3](ary)
    return info.value


@pytest.mark.parametrize("fn, ary, cls, words", [
    (tuple_index, np.array([0, 1]), IndexError, "tuple index out of range"),
    pytest.param(slice_from_tuple, np.zeros(8), ValueError, "cannot assign slice from input of different size",
                 marks=pytest.mark.xfail(strict=True, reason="known difference: numba-cuda indexes a shorter tuple "
                                         "source element by element and raises IndexError('tuple index out of "
                                         "range'); cubridge checks the sizes first and raises numba's ValueError "
                                         "for arrays")),
])
def test_registered_raises_reach_the_host_as_numba_cudas(fn, ary, cls, words):
    ours = _raised(cubridge.jit, fn, ary.copy())
    assert isinstance(ours, cls) and words in str(ours), repr(ours)
    try:
        theirs = _raised(cuda.jit, fn, ary.copy())
    except Exception as e:  # numba-cuda not usable here (no numba-cuda, CPU numba's cuda target)
        pytest.skip(f"numba-cuda could not run the kernel: {e}")
    assert type(ours) is type(theirs), (ours, theirs)
    assert words in str(theirs)
