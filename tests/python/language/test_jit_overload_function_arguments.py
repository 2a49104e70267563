"""Functions passed to a numba @overload'ed function (numba-cuda's test_make_function_to_jit_function
test_basic_apply_like_case and test_with_overload), without a GPU. The rules (cubridge._passed_functions):

1. A nested def passed to an @overload'ed function reaches the overload function as numba's Dispatcher type
   of a jitted function made from the nested def's code (numba's MakeFunctionToJitFunction), and the
   implementation it returns calls it, with the encloser's constants folded.
2. Each function passed is its own resolution: two functions passed to one overloaded function ask the
   overload function twice, each with its own Dispatcher; the same function passed twice asks once.
3. *args overloads see the function and the other arguments' types (one call per arity).
4. A module-level device function passed is typed the same way (its own Python function inside).
5. The function values are the Python program's (GPU: values compared with numba-cuda's).
"""
import re

import numpy as np
import pytest

import cubridge

pytest.importorskip("numba.core.extending", reason="numba is not installed")
from test_jit_overloads import overload, types  # noqa: E402  (numba-cuda's extension API where installed)


def apply(arg, func):
    return func(arg)


asked: list = []


@overload(apply)
def _ol_apply(arg, func):
    asked.append((arg, func))
    return lambda arg, func: func(arg)


def _ir(impl):
    """The NVVM IR of a kernel calling `impl` (compiled as a device function), as numba-cuda's test runs it."""
    jitted = cubridge.jit(device=True, cache=False)(impl)

    def kernel(out, in1):
        out[0] = jitted(in1)
    sig = "void(int64[::1], int64)"
    return cubridge.jit(sig, cache=False)(kernel).inspect_llvm(sig)


def impl_apply(arg):
    def mul10(x):
        return x * 10
    return apply(arg, mul10)


def test_a_nested_def_reaches_the_overload_as_a_dispatcher_type():
    asked.clear()
    ir = _ir(impl_apply)
    assert asked and all(a == asked[0] for a in asked)  # (compiled for the kernel and for its IR) the same type
    arg, func = asked[0]
    assert arg == types.int64
    assert isinstance(func, types.Dispatcher)
    code = func.dispatcher.py_func.__code__
    assert (code.co_name, code.co_firstlineno) == ("mul10", impl_apply.__code__.co_firstlineno + 1)
    assert re.search(r"mul (nsw )?i64 %\S+, 10", ir), ir  # the nested body, compiled into the implementation


def impl_two(arg):
    def add1(x):
        return x + 1

    def sub1(x):
        return x - 1
    return apply(arg, add1) + apply(arg, sub1) + apply(arg, add1)


def test_each_function_passed_is_its_own_resolution():
    asked.clear()
    ir = _ir(impl_two)
    names = {func.dispatcher.py_func.__name__: func for _, func in asked}
    assert sorted(names) == ["add1", "sub1"], names
    assert len({id(f) for _, f in asked}) == 2  # add1 passed twice: one type
    assert ir


def foo(func, *args):
    return func(*args) if len(args) == 1 else func(func(*args))


arities: list = []


@overload(foo)
def _ol_foo(func, *args):
    arities.append((func, args))
    if len(args) == 1:
        def impl(func, *args):
            return func(*args)
        return impl
    if len(args) == 2:
        def impl(func, *args):
            return func(func(*args))
        return impl


_global = 20


def impl_with_star_args(x):
    y = 10

    def callinner(*z):
        if len(z) == 1:
            tmp = z[0]
        elif len(z) == 2:
            tmp = z[0] + z[1]
        return y + tmp + _global
    return foo(callinner, x) + foo(callinner, x, x)


def test_star_args_overloads_see_the_function_and_each_arity():
    arities.clear()
    _ir(impl_with_star_args)
    assert sorted({len(args) for _, args in arities}) == [1, 2]
    assert all(isinstance(f, types.Dispatcher) for f, _ in arities)
    assert (types.int64, types.int64) in [args for _, args in arities]


@cubridge.jit(device=True)
def triple(x):
    return x * 3


def impl_module_function(arg):
    return apply(arg, triple)


def test_a_module_device_function_passed_is_typed_as_a_dispatcher():
    asked.clear()
    ir = _ir(impl_module_function)
    func = asked[0][1]
    assert isinstance(func, types.Dispatcher) and func.dispatcher.py_func is triple.py_func
    assert re.search(r"mul (nsw )?i64 %\S+, 3", ir), ir


def _run(jit, impl, x):
    jitted = jit(impl)

    def kernel(out, a):
        out[0] = jitted(a)
    out = np.zeros(1, dtype=np.int64)
    jit(kernel)[1, 1](out, x)
    return int(out[0])


@pytest.mark.gpu
@pytest.mark.parametrize("impl", [impl_apply, impl_two, impl_with_star_args, impl_module_function],
                         ids=lambda f: f.__name__)
def test_values_are_pythons_and_numba_cudas(impl):
    expected = impl(5) if impl is not impl_module_function else apply(5, triple.py_func)  # triple runs on the GPU
    assert _run(cubridge.jit, impl, 5) == expected
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    if not hasattr(numba_cuda, "CUSource"):
        pytest.skip("this numba.cuda is numba's old built-in target, not numba-cuda")
    if impl is impl_module_function:
        pytest.skip("triple is a cubridge device function, which numba-cuda does not call")
    assert _run(cubridge.jit, impl, 5) == _run(numba_cuda.jit, impl, 5)
