"""print() on a GPU: each kernel runs through numba-cuda and through cubridge, and the text the driver
prints is the same. The driver writes printf output to the process's stdout (fd 1) when the context
synchronises; C stdio may hold it in its buffer, so the test flushes it before reading (pytest's capfd).
Threads print in no fixed order, so the lines are compared sorted."""
import ctypes
import warnings

import numpy as np
import re

import pytest
from numba import cuda

import cubridge

pytestmark = [pytest.mark.gpu, pytest.mark.real_driver]


def ints(x):
    i = cuda.grid(1)
    print(i, 999, -42, x)


def numbers(i32, u64, f16, f32, f64):
    print(i32, u64, f16, f32, f64)


def strings():
    i = cuda.grid(1)
    print(i, "hop!", "100%", "tab\there", 'quote"s')


def bools(x):
    print(True, False, x == 0, x != 0)


def tuples(x):
    i = cuda.grid(1)
    print((i, 2.5), (x,), ((1, 2), (3.0, (4,))))


def dim3():
    print(cuda.threadIdx, cuda.blockIdx)


def empty():
    print()


@cuda.jit(device=True)
def say(v):
    print("helper", v)
    return v


def from_device_function(x):
    say(x + 1)


def too_many(x):
    print(x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x)


CASES = [
    (ints, 2, 3, (np.int64(-7),)),
    (numbers, 1, 1, (np.int32(-123), np.uint64(2**64 - 1), np.float16(0.5), np.float32(34.75), np.float64(-1.5e-3))),
    (strings, 1, 3, ()),
    (bools, 1, 1, (np.int64(0),)),
    (bools, 1, 1, (np.int64(5),)),
    (tuples, 1, 2, (np.int64(11),)),
    (dim3, 2, (2, 2, 2), ()),
    (empty, 1, 2, ()),
    (from_device_function, 1, 2, (np.int64(41),)),
    (too_many, 1, 1, (np.int64(3),)),
]


def _printed(capfd, jit, fn, grid, block, args):
    capfd.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba-cuda warns about more than 32 print() arguments
        jit(fn)[grid, block](*args)
    cuda.synchronize()  # numba-cuda and cubridge share the device's primary context
    ctypes.CDLL(None).fflush(None)
    return sorted(capfd.readouterr().out.splitlines())


@pytest.mark.parametrize("fn, grid, block, args", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_printed_text_matches_numba_cuda(capfd, fn, grid, block, args):
    theirs = _printed(capfd, cuda.jit, fn, grid, block, args)
    ours = _printed(capfd, cubridge.jit, fn, grid, block, args)
    assert theirs, "numba-cuda printed nothing; the capture does not work here"
    assert ours == theirs


def test_the_text_is_python_like(capfd):
    """What numba-cuda prints, spelt out for one kernel (so a change on both sides is noticed too)."""
    ours = _printed(capfd, cubridge.jit, tuples, 1, 2, (np.int64(11),))
    assert ours == ["(0, 2.500000) (11,) ((1, 2), (3.000000, (4,)))", "(1, 2.500000) (11,) ((1, 2), (3.000000, (4,)))"]


TOO_MANY_PROGRAM = """\
import numpy as np
if not hasattr(np, "row_stack"):  # numba-cuda 0.30 with numpy 2.5
    np.row_stack = np.vstack
import {module} as m

@{jit}
def print_too_many(r):
    print(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10],
          r[11], r[12], r[13], r[14], r[15], r[16], r[17], r[18], r[19], r[20],
          r[21], r[22], r[23], r[24], r[25], r[26], r[27], r[28], r[29], r[30],
          r[31], r[32])

print_too_many[1, 1](np.arange(33))
{sync}
"""


def test_too_many_arguments_from_python_dash_c_as_numba_cuda():
    """numba-cuda's test_print.test_too_many_args: a kernel with no source file (python -c) printing 33 items
    prints its raw format string and warns, through numba-cuda and through cubridge alike."""
    import subprocess
    import sys
    outs = []
    for module, jit, sync in (("numba.cuda", "m.jit", "m.synchronize()"),
                              ("cubridge", "m.jit", "m.current_context().synchronize()")):
        program = TOO_MANY_PROGRAM.format(module=module, jit=jit, sync=sync)
        r = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert " ".join(["%lld"] * 33) in r.stdout
        # numba's warnings may be highlighted (ANSI bold) where its colour scheme says so
        assert "CUDA print() cannot print more than 32 items. The raw format string will be emitted by the " \
               "kernel instead." in re.sub(r"\x1b\[[0-9;]*m", "", r.stderr)
        outs.append(r.stdout)
    assert outs[0] == outs[1]
