"""Array methods in kernels, as numba-cuda types and lowers them: a.reshape(shape) (an int, a tuple of ints or
several ints; one extent may be -1) and a.view(dtype) are views of the same data; a shape or dtype that does
not fit raises numba's ValueError in the kernel; c.copy() of a captured NumPy array (its shape known when
compiling) is a new writable C array in local memory, outside loops; methods that allocate (a.copy() of an
argument, ...) are refused by name.
No GPU needed: the types, the PTX and the raise sites are checked; test_jit_array_methods_gpu.py runs them."""
import numpy as np
import pytest

import cubridge

CC = (9, 0)


def reshape1d(arr, newshape, got):
    y = arr.reshape(newshape)
    for i in range(y.shape[0]):
        got[i] = y[i]


def reshape3d(arr, newshape, got):
    y = arr.reshape(newshape)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            for k in range(y.shape[2]):
                got[i, j, k] = y[i, j, k]


def reshape_varargs(arr, got):
    y = arr.reshape(2, -1)
    got[0] = y.shape[0]
    got[1] = y.shape[1]
    got[2] = y.strides[0]


def reinterpret(byte_arr, start, stop, output):
    val = byte_arr[start:stop].view(np.int32)[0]
    output[0] = val


def copies(arr, out):
    q = arr.copy()
    out[0] = q[0]


def compiled(fn, *args):
    k = cubridge.jit(fn)
    return k.compile(k._signature_for(args))


@pytest.mark.parametrize("fn, arr, shape", [
    (reshape1d, np.arange(24), (24,)),
    (reshape1d, np.arange(24), 24),
    (reshape1d, np.arange(25).reshape(5, 5), -1),
    (reshape3d, np.arange(24), (8, 1, 3)),
    (reshape3d, np.arange(24).reshape((1, 8, 1, 1, 3, 1)), (5, -1, 5)),
])
def test_reshape_types_as_numba_a_c_array_of_the_shapes_rank(fn, arr, shape):
    ndim = 1 if isinstance(shape, int) else len(shape)
    got = np.zeros((1,) * ndim, arr.dtype)
    k = compiled(fn, arr, shape, got)
    assert k.ptx.count(".entry") == 1
    # numba's two ValueErrors, kept as the kernel's raise sites (code, exception, args, function, file, line)
    raised = {(site[1], a.split(":", 1)[1]) for site in k.raise_sites.values() for a in site[2]}
    assert {("builtins.ValueError", "multiple negative shape values"),
            ("builtins.ValueError", "total size of new array must be unchanged")} <= raised


def test_reshape_with_several_ints_gives_c_strides():
    k = compiled(reshape_varargs, np.arange(6), np.zeros(3, np.int64))
    assert "mul i64" in k.inspect_llvm()


@pytest.mark.parametrize("arr, message", [
    (np.arange(24).reshape(4, 6)[:, ::2], r"reshape\(\) supports contiguous arrays only"),
    (np.asfortranarray(np.arange(24).reshape(4, 6)), r"reshape\(\) of an F-ordered array .* is not supported"),
])
def test_reshape_of_a_non_c_array_is_refused_by_name(arr, message):
    with pytest.raises(cubridge.CompileError, match=message):
        compiled(reshape1d, arr, (24,), np.zeros(24, arr.dtype))


def test_reshape_refuses_a_float_shape_and_the_empty_shape():
    with pytest.raises(cubridge.CompileError, match=r"reshape\(\) takes the new shape as an int, a tuple of ints or "
                                                    r"several ints, got float64"):
        compiled(reshape1d, np.arange(4), 4.0, np.zeros(4, np.int64))
    with pytest.raises(cubridge.CompileError, match=r"reshape\(\(\)\) makes a 0-d array"):
        compiled(reshape1d, np.arange(1), (), np.zeros(1, np.int64))


def test_view_changes_the_dtype_of_a_slice_as_numba_does():
    k = compiled(reinterpret, np.arange(256, dtype=np.uint8), 0, 4, np.zeros(1, np.int32))
    ir = k.inspect_llvm()
    assert "bitcast i8*" in ir and "to i32*" in ir
    assert cubridge.ptxas_check(k.ptx, CC)


def test_view_refuses_what_is_no_number_type():
    def bad(a, out):
        out[0] = a.view(5)[0]
    with pytest.raises(cubridge.CompileError, match=r"array.view\(dtype\): the dtype must be a number type"):
        compiled(bad, np.zeros(4, np.uint8), np.zeros(1, np.int32))


def test_copy_is_refused_by_name_with_the_reason():
    with pytest.raises(cubridge.CompileError, match=r"array.copy\(\) is not supported in kernels: it returns a new "
                                                    r"array, which numba-cuda allocates only with its device memory "
                                                    r"runtime \(NRT"):
        compiled(copies, np.arange(3), np.zeros(1, np.int64))


def test_an_unknown_array_method_names_the_ones_offered():
    def bad(a, out):
        out[0] = a.frobnicate()
    with pytest.raises(cubridge.CompileError, match=r"method 'frobnicate' of an array .* arrays offer "
                                                    r"\.reshape\(shape\), \.view\(dtype\) and the reductions \.all, any, sum"):
        compiled(bad, np.arange(3), np.zeros(1, np.int64))


CAPTURED = np.array([1, 2, 3])[::-1]


def copy_of_captured(out):
    q = CAPTURED.copy()
    q[0] = 7  # the copy is writable and is not the constant
    out[0] = q[0] + CAPTURED[0]  # 7 + 3
    out[1] = q[2] * 10 + q.shape[0]  # 1 * 10 + 3


def copy_of_captured_in_loop(out):
    for i in range(2):
        q = CAPTURED.copy()
        out[i] = q[i]


def test_copy_of_a_captured_array_is_a_writable_local_array():
    from test_jit_numpy_reductions import _double, _stored
    ptx, _ = cubridge.compile_ptx(copy_of_captured, "void(float64[::1])", cc=CC)
    assert {off: _double(v) for off, v in _stored(ptx).items()} == {0: 10.0, 8: 13.0}
    assert cubridge.ptxas_check(ptx, CC)


def test_copy_of_a_captured_array_in_a_loop_is_refused_with_the_reason():
    with pytest.raises(cubridge.CompileError, match=r"array.copy\(\) of the captured array 'CAPTURED' inside a loop is "
                                                    r"not supported: .* copy it before the loop"):
        cubridge.compile_ptx(copy_of_captured_in_loop, "void(float64[::1])", cc=CC)
