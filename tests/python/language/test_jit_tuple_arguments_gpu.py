"""Tuples as kernel arguments on the GPU, beside numba-cuda on the same inputs (the cases of numba-cuda's
test_array_args): each kernel runs through numba-cuda's cuda.jit and through cubridge.jit on copies of the
same host arrays, and the outputs are compared."""
import numpy as np
import pytest

import cubridge
from test_jit_tuple_arguments import adds_arrays as arrays, nested, reads_fields as named, reads_three as unituple


def mixed(r1, r2, x):
    r1[0] = x[0]
    r1[1] = x[1]
    r1[2] = x[2]
    r2[0] = x[3]
    r2[1] = x[4]
    r2[2] = x[5]


def empty(r, x):
    r[0] = len(x)


def empties(r, x):
    r[0] = len(x)
    r[1] = len(x[0])


def tuple_and_scalar(r, x):
    r[0] = len(x)
    r[1] = len(x[0])
    r[2] = x[0][0]
    r[3] = x[0][1]
    r[4] = x[0][2]
    r[5] = x[1]


def array_scalar_tuple(r, x):
    r[0] = x[0][0]
    r[1] = x[0][1]
    r[2] = x[1]
    r[3] = x[2][0]
    r[4] = x[2][1]


CASES = [
    ("unituple", unituple, lambda: (np.zeros(3, np.int64), (1, 2, 3))),
    ("mixed", mixed, lambda: (np.zeros(3, np.int64), np.zeros(3), (1, 2, 3, 4.5, 5.5, 6.5))),
    ("nested", nested, lambda: (np.ones(9, np.int64), ((), (5, 6), (8, 9, 10)))),
    ("empty", empty, lambda: (np.ones(1, np.int64), ())),
    ("empties", empties, lambda: (np.ones(2, np.int64), ((), (), ()))),
    ("tuple_and_scalar", tuple_and_scalar, lambda: (np.ones(9, np.int64), ((6, 5, 4), 7))),
    ("array_scalar_tuple", array_scalar_tuple, lambda: (np.zeros(5, np.int64), (2 * np.arange(2), 10, (4, 3)))),
    ("arrays", arrays, lambda: ((np.zeros(10), np.ones(10), np.ones(10) * 3),)),
]


def _outputs(args):
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            out.append(a)
        elif isinstance(a, tuple):
            out.extend(_outputs(a))
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("name, fn, make", CASES, ids=[c[0] for c in CASES])
def test_tuple_arguments_match_numba_cuda(name, fn, make):
    ours = make()
    block = 10 if name == "arrays" else 1
    cubridge.jit(fn)[1, block](*ours)
    try:
        from numba import cuda as numba_cuda
        numba_cuda.get_current_device()
    except Exception as e:  # noqa: BLE001 - numba-cuda missing or without a usable device
        pytest.skip(f"numba-cuda is not usable here: {e}")
    theirs = make()
    # numba-cuda's kernel language spells grid() as cuda.grid: the same function object, rebound.
    g = dict(fn.__globals__, cubridge=numba_cuda)
    twin = type(fn)(fn.__code__, g, fn.__name__)
    numba_cuda.jit(twin)[1, block](*theirs)
    for o, t in zip(_outputs(ours), _outputs(theirs)):
        np.testing.assert_array_equal(o, t)


@pytest.mark.gpu
def test_tuple_arguments_give_numba_cudas_documented_values():
    """The values numba-cuda's test_array_args asserts, without numba-cuda."""
    r, x = np.ones(9, np.int64), ((), (5, 6), (8, 9, 10))
    cubridge.jit(nested)[1, 1](r, x)
    assert r.tolist() == [3, 0, 2, 3, 5, 6, 8, 9, 10]
    x = (np.zeros(10), np.ones(10), np.ones(10) * 3)
    cubridge.jit(arrays)[1, 10](x)
    np.testing.assert_array_equal(x[0], x[1] + x[2])


@pytest.mark.gpu
def test_a_namedtuple_argument_matches_numba_cuda():
    from collections import namedtuple
    Point = namedtuple("Point", ("x", "y", "r"))
    ours = (np.zeros(2, np.int64), np.zeros(1), Point(1, 2, 2.236))
    cubridge.jit(named)[1, 1](*ours)
    assert ours[0].tolist() == [1, 2] and ours[1][0] == 2.236  # numba-cuda's test_namedtuple asserts these
    try:
        from numba import cuda as numba_cuda
        numba_cuda.get_current_device()
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"numba-cuda is not usable here: {e}")
    theirs = (np.zeros(2, np.int64), np.zeros(1), Point(1, 2, 2.236))
    numba_cuda.jit(named)[1, 1](*theirs)
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])
