"""raise and assert on a GPU, against numba-cuda: with debug=True the launch waits for the kernel and raises
the kernel's exception on the host, with numba-cuda's message ("In function 'f', file F, line L,
tid=[z, y, x] ctaid=[z, y, x]: <first argument>") and its other arguments; without debug the raising
thread just stops and nothing is raised. Each kernel runs through both compilers and the exceptions'
classes and arguments must be equal.

PYTEST_DONT_REWRITE: pytest rewrites every assert of a test module, the kernels' own asserts included, into
calls numba-cuda cannot type (`_call_reprcompare`); the kernels here must stay as written."""
import re

import numpy as np
import pytest
from numba import cuda

import cubridge

pytestmark = [pytest.mark.gpu, pytest.mark.real_driver]


class BadInput(Exception):
    pass


def raise_at_two(out, x):
    i = cuda.grid(1)
    if i == 2:
        raise ValueError("bad value", 3)
    out[i] = x


def raise_class_alone(out, x):
    i = cuda.grid(1)
    if i == 5:
        raise IndexError
    out[i] = x


def raise_user_class(out, x):
    i = cuda.grid(1)
    if i == 33:
        raise BadInput("block one", 1.5, True)
    out[i] = x


def failing_assert(out, x):
    i = cuda.grid(1)
    assert i != 4, "thread four"
    out[i] = x


def divide(out, x):
    i = cuda.grid(1)
    out[i] = 10 // (x + i - 3)  # only thread 3 divides by zero when x is 0 (the first raiser is recorded)


DEBUG_CASES = [raise_at_two, raise_class_alone, raise_user_class, failing_assert, divide]


def _raised(jit, fn, x, **options):
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    out = cp.zeros(64, np.int64)
    with pytest.raises(Exception) as info:
        jit(**options)(fn)[2, 32](out, x)
    return info.value


@pytest.mark.parametrize("fn", DEBUG_CASES, ids=[f.__name__ for f in DEBUG_CASES])
def test_debug_kernels_raise_on_the_host_as_numba_cuda_does(fn):
    x = 0 if fn is divide else 7
    theirs = _raised(cuda.jit, fn, x, debug=True, opt=False)
    ours = _raised(cubridge.jit, fn, x, debug=True, opt=False)
    assert type(ours) is type(theirs)
    assert ours.args == theirs.args


def test_the_message_names_the_function_line_and_thread():
    e = _raised(cubridge.jit, raise_at_two, 7, debug=True, opt=False)
    line = raise_at_two.__code__.co_firstlineno + 3
    assert isinstance(e, ValueError)
    assert e.args == (f"In function 'raise_at_two', file {__file__}, line {line}, tid=[0, 0, 2] ctaid=[0, 0, 0]: "
                      "bad value", 3)


def test_a_launch_after_a_raise_starts_clean():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    k = cubridge.jit(debug=True, opt=False)(divide)
    out = cp.zeros(64, np.int64)
    with pytest.raises(ZeroDivisionError):
        k[2, 32](out, 0)
    k[2, 32](out, 5)  # no thread raises: no exception
    np.testing.assert_array_equal(out.get(), 10 // (np.arange(64) + 2))


@cuda.jit(device=True)
def helper_raises(v):
    if v > 3:
        raise BadInput("from the helper", 3)  # exception arguments are constants (numba-cuda's rule)
    return v


def calls_raising_helper(out, x):
    i = cuda.grid(1)
    out[i] = helper_raises(x + i)


def test_a_raise_in_a_device_function_reaches_the_host():
    """numba-cuda reports this one wrongly (its issue #8036: a SystemError "unknown error"); cubridge numbers
    raise sites across the module, so the device function's exception arrives as written."""
    e = _raised(cubridge.jit, calls_raising_helper, 0, debug=True, opt=False)
    assert isinstance(e, BadInput)
    assert e.args[0].startswith("In function 'helper_raises', file ")
    # Threads of both blocks raise: the first to record itself may be in either.
    assert re.search(r"tid=\[0, 0, \d+\] ctaid=\[0, 0, [01]\]: from the helper$", e.args[0]), e.args


@pytest.mark.parametrize("fn", [raise_at_two, raise_class_alone, failing_assert],
                         ids=["raise_at_two", "raise_class_alone", "failing_assert"])
def test_without_debug_the_raising_thread_stops_silently(fn):
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    results = []
    for jit in (cuda.jit, cubridge.jit):
        out = cp.full(64, -1, np.int64)
        jit(fn)[2, 32](out, 7)  # no exception
        cp.cuda.Device().synchronize()
        results.append(out.get())
    theirs, ours = results
    np.testing.assert_array_equal(ours, theirs)
    assert (ours == -1).sum() == 1 and (ours == 7).sum() == 63
