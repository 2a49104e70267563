"""Arguments bound at compile time, as numba types them: a device function called with a number type, an
intrinsic (cuda.atomic.add), another device function or an integer constant is compiled for that value
(numba-cuda's test_atomics passes all four to one helper). The rules:

1. a number type (numba.uint32, np.float32) bound to a parameter is a type inside the callee: a dtype of
   cuda.shared.array / local.array, or a cast `dtype(x)`;
2. an intrinsic or a device function bound to a parameter is called through it (`op(a, i, v)`);
3. an integer constant or a tuple of them bound to a parameter the callee never assigns is a constant inside
   it: a shape, an index, a divisor (numba retries such an argument as a literal);
4. compile-time parameters pass on to further helpers; each distinct binding is its own specialisation;
5. a parameter the callee assigns stays a run-time value;
6. a string or bytes literal bound to a parameter is that literal inside the callee (numba's StringLiteral):
   `p == "..."` / `p != "..."` against a literal of the same kind is decided when compiled (numba compares the
   two constants at run time: the same answer); print(p) prints it; any other use is refused as strings are.
Values against numba-cuda on the GPU: parity/kernels_static_arguments.py, test_jit_static_arguments_gpu.py."""
import os
import sys

import numpy as np
import pytest

import cubridge
from conftest import assembled_ptx

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity import kernels_static_arguments as kernels  # noqa: E402

CC = (8, 0)


def _ptx(fn, sig):
    return assembled_ptx(fn, sig, CC)


def test_types_intrinsics_functions_and_constants_as_arguments():
    # parity/kernels_static_arguments.py: _shared_apply(ary, idx, value, dtype, n, op, cast) called with
    # (uint32, 32, cuda.atomic.add, _cast_none) and (float64, 32, cuda.atomic.max, _to_int).
    ptx = _ptx(kernels.static_add_u32, "void(uint32[::1], int64[::1])")
    assert "atom.shared.add.u32" in ptx and ".shared .align 16 .b8" in ptx and "[128]" in ptx  # 32 uint32
    ptx = _ptx(kernels.static_max_f64, "void(float64[::1], float64[::1])")
    assert "atom.shared.cas.b64" in ptx and "[256]" in ptx  # 32 float64


@cubridge.jit(device=True)
def local_of(shape, dtype):
    a = cubridge.local.array(shape, dtype)
    a[0, 0] = 3
    return a[0, 0] + a.size


def tuple_shape(r):
    r[0] = local_of((2, 3), np.int16)


def test_a_tuple_constant_is_a_shape():
    _ptx(tuple_shape, "void(int64[::1])")


@cubridge.jit(device=True)
def passes_on(ary, dtype, op):
    inner(ary, dtype, op)


@cubridge.jit(device=True)
def inner(ary, dtype, op):
    op(ary, 0, dtype(7))


def two_levels(ary):
    passes_on(ary, np.int32, cubridge.atomic.xor)


def test_compile_time_parameters_pass_on():
    assert "atom.global.xor.b32" in _ptx(two_levels, "void(int32[::1])")


@cubridge.jit(device=True)
def counts_down(n):
    total = 0
    while n > 0:
        total += n
        n -= 1
    return total


def assigned(r):
    r[0] = counts_down(4)


def test_an_assigned_parameter_stays_a_value():
    _ptx(assigned, "void(int64[::1])")


@cubridge.jit(device=True)
def shape_from_argument(n):
    a = cubridge.local.array(n, np.float32)
    return a.size


def run_time_shape(r, n):
    r[0] = shape_from_argument(n)


def test_a_run_time_value_as_a_shape_is_still_refused():
    with pytest.raises(cubridge.CompileError, match="the shape must be an integer constant"):
        cubridge.compile_ptx(run_time_shape, "void(int64[::1], int64)", cc=CC)


def _closure_dtype():
    import numba
    size = 64
    nbtype = numba.float32  # numba-cuda's test_freevar: a numba type object in a closure

    def freevar(A, i):
        sdata = cubridge.shared.array(size, dtype=nbtype)
        A[i] = sdata[i]
    return freevar


def test_a_numba_type_object_in_a_closure_is_a_dtype():
    pytest.importorskip("numba")
    assert ".shared .align 16 .b8" in _ptx(_closure_dtype(), "void(float32[::1], int64)")



# A local variable with one definition, `N = <integer constant>`, is a constant where one is needed (numba's
# find_const through get_definition: numba-cuda's test_sync simple_smem); a second definition, an augmented
# assignment, a parameter or a tuple unpacking makes it a run-time value.
def shape_from_a_local(ary):
    N = 100
    sm = cubridge.shared.array(N, np.int32)
    i = cubridge.grid(1)
    if i == 0:
        for j in range(N):
            sm[j] = j
    cubridge.syncthreads()
    ary[i] = sm[i]


def shape_from_a_chain_of_locals(ary):
    M = 3
    N = M * 2 + 1
    lm = cubridge.local.array((N, M), np.float32)
    lm[0, 0] = 1.0
    ary[0] = lm[0, 0]


def shape_from_a_redefined_local(ary):
    N = 100
    if ary[0] > 0:
        N = 50
    sm = cubridge.shared.array(N, np.int32)
    ary[0] = sm[0]


def shape_from_an_augmented_local(ary):
    N = 100
    N += 1
    sm = cubridge.shared.array(N, np.int32)
    ary[0] = sm[0]


def shape_from_an_unpacked_local(ary):
    N, M = 4, 5
    sm = cubridge.shared.array(N, np.int32)
    ary[0] = sm[0]


def test_a_local_assigned_one_constant_once_is_a_shape():
    assert "_cudapy_smem_0[400]" in _ptx(shape_from_a_local, "void(int32[::1])")
    _ptx(shape_from_a_chain_of_locals, "void(float32[::1])")


@pytest.mark.parametrize("fn", [shape_from_a_redefined_local, shape_from_an_augmented_local,
                                shape_from_an_unpacked_local])
def test_a_local_with_another_definition_is_not_a_shape(fn):
    with pytest.raises(cubridge.CompileError, match="the shape must be an integer constant or a tuple of them .*a "
                                                    "local variable assigned one constant once"):
        cubridge.compile_ptx(fn, "void(int32[::1])")


def load_text(gmem, value):
    if value == "1":
        gmem[0] = 1.0
    else:
        gmem[0] = 0.0


def load_bytes(gmem, value):
    if value != b"on":
        gmem[0] = 2.0


def k_text_1(buff):
    load_text(buff, "1")


def k_text_2(buff):
    load_text(buff, "2")


def k_bytes(buff):
    load_bytes(buff, b"on")


def _llvm(fn, sig="void(float32[::1])"):
    return cubridge.compile(fn, sig, device=False, abi="numba", cc=CC, output="llvm")[0]


@pytest.mark.parametrize("kernel, decided", [(k_text_1, "true"), (k_text_2, "false"), (k_bytes, "false")])
def test_a_string_literal_argument_is_compared_when_compiled(kernel, decided):
    ir = _llvm(kernel)
    assert f"br i1 {decided}, label %then." in ir
    _ptx(kernel, "void(float32[::1])")  # and libNVVM and ptxas take it


def test_each_text_is_its_own_specialisation():
    def k(buff):
        load_text(buff, "1")
        load_text(buff, "2")
    ir = _llvm(k)
    assert "br i1 true, label %then." in ir and "br i1 false, label %then." in ir


def _show(value):
    print("value:", value)


def test_print_of_a_string_argument_prints_the_text():
    def k():
        _show("hello")
    ir = _llvm(k, "void()")
    assert r'c"value:\00"' in ir and r'c"hello\00"' in ir  # each string printed as a %s


def _use_as_value(gmem, value):
    gmem[0] = len(value)


def _compare_kinds(gmem, value):
    if value == b"1":
        gmem[0] = 1.0


def k_use_as_value(buff):
    _use_as_value(buff, "abc")


def k_compare_kinds(buff):
    _compare_kinds(buff, "1")


@pytest.mark.parametrize("kernel", [k_use_as_value, k_compare_kinds])
def test_other_uses_of_a_string_argument_are_refused(kernel):
    with pytest.raises(cubridge.CompileError, match="strings are not supported as values"):
        _llvm(kernel)
