"""Values of numba extension types (a StructModel of numbers, numba's Interval example) made and read in kernels
launched (GPU): the members numba's constructor lowering stores, through cubridge.jit and through numba-cuda itself
on the same inputs."""
import numpy as np
import pytest

cases = pytest.importorskip("numba_lowering_cases", reason="numba is not installed")
import cubridge  # noqa: E402
from numba_lowering_cases import Span, span_type, span_width  # noqa: E402
from numba import cuda as numba_cuda  # noqa: E402  (cuda.local.array: numba's spelling, which cubridge reads)


def _span_members(jit):
    r, x = np.zeros(2), np.asarray((1.5, 2.5))
    jit(cases.k_span)[1, 1](r, x)
    return r


def _span_difference(jit):
    difference = jit(device=True)(cases.d_span_difference)

    def kernel(r, x):
        r[0] = difference(x[0], x[1])
    r = np.zeros(1)
    jit(kernel)[1, 1](r, np.asarray((1.5, 4.0)))
    return r


def _add_spans(a, b):
    return Span(a.lo + b.lo, a.hi + b.hi)


def _span_sum(jit):
    add = jit(device=True)(_add_spans)

    def kernel(r, x):
        s = add(Span(x[0], x[1]), Span(x[2], x[3]))
        r[0] = s.lo
        r[1] = s.hi
    r = np.zeros(2)
    jit(kernel)[1, 1](r, np.asarray((1.5, 2.5, 3.0, 4.0)))
    return r


def _numba_code(jit):
    """width (AttributeTemplate + lower_attr), mid (overload_attribute) and span_width (an @intrinsic taking the
    value member by member)."""
    def kernel(r, x):
        s = Span(x[0], x[1])
        r[0] = s.width
        r[1] = s.mid
        r[2] = span_width(s)
    r = np.zeros(3)
    jit(kernel)[1, 1](r, np.asarray((1.5, 4.0)))
    return r


def _local_array_kernel(outx, outy, x):
    """numba-cuda's test_struct_model_type_arr: values stored whole in a local array and read back by member."""
    arr = numba_cuda.local.array(10, dtype=span_type)
    for i in range(len(arr)):
        arr[i] = Span(x[i], x[i] * 2)
    for i in range(len(arr)):
        outx[9 - i] = arr[i].lo
        outy[i] = arr[i].hi


def _local_array(jit):
    outx, outy, x = np.zeros(10), np.zeros(10), np.arange(10, dtype=np.float64) + 0.5
    jit(_local_array_kernel)[1, 1](outx, outy, x)
    return np.concatenate([outx, outy])


@pytest.mark.gpu
def test_members_are_the_constructors_arguments():
    np.testing.assert_equal(_span_members(cubridge.jit), (1.5, 2.5))
    np.testing.assert_equal(_span_difference(cubridge.jit), (2.5,))
    np.testing.assert_equal(_span_sum(cubridge.jit), (4.5, 6.5))
    np.testing.assert_equal(_numba_code(cubridge.jit), (2.5, 2.75, 2.5))
    x = np.arange(10) + 0.5
    np.testing.assert_equal(_local_array(cubridge.jit), np.concatenate([x[::-1], 2 * x]))


@pytest.mark.gpu
@pytest.mark.parametrize("run", [_span_members, _span_difference, _span_sum, _numba_code, _local_array])
def test_values_match_numba_cuda(run):
    if not hasattr(numba_cuda, "CUSource"):
        pytest.skip("this numba.cuda is numba's old built-in target, not numba-cuda")
    np.testing.assert_equal(run(cubridge.jit), run(numba_cuda.jit))
