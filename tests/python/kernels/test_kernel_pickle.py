"""Pickling kernels and device functions as numba-cuda does (cubridge._function_pickle), compile-only. Rules:
 1. A kernel its module holds under its qualified name pickles by reference: loads gives the same object.
 2. Any other kernel (made inside a function) pickles by value: the unpickled kernel compiles to the same PTX,
    with the device functions of its closure pickled by value too; a pickle of the unpickled kernel works again.
 3. Options and declared signatures travel with it (an eagerly compiled kernel is compiled again on loading).
 4. Modules among its globals travel by name; its other globals and closure values by value.
 5. A GPU array among its globals or closure values is refused with numba-cuda's PicklingError.
 6. Another process unpickles it (the code object as marshal data) and compiles the same PTX.
 7. A configured launch, kernel[griddim, blockdim], pickles as kernel[config] again: its kernel and extents.
GPU launches of unpickled kernels: test_kernel_pickle_gpu in the tests marked gpu at the end."""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import cubridge

SIG = "void(int64[::1])"


@cubridge.jit
def module_kernel(arr):
    arr[0] = 1


def make(offset):
    @cubridge.jit(device=True)
    def inner(a):
        return a + offset

    @cubridge.jit
    def foo(arr):
        arr[0] = inner(arr[0]) + np.int64(2)

    return foo


def test_a_module_level_kernel_pickles_by_reference():
    assert pickle.loads(pickle.dumps(module_kernel)) is module_kernel


def test_a_local_kernel_pickles_by_value_with_its_closure():
    foo = make(40)
    back = pickle.loads(pickle.dumps(foo))
    assert isinstance(back, cubridge.Dispatcher) and back is not foo
    assert back.compile(SIG).ptx == foo.compile(SIG).ptx
    again = pickle.loads(pickle.dumps(back))
    assert again.compile(SIG).ptx == foo.compile(SIG).ptx
    assert "42" in foo.compile(SIG).ptx or "40" in foo.compile(SIG).ptx


def test_options_and_declared_signatures_travel():
    def k(arr):
        arr[0] = 1.0 / arr[0]

    eager = cubridge.jit("void(float32[::1])", fastmath=True, max_registers=40)(k)
    back = pickle.loads(pickle.dumps(eager))
    assert back._options == eager._options
    assert back.signatures == eager.signatures
    assert back.inspect_asm(back.signatures[0]) == eager.inspect_asm(eager.signatures[0])


def test_modules_travel_by_name():
    foo = make(1)
    state = pickle.dumps(foo)
    assert b"numpy" in state and pickle.loads(state).py_func.__globals__["np"] is np


class _DeviceArrayLike:
    __cuda_array_interface__ = {"shape": (1,), "typestr": "<i8", "data": (0, False), "version": 3}


def test_a_gpu_array_among_its_values_is_refused():
    arr = _DeviceArrayLike()

    @cubridge.jit
    def k(out):
        out[0] = arr[0]

    with pytest.raises(pickle.PicklingError, match=r"global device arrays\. Pass the array\(s\) as arguments "
                                                   r"to the kernel instead\. \(closure variable 'arr'"):
        pickle.dumps(k)


def test_another_process_unpickles_and_compiles_the_same_ptx(tmp_path):
    foo = make(7)
    blob = tmp_path / "k.pickle"
    blob.write_bytes(pickle.dumps(foo))
    code = ("import pickle, sys; k = pickle.loads(open(sys.argv[1], 'rb').read()); "
            f"sys.stdout.write(k.compile({SIG!r}).ptx)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code, str(blob)], capture_output=True, text=True, env=env,
                         cwd=os.path.dirname(__file__), timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout == foo.compile(SIG).ptx


def test_a_configured_launch_pickles_as_the_kernel_subscripted_again():
    launch = make(3)[5, (8, 2)]
    back = pickle.loads(pickle.dumps(launch))
    assert isinstance(back, cubridge.KernelLaunch)
    assert (back.griddim, back.blockdim, back.sharedmem) == ((5, 1, 1), (8, 2, 1), 0)
    twice = pickle.loads(pickle.dumps(back))
    assert (twice.griddim, twice.blockdim) == ((5, 1, 1), (8, 2, 1))


@pytest.mark.gpu
def test_kernel_pickle_gpu():
    foo = make(40)
    back = pickle.loads(pickle.dumps(foo))
    a = np.array([100], dtype=np.int64)
    b = a.copy()
    foo[1, 1](a)
    back[1, 1](b)
    assert a[0] == b[0] == 142
    launch = pickle.loads(pickle.dumps(foo[1, 1]))
    launch(b)
    assert b[0] == 142 + 42
