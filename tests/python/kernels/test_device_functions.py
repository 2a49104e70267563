"""``cubridge.jit(device=True)`` returns numba-cuda's dispatcher of a device function (cubridge.DeviceFunction).
The rules (numba-cuda 0.30: dispatcher.py's device paths; test_device_func, test_fastmath, test_optimization):

1. it wraps the function (``py_func``, ``__name__``, ``__doc__``, ``__wrapped__``) and is called from kernels
   and other device functions as the function was;
2. ``compile_device(args, return_type=None)`` compiles it alone (Numba ABI) once per argument types and returns
   the compiled result (``fndesc.mangled_name`` is its symbol, ``signature`` has the return type resolved),
   kept in ``overloads`` (keyed by argument types) and ``signatures``;
3. ``inspect_asm`` / ``inspect_llvm`` / ``inspect_lto_ptx`` give its PTX, NVVM IR and LTO PTX per signature, a
   dict with none; ``inspect_sass`` raises RuntimeError (a device function has no cubin);
4. its own options shape its code compiled alone: ``opt=False`` keeps the multiply and add apart, ``fastmath``
   gives approximate division;
5. declared signatures (``jit("f8(f8)", device=True)``) are its overloads and what calls are typed against;
   other argument types are refused naming the declared ones;
6. where a kernel calls it: its ``inline``/``forceinline`` choose whether the call stays a call, and its ``link``
   files are linked with the kernel;
7. two decorations of one function keep their own options; one kernel calling both (different options) is
   refused naming both;
8. a call from the host raises ValueError, ``f[grid, block]`` RuntimeError, both naming the function;
9. pickling is by reference (module-level functions), by value for a nested one (test_kernel_pickle.py).

The values are compared with numba-cuda's on the GPU in the tests marked gpu at the end."""
import pickle
import re

import numpy as np
import pytest

import cubridge
from cubridge import float32, float64, int32, int64

CC = (8, 0)


def add(x, y):
    """adds"""
    return x + y


def fused(x, y, z):
    return x * y + z


def divide(x, y):
    return x / y


def _copy(fn):
    import types
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


add_dev = cubridge.jit(device=True)(add)


def _kernel_ptx(body, sig="void(int32[::1])"):
    return cubridge.compile_ptx(body, sig, device=False, abi="numba", cc=CC)[0]


# 1
def test_it_wraps_the_function():
    f = cubridge.jit(device=True)(add)
    assert isinstance(f, cubridge.DeviceFunction)
    assert f.py_func is add and f.__wrapped__ is add
    assert (f.__name__, f.__doc__, f.__qualname__, f.__module__) == ("add", "adds", "add", __name__)
    assert f.targetoptions["device"] is True


def call_add_dev(a):
    a[0] = add_dev(a[1], a[2])


def test_kernels_call_it_as_the_function():
    ptx = _kernel_ptx(call_add_dev)
    assert ".entry" in ptx and re.search(r"add\.s(32|64)", ptx)


# 2
def test_compile_device_compiles_once_per_argument_types():
    f = cubridge.jit(device=True)(_copy(add))
    c = f.compile_device((int32, int32))
    assert f.compile_device((int32, int32)) is c
    assert str(c.signature) == "int64(int32, int32)"  # numba's typing: int32 + int32 is int64
    assert "add" in c.fndesc.mangled_name
    assert f.overloads[(int32, int32)] is c and f.overloads["int64(int32, int32)"] is c
    assert f.signatures == ["int64(int32, int32)"]
    d = f.compile_device((float32, float32), return_type=float64)
    assert str(d.signature) == "float64(float32, float32)"
    assert len(f.overloads) == 2


# 3
def test_inspect_asm_and_llvm_hold_the_compiled_function():
    f = cubridge.jit(device=True)(_copy(add))
    c = f.compile_device((int32, int32))
    ptx = f.inspect_asm((int32, int32))
    assert c.fndesc.mangled_name in ptx and ".func" in ptx and ".entry" not in ptx
    llvm = f.inspect_llvm((int32, int32))
    assert re.search(rf"define [^@]*@{re.escape(c.fndesc.mangled_name)}\(", llvm)
    assert list(f.inspect_asm().values()) == [ptx]


def test_inspect_of_an_uncompiled_signature_says_what_is_compiled():
    f = cubridge.jit(device=True)(_copy(add))
    f.compile_device((int32, int32))
    with pytest.raises(KeyError, match=r"not compiled for .*compiled: int64\(int32, int32\)"):
        f.inspect_asm((float32, float32))


def test_inspect_lto_ptx_never_passes_off_an_empty_module():
    # nvJitLink keeps what a kernel reaches: a device function linked alone is dropped, which is said by name
    f = cubridge.jit(device=True)(_copy(add))
    c = f.compile_device((int32, int32))
    with pytest.raises(RuntimeError, match=rf"device function 'add' lacks its symbol {c.fndesc.mangled_name}"):
        c.inspect_lto_ptx(cc=CC)


def test_inspect_sass_is_refused_as_numba_cuda_refuses_it():
    f = cubridge.jit(device=True)(add)
    with pytest.raises(RuntimeError, match="Cannot inspect SASS of a device function"):
        f.inspect_sass((int32, int32))


# 4
def test_opt_false_keeps_multiply_and_add_apart():
    sig = (float64, float64, float64)
    assert "fma.rn.f64" in cubridge.jit(sig, device=True)(fused).inspect_asm(sig)
    assert "fma.rn.f64" not in cubridge.jit(sig, device=True, opt=False)(fused).inspect_asm(sig)


def test_fastmath_gives_approximate_division():
    sig = (float32, float32)
    assert "div.approx.ftz.f32" in cubridge.jit(sig, device=True, fastmath=True)(divide).inspect_asm(sig)
    precise = cubridge.jit(sig, device=True)(divide).inspect_asm(sig)
    assert "div.rn.f32" in precise and "div.approx" not in precise


# 5
def test_declared_signatures_are_the_overloads():
    f = cubridge.jit("float64(float64, float64)", device=True)(_copy(add))
    assert f.specialized
    assert f.signatures == ["float64(float64, float64)"]
    assert "fadd double" in f.inspect_llvm()[f.signatures[0]]
    assert str(f.compile_device((float64, float64)).signature) == "float64(float64, float64)"
    with pytest.raises(TypeError, match=r"'add' was declared with float64\(float64, float64\)"):
        f.compile_device((int32, int32))


declared_add = cubridge.jit("float64(float64, float64)", device=True)(_copy(add))


def call_declared_add(a):
    a[0] = declared_add(a[1], a[2])


def test_kernels_call_declared_signatures_with_their_arguments_cast():
    ptx = _kernel_ptx(call_declared_add)
    assert "cvt.rn.f64.s32" in ptx and "add.f64" in ptx and "cvt.rzi.s32.f64" in ptx


# 6
never_add = cubridge.jit(device=True, inline="never")(_copy(add))
always_add = cubridge.jit(device=True, forceinline=True)(_copy(add))


def call_never_add(a):
    a[0] = never_add(a[1], a[2])


def call_always_add(a):
    a[0] = always_add(a[1], a[2])


def test_inline_options_choose_whether_the_call_stays():
    llvm_never = cubridge.compile(call_never_add, "void(int32[::1])", device=False, abi="numba", output="llvm")[0]
    llvm_always = cubridge.compile(call_always_add, "void(int32[::1])", device=False, abi="numba",
                                   output="llvm")[0]
    assert re.search(r"define internal i32 @\S*add\(", llvm_never) and re.search(r"call i32 @\S*add\(", llvm_never)
    assert "alwaysinline" not in llvm_never
    assert "alwaysinline" in llvm_always


def test_link_files_of_a_device_function_are_linked_with_the_kernel(tmp_path):
    cu = tmp_path / "extra.cu"
    cu.write_text('extern "C" __device__ int extra_twice(int x) { return 2 * x; }\n')
    helper = cubridge.jit(device=True, link=[str(cu)])(_copy(add))

    def kernel(a):
        a[0] = helper(a[1], a[2])
    k = cubridge.jit(kernel)
    assert k.compile("void(int32[::1])").links == (str(cu),)


# 7
def test_two_decorations_keep_their_own_options():
    fn = _copy(add)
    never = cubridge.jit(device=True, inline="never")(fn)
    plain = cubridge.jit(device=True)(fn)
    assert never is not plain and never.py_func is plain.py_func is fn
    assert never.targetoptions["inline"] == "never" and plain.targetoptions["inline"] is None
    assert never.__cubridge_inline__ == "never" and plain.__cubridge_inline__ is None


def test_a_kernel_calling_both_decorations_is_refused_naming_both():
    fn = _copy(add)
    never = cubridge.jit(device=True, inline="never")(fn)
    plain = cubridge.jit(device=True)(fn)

    def kernel(a):
        a[0] = never(a[1], a[2]) + plain(a[1], a[2])
    with pytest.raises(cubridge.CompileError, match=r"called as a device function made with inline='never'.* and "
                                                    r"as a plain function \(the default options\)"):
        cubridge.compile_ptx(kernel, "void(int32[::1])", device=False, abi="numba", cc=CC)


def test_a_kernel_calling_the_function_plain_and_through_options_is_refused():
    fn = _copy(add)
    never = cubridge.jit(device=True, inline="never")(fn)

    def kernel(a):
        a[0] = fn(a[1], a[2]) + never(a[1], a[2])

    def kernel_reversed(a):
        a[0] = never(a[1], a[2]) + fn(a[1], a[2])
    for k in (kernel, kernel_reversed):  # whichever name is bound first
        with pytest.raises(cubridge.CompileError, match=r"called as (a plain function \(the default options\)|a "
                                                        r"device function made with inline='never'.*) and as (a "
                                                        r"plain function|a device function made with inline='never')"):
            cubridge.compile_ptx(k, "void(int32[::1])", device=False, abi="numba", cc=CC)


def test_a_recursive_device_function_with_a_declared_signature_compiles_alone():
    assert "call" in recursive.inspect_asm((int64,))


@cubridge.jit("int64(int64)", device=True)
def recursive(n):
    if n <= 1:
        return 1
    return n * recursive(n - 1)


def test_decorating_a_device_function_again_takes_its_function():
    again = cubridge.jit(device=True, inline="never")(add_dev)
    assert again.py_func is add and again.targetoptions["inline"] == "never"
    assert add_dev.targetoptions["inline"] is None


# 8
def test_a_host_call_raises_value_error_naming_it():
    with pytest.raises(ValueError, match=r"device function 'add' cannot be called from the host"):
        add_dev(1, 2)


def test_a_launch_raises_runtime_error_as_numba_cuda():
    with pytest.raises(RuntimeError, match=r"Cannot compile a device function as a kernel: 'add'"):
        add_dev[1, 1]
    with pytest.raises(RuntimeError, match=r"Cannot compile a device function as a kernel"):
        add_dev.forall(4)


# 9
@cubridge.jit(device=True)
def pickled(x):
    return x


def test_pickling_is_by_reference():
    assert pickle.loads(pickle.dumps(pickled)) is pickled


def test_pickling_a_nested_device_function_is_by_value():
    def inner(x):
        return x

    f = cubridge.jit(device=True)(inner)
    back = pickle.loads(pickle.dumps(f))
    assert isinstance(back, cubridge.DeviceFunction) and back is not f
    assert back.py_func.__code__.co_code == inner.__code__.co_code


# GPU: values of kernels calling device functions with each option, compared with numba-cuda's
@pytest.mark.gpu
@pytest.mark.parametrize("options", [{}, {"inline": "never"}, {"forceinline": True}, {"opt": False},
                                     {"debug": True, "opt": False}, {"lineinfo": True}])
def test_values_of_kernels_calling_device_functions_match_numba_cuda(options):
    x = np.linspace(1, 2, 64, dtype=np.float32)
    y = np.linspace(3, 5, 64, dtype=np.float32)
    ours = _ours(options, x, y)
    np.testing.assert_array_equal(ours, x / y)
    numba_cuda = pytest.importorskip("numba.cuda")
    np.testing.assert_array_equal(ours, _theirs(numba_cuda, options, x, y))


def _run(jit, grid, options, x, y):
    helper = jit(device=True, **options)(_copy(divide))

    def kernel(r, x, y):
        i = grid(1)
        if i < r.size:
            r[i] = helper(x[i], y[i])
    r = np.zeros_like(x)
    jit(kernel)[1, x.size](r, x, y)
    return r


def _ours(options, x, y):
    return _run(cubridge.jit, cubridge.grid, options, x, y)


def _theirs(cuda, options, x, y):
    return _run(cuda.jit, cuda.grid, options, x, y)
