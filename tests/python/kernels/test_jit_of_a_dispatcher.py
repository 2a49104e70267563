"""jit applied to a function that is already jitted (numba-cuda's test_analysis.test_issue_5618:
`cres = jit(foo)` with foo a dispatcher, then `cres.py_func(*args)` runs Python). Rules:
 1. jit(d) for a dispatcher d (cubridge's Dispatcher or DeviceFunction, numba-cuda's dispatcher: anything
    whose py_func is a Python function) compiles d.py_func, and the new dispatcher's py_func is that function
    (numba-cuda's dispatcher ends up holding the wrapped dispatcher's py_func), so calling it runs Python.
 2. The new dispatcher takes the options of its own jit call (eager signatures, device=True), not d's.
 3. GPU: the kernel made from jit(jit(f)) computes what f.py_func computes on the host, as numba-cuda's does."""
import types

import numpy as np
import pytest

import cubridge


def store_666(res):
    tmp = 666
    if tmp:
        res[0] = tmp


def twice(x):
    return 2 * x


def test_jit_of_a_kernel_dispatcher_holds_its_python_function():
    again = cubridge.jit(cubridge.jit(store_666))
    assert again.py_func is store_666
    out = np.zeros(1)
    again.py_func(out)
    assert out[0] == 666.0


def test_jit_of_a_device_function_and_device_jit_of_a_kernel():
    helper = cubridge.jit(device=True)(twice)
    assert cubridge.jit(helper).py_func is twice
    assert isinstance(cubridge.jit(helper), cubridge.Dispatcher)
    made = cubridge.jit(device=True)(cubridge.jit(twice))
    assert isinstance(made, cubridge.DeviceFunction) and made.py_func is twice


def test_the_outer_jit_calls_options_apply():
    again = cubridge.jit("void(float64[::1])")(cubridge.jit(store_666))
    assert again.signatures == ["void(float64[::1])"]
    assert again.py_func is store_666


def test_jit_of_numba_cudas_dispatcher_takes_its_py_func():
    cuda = pytest.importorskip("numba.cuda")
    theirs = cuda.jit(store_666)
    again = cubridge.jit(theirs)
    assert again.py_func is store_666 and isinstance(again.py_func, types.FunctionType)


@pytest.mark.gpu
def test_gpu_the_kernel_of_a_rejitted_dispatcher_matches_its_python_function():
    results = []
    jits = [cubridge.jit]
    try:
        from numba import cuda
        jits.append(cuda.jit)
    except ImportError:
        pass
    for jit in jits:
        cres = jit(jit(store_666))
        host, device = np.zeros(1), np.zeros(1)
        cres.py_func(host)
        cres[1, 1](device)
        assert host[0] == device[0] == 666.0
        results.append(device[0])
    assert len(set(results)) == 1
