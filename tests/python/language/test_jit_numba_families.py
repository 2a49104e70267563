"""Constructs of numba-cuda's kernel language that cubridge refused before the peer suite (issue 21, item 2),
without a GPU: each compiles to the instructions numba-cuda's lowering uses and ptxas assembles it, and a
misuse is refused by name. Values are compared with numba-cuda's on the GPU in parity/kernels_numba_families.py.
The rules, family by family (numba-cuda 0.30's cudaimpl.py, cudamath.py, mathimpl.py, intrinsics.py):

- cuda.atomic.nanmax / nanmin: on integers they are max / min (atom.max); on floats a compare-and-swap loop
  in which a NaN value leaves the element alone and a NaN element is replaced;
- atomics (and indexing) with a tuple of indices held in a variable: `idx = (i, j); cuda.atomic.add(a, idx, v)`;
- `.real` / `.imag` of a complex array: a strided view of one component (layout 'A'), writable, so atomics
  work on components; `.real` of a real array is the array; `.imag` of a real array is refused;
- `i.bit_count()` on an integer: cuda.popc(i) in i's type;
- math.frexp -> (float, int32), math.modf -> (float, float), math.remainder, math.nextafter: libdevice's;
- complex ** complex, pow(complex, complex) and x **= y: numba-cuda's cpow_internal, compiled with the kernel;
- cuda.nanosleep(ns); shared/local shapes from global or closure tuples; self-recursion with a declared
  return type (a real call) and its refusal without one;
- a function renamed through __name__ after exec is found by its code object's name.
"""
import math

import pytest

import cubridge
from conftest import assembled_ptx

CC = (8, 0)


def _ptx(fn, sig):
    return assembled_ptx(fn, sig, CC)


def nan_extremes(res, ary):
    i = cubridge.threadIdx.x
    cubridge.atomic.nanmax(res, 0, ary[i])
    cubridge.atomic.nanmin(res, 1, ary[i])


@pytest.mark.parametrize("dtype, instruction", [("int32", "atom.global.max.s32"), ("uint64", "atom.global.max.u64"),
                                                ("float32", "atom.global.cas.b32"),
                                                ("float64", "atom.global.cas.b64")])
def test_atomic_nanmax_nanmin(dtype, instruction):
    assert instruction in _ptx(nan_extremes, f"void({dtype}[::1], {dtype}[::1])")


def nan_extreme_complex(res, v):
    cubridge.atomic.nanmax(res, 0, v)


def test_atomic_nanmax_refuses_what_max_refuses():
    with pytest.raises(cubridge.CompileError, match=r"nanmax\(\) on an array of int16 is not supported"):
        cubridge.compile_ptx(nan_extreme_complex, "void(int16[::1], int16)", cc=CC)


def atomic_tuple_variable(ary):
    at = (cubridge.threadIdx.x, cubridge.threadIdx.y)
    cubridge.atomic.add(ary, at, 1)
    cubridge.atomic.cas(ary, at, 1, 2)
    ary[at] += 1


def test_a_tuple_of_indices_in_a_variable_indexes_one_element():
    ptx = _ptx(atomic_tuple_variable, "void(uint32[:, ::1])")
    assert "atom.global.add.u32" in ptx and "atom.global.cas.b32" in ptx


def view_through_tuple_variable(r, x):
    at = (1,)
    row = x[at]
    r[0] = row[2]


def test_a_shorter_tuple_variable_gives_a_view():
    _ptx(view_through_tuple_variable, "void(float32[::1], float32[:, ::1])")


def store_view_through_tuple_variable(x):
    at = (1,)
    x[at] = 0


def test_a_store_through_a_shorter_tuple_variable_is_refused():
    with pytest.raises(cubridge.CompileError, match="a tuple index held in a variable must name one element"):
        cubridge.compile_ptx(store_view_through_tuple_variable, "void(float32[:, ::1])", cc=CC)


def atomic_on_components(values):
    i = cubridge.grid(1)
    cubridge.atomic.add(values.real, i, 1)
    cubridge.atomic.add(values.imag, i, 2)


def test_atomics_on_the_components_of_a_complex_array():
    ptx = _ptx(atomic_on_components, "void(complex128[::1])")
    assert ptx.count("atom.global.add.f64") == 2


def components(r, values):
    re = values.real
    im = values.imag
    r[0] = re[1, 2] + im[1, 2] * 10
    values.imag[0, 0] = re[0, 0]


def test_real_and_imag_of_arrays_are_component_views():
    # A 2-d complex64 array: each component is a float32 view with the array's strides.
    ptx = _ptx(components, "void(float32[::1], complex64[:, ::1])")
    assert "ld.global.f32" in ptx and "st.global.f32" in ptx and "ld.global.v2.f32" not in ptx


def real_of_real(r, values):
    r[0] = values.real[0]


def test_real_of_a_real_array_is_the_array():
    _ptx(real_of_real, "void(float64[::1], float64[::1])")


def imag_of_real(values):
    values.imag[0] = 1.0


def test_imag_of_a_real_array_is_refused():
    with pytest.raises(cubridge.CompileError, match=r"the .imag of a real array is a new array of zeros"):
        cubridge.compile_ptx(imag_of_real, "void(float64[::1],)", cc=CC)


def bit_count(c):
    return c.bit_count()


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int32", "uint64"])
def test_int_bit_count_is_popc(dtype):
    ptx, resty = cubridge.compile(bit_count, f"({dtype},)", device=True, abi="c", cc=CC)
    assert str(resty) == dtype and "popc.b" in ptx


def test_bit_count_of_a_float_is_refused():
    with pytest.raises(cubridge.CompileError, match=r"bit_count\(\) is a method of integers"):
        cubridge.compile(bit_count, "(float32,)", device=True, abi="c", cc=CC)


def frexp(x):
    return math.frexp(x)


def modf(x):
    return math.modf(x)


def remainder(x, y):
    return math.remainder(x, y)


def nextafter(x, y):
    return math.nextafter(x, y)


@pytest.mark.parametrize("fn, sig, result", [
    (frexp, "(float32,)", "Tuple(float32, int32)"), (frexp, "(float64,)", "Tuple(float64, int32)"),
    (frexp, "(int8,)", "Tuple(float32, int32)"), (modf, "(int8,)", "UniTuple(float64 x 2)"),
    (modf, "(float32,)", "UniTuple(float32 x 2)"), (remainder, "(float32, float32)", "float32"),
    (nextafter, "(float64, int64)", "float64")])
def test_math_frexp_modf_remainder_nextafter_types(fn, sig, result):
    ptx, resty = cubridge.compile(fn, sig, device=True, abi="numba", cc=CC)
    assert str(resty) == result
    assert cubridge.ptxas_check(ptx, CC)


def power(r, x, y):
    i = cubridge.grid(1)
    r[i] = x[i] ** y[i]
    r[i] += pow(x[i], y[i])


@pytest.mark.parametrize("dtype, impl", [("complex64", "__cpow_c64"), ("complex128", "__cpow_c128")])
def test_complex_power_compiles_numba_cudas_cpow(dtype, impl):
    sig = f"void({dtype}[::1], {dtype}[::1], {dtype}[::1])"
    _ptx(power, sig)
    ir = cubridge._compiler._compile_result(power, sig, device=False, abi="numba", cc=CC).nvvm_ir
    assert ir.count(f"call i32 @") >= 2 and impl in ir  # both ** and pow() call the prelude's cpow


def power_in_place(r, x):
    v = r[0]
    v **= x[0]
    r[0] = v
    r[1] **= x[1]


def test_in_place_complex_power_calls_cpow_too():
    sig = "void(complex64[::1], complex64[::1])"
    _ptx(power_in_place, sig)
    ir = cubridge._compiler._compile_result(power_in_place, sig, device=False, abi="numba", cc=CC).nvvm_ir
    assert ir.count("call i32 @") >= 2 and "__cpow_c64" in ir


def sleeps(x):
    cubridge.nanosleep(32)
    cubridge.nanosleep(x)


def test_nanosleep_is_the_ptx_instruction():
    # numba-cuda's test_compiler.test_nanosleep: one nanosleep.u32 per call.
    ptx = _ptx(sleeps, "void(uint32)")
    assert sum("nanosleep.u32" in line for line in ptx.splitlines()) == 2


def sleeps_complex(x):
    cubridge.nanosleep(x)


def test_nanosleep_refuses_a_complex_duration():
    with pytest.raises(cubridge.CompileError, match=r"nanosleep\(ns\): the duration must be a number of nanoseconds"):
        cubridge.compile_ptx(sleeps_complex, "void(complex64)", cc=CC)


SM_SIZE = 4, 8


def shared_from_global_tuple(r):
    sm = cubridge.shared.array(SM_SIZE, cubridge.float32)
    sm[1, 2] = 1.0
    r[0] = sm[1, 2] + sm.shape[1]


def _closure_shape():
    shape = (3, 5)

    def local_from_closure_tuple(r):
        a = cubridge.local.array(shape, cubridge.int32)
        a[2, 4] = 7
        r[0] = a[2, 4] + a.size
    return local_from_closure_tuple


def test_array_shapes_from_global_and_closure_tuples():
    _ptx(shared_from_global_tuple, "void(float32[::1])")
    _ptx(_closure_shape(), "void(int32[::1])")


def _declared_fib(sigs):
    @cubridge.jit(sigs, device=True)
    def fib(n):
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)
    return fib


def test_self_recursion_with_a_declared_signature_is_a_real_call():
    helper = _declared_fib(["int64(int64)"])

    def kernel(r, n):
        r[0] = helper(n)
    ptx = _ptx(kernel, "void(int64[::1], int32)")
    assert "call.uni" in ptx  # fib calls itself: a real call, not inlined


def test_self_recursion_without_a_declared_return_type_is_inferred():
    # numba types the recursive call from the function's other returns (test_recursion's fib3).
    helper = _declared_fib(["(int64,)"])

    def kernel(r, n):
        r[0] = helper(n)
    ptx = _ptx(kernel, "void(int64[::1], int64)")
    assert "call.uni" in ptx


def _renamed(body):
    namespace = {"cubridge": cubridge}
    exec(body, namespace)
    fn = namespace["fn"]
    fn.__name__ = "renamed_usecase"
    return fn


def test_a_function_renamed_through_dunder_name_is_found_by_its_code_name():
    # numba-cuda's test_ufuncs: exec("def fn(a0, a1): ...") then fn.__name__ = "arccos_usecase".
    kernel = _renamed("def fn(r, x):\n    r[0] = x + 1\n")
    _ptx(kernel, "void(int64[::1], int64)")
    helper = _renamed("def fn(x):\n    return x * 2\n")

    def calls_renamed(r, x):
        r[0] = helper(x)
    _ptx(calls_renamed, "void(int64[::1], int64)")  # was: function 'renamed_usecase' is not defined
