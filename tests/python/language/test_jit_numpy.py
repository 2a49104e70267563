"""NumPy inside kernels without a GPU: np.pi/np.e/np.inf/np.nan/np.euler_gamma as float64 values, NumPy scalar
casts, and the ufuncs numba-cuda compiles for the GPU (the keys of its CUDA ufunc table, numba/cuda/ufuncs.py)
called on scalars. Result types are numba's: checked against numba's own CUDA typing context for every
argument type where it types the ufunc, and against a few facts measured with numba-cuda 0.30.4 (numba picks
the first of NumPy's loops every argument casts to safely; an integer casts to any float when the arguments
mix integers and floats, so np.maximum(int32, float32) is float32, not NumPy's float64). The ufuncs numba-cuda
cannot compile (np.sqrt, np.exp, np.abs, ...) are refused by name. Values are checked on the GPU by
parity/kernels_numpy.py."""
import numpy as np
import pytest

import cubridge
from numba import cuda

CC = (9, 0)
SCALARS = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32",
           "float64", "complex64", "complex128"]
MIXED = [("int32", "float32"), ("int64", "uint64"), ("float32", "float64"), ("int8", "uint8"), ("bool", "int32"),
         ("int32", "int64"), ("float16", "float32"), ("int64", "float32"), ("uint32", "int32"), ("float32", "complex64"),
         ("int16", "float32"), ("bool", "float32"), ("uint64", "int64"), ("uint8", "float16")]

UNARY = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
         "deg2rad", "radians", "rad2deg", "degrees", "log", "log2", "log10", "isnan", "conjugate", "invert",
         "logical_not"]
BINARY = ["arctan2", "hypot", "greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "logical_and",
          "logical_or", "logical_xor", "maximum", "minimum", "fmax", "fmin", "bitwise_and", "bitwise_or", "bitwise_xor",
          "left_shift", "right_shift", "divide"]
# The complex loops cubridge compiles (test_jit_numpy_complex.py): every one numba-cuda compiles.
COMPLEX_OK = set(UNARY + BINARY)


# One device function per ufunc (the compiler reads each one's source).
def np_sin(x):
    return np.sin(x)


def np_cos(x):
    return np.cos(x)


def np_tan(x):
    return np.tan(x)


def np_arcsin(x):
    return np.arcsin(x)


def np_arccos(x):
    return np.arccos(x)


def np_arctan(x):
    return np.arctan(x)


def np_sinh(x):
    return np.sinh(x)


def np_cosh(x):
    return np.cosh(x)


def np_tanh(x):
    return np.tanh(x)


def np_arcsinh(x):
    return np.arcsinh(x)


def np_arccosh(x):
    return np.arccosh(x)


def np_arctanh(x):
    return np.arctanh(x)


def np_deg2rad(x):
    return np.deg2rad(x)


def np_radians(x):
    return np.radians(x)


def np_rad2deg(x):
    return np.rad2deg(x)


def np_degrees(x):
    return np.degrees(x)


def np_log(x):
    return np.log(x)


def np_log2(x):
    return np.log2(x)


def np_log10(x):
    return np.log10(x)


def np_isnan(x):
    return np.isnan(x)


def np_conjugate(x):
    return np.conjugate(x)


def np_invert(x):
    return np.invert(x)


def np_logical_not(x):
    return np.logical_not(x)


def np_arctan2(x, y):
    return np.arctan2(x, y)


def np_hypot(x, y):
    return np.hypot(x, y)


def np_greater(x, y):
    return np.greater(x, y)


def np_greater_equal(x, y):
    return np.greater_equal(x, y)


def np_less(x, y):
    return np.less(x, y)


def np_less_equal(x, y):
    return np.less_equal(x, y)


def np_equal(x, y):
    return np.equal(x, y)


def np_not_equal(x, y):
    return np.not_equal(x, y)


def np_logical_and(x, y):
    return np.logical_and(x, y)


def np_logical_or(x, y):
    return np.logical_or(x, y)


def np_logical_xor(x, y):
    return np.logical_xor(x, y)


def np_maximum(x, y):
    return np.maximum(x, y)


def np_minimum(x, y):
    return np.minimum(x, y)


def np_fmax(x, y):
    return np.fmax(x, y)


def np_fmin(x, y):
    return np.fmin(x, y)


def np_bitwise_and(x, y):
    return np.bitwise_and(x, y)


def np_bitwise_or(x, y):
    return np.bitwise_or(x, y)


def np_bitwise_xor(x, y):
    return np.bitwise_xor(x, y)


def np_left_shift(x, y):
    return np.left_shift(x, y)


def np_right_shift(x, y):
    return np.right_shift(x, y)


def np_divide(x, y):
    return np.divide(x, y)


def _compile(fn, args):
    _, resty = cubridge.compile(fn, "(" + ", ".join(args) + ",)", device=True, abi="c", cc=CC)
    return str(resty)


def _ours(name, args):
    try:
        return _compile(globals()["np_" + name], args)
    except cubridge.CompileError as e:
        return "refused: " + str(e)


def _numba_typing():
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba is not installed")
    from numba.cuda.descriptor import cuda_target
    if getattr(numba_cuda, "implementation", "") == "NVIDIA":
        from numba.cuda import types
    else:
        from numba.core import types
    ctx = cuda_target.typing_context
    ctx.refresh()
    return ctx, types


def _theirs(ctx, types, name, args):
    try:
        fnty = ctx.resolve_value_type(getattr(np, name))
        sig = ctx.resolve_function_type(fnty, tuple(getattr(types, a) for a in args), {})
    except Exception:  # numba reports a typing failure in several ways
        return None
    return str(sig.return_type) if sig is not None else None


def _cases(name):
    nin = getattr(np, name).nin
    return [(t,) for t in SCALARS] if nin == 1 else [(t, t) for t in SCALARS] + MIXED


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_ufunc_result_types_are_numbas(name):
    """Every argument type: numba's result type, or a refusal where numba refuses too (or where the loop is
    a complex one cubridge does not compile yet, said so in the message)."""
    try:
        ctx, types = _numba_typing()
    except Exception as e:  # noqa: BLE001 - a numba without a CUDA typing context
        pytest.skip(f"numba's CUDA typing context is not usable here: {e}")
    wrong = []
    checked = 0
    for args in _cases(name):
        theirs = _theirs(ctx, types, name, args)
        ours = _ours(name, args)
        if theirs is None:
            if not ours.startswith("refused"):
                # numba 0.68's built-in numba.cuda types fewer ufuncs (no isnan, conjugate, divide) than
                # numba-cuda: only a refusal by both is checked there.
                continue
            checked += 1
            continue
        checked += 1
        if "float16" in args:  # numba types it, numba-cuda's lowering refuses float16 operands
            if not (ours.startswith("refused") and "on float16 is not supported" in ours):
                wrong.append(f"{name}{args}: ours {ours} (expected the float16 refusal)")
            continue
        complex_loop = "complex" in theirs or any(a.startswith("complex") for a in args)
        if complex_loop and name not in COMPLEX_OK:
            if not (ours.startswith("refused") and "the complex loop" in ours):
                wrong.append(f"{name}{args}: numba {theirs}, ours {ours} (expected the complex-loop refusal)")
            continue
        if ours != theirs:
            wrong.append(f"{name}{args}: numba {theirs}, ours {ours}")
    assert not wrong, "\n".join(wrong)
    if not checked:
        pytest.skip(f"this numba's CUDA target does not type np.{name} (numba-cuda does; the measured facts below "
                    "cover it)")


# Facts measured with numba-cuda 0.30.4's CUDA typing (they also hold where numba is not installed).
@pytest.mark.parametrize("name,args,want", [
    ("sin", ("int32",), "float64"),
    ("sin", ("int16",), "float32"),
    ("sin", ("bool",), "float32"),
    ("log", ("uint64",), "float64"),
    ("arctan2", ("int64", "float32"), "float32"),  # mixed int/float: the int casts to any float
    ("maximum", ("int32", "float32"), "float32"),
    ("maximum", ("bool", "int32"), "int32"),
    ("maximum", ("int8", "uint8"), "int16"),
    ("maximum", ("int64", "uint64"), "float64"),
    ("maximum", ("bool", "bool"), "bool"),
    ("greater", ("int64", "uint64"), "bool"),
    ("left_shift", ("bool", "bool"), "int8"),
    ("divide", ("int32", "int32"), "float64"),
    ("divide", ("int8", "int8"), "float32"),
    ("conjugate", ("bool",), "int8"),
    ("conjugate", ("complex64",), "complex64"),
    ("isnan", ("int32",), "bool"),
    ("isnan", ("complex128",), "bool"),
    ("invert", ("uint16",), "uint16"),
    ("logical_xor", ("float32", "complex64"), "bool"),
])
def test_ufunc_result_types_measured_with_numba_cuda(name, args, want):
    assert _ours(name, args) == want


def asin_alias(x):
    return np.asin(x) + np.acos(x) + np.atan(x) + np.atan2(x, x)


def conj_alias(x):
    return np.conj(x) + np.true_divide(x, x)


def shift_aliases(x):
    return np.bitwise_left_shift(x, 1) | np.bitwise_right_shift(x, 1) | np.bitwise_not(x) | np.bitwise_invert(x)


def test_numpy_2_aliases_name_the_same_ufuncs():
    assert _compile(asin_alias, ["float32"]) == "float32"
    assert _compile(conj_alias, ["float64"]) == "float64"
    assert _compile(shift_aliases, ["int32"]) == "int64"  # (int32, int64) takes the qq->q loop


def ufunc_kernel(x, out):
    i = 0
    out[i] = np.sin(x[i]) + np.log(x[i]) + np.maximum(x[i], np.float32(1)) + np.arctan2(x[i], x[i])


def test_ufunc_kernel_ptx_uses_libdevice_and_assembles():
    ptx, _ = cubridge.compile(ufunc_kernel, "void(float32[:], float32[:])", device=False, abi="numba", cc=CC)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    assert "cvt.f64.f32" not in ptx  # every loop here is ff->f: nothing is computed in float64
    assert "sin.approx" not in ptx  # libdevice's accurate sinf, as numba-cuda calls it


# ---- constants ----

def numpy_constants():
    return np.pi, np.e, np.inf, np.nan, np.euler_gamma


def numpy_constant_arith(x):
    return x * np.pi + np.e - np.euler_gamma


def test_numpy_constants_are_float64_values():
    ptx, resty = cubridge.compile(numpy_constants, "()", device=True, abi="c", cc=CC)
    assert str(resty) == "UniTuple(float64 x 5)"
    assert cubridge.ptxas_check(ptx, CC)
    assert _compile(numpy_constant_arith, ["float32"]) == "float64"  # float32 * float64 is float64
    # The exact bits: pi, e and euler_gamma as NumPy holds them.
    for value in (np.pi, np.e, np.euler_gamma):
        assert f"0d{np.float64(value).view(np.uint64):016X}" in ptx


def numpy_newaxis():
    return np.newaxis


def numpy_unknown_constant():
    return np.tau


def test_numpy_attributes_other_than_the_constants_are_refused_by_name():
    with pytest.raises(cubridge.CompileError, match=r"np\.newaxis is not supported as a value in kernels; NumPy's "
                                                    r"constants pi, e, inf, nan and euler_gamma are"):
        cubridge.compile(numpy_newaxis, "()", device=True, abi="c", cc=CC)
    with pytest.raises(cubridge.CompileError, match=r"np\.tau is not supported as a value"):
        cubridge.compile(numpy_unknown_constant, "()", device=True, abi="c", cc=CC)


# ---- casts (already supported before this family: checked here as the NumPy spelling's part) ----

def numpy_casts(x):
    return np.float32(x), np.int64(x), np.uint8(x), np.float16(x), np.complex64(x)


def test_numpy_scalar_casts():
    assert _compile(numpy_casts, ["float64"]) == "Tuple(float32, int64, uint8, float16, complex64)"


# ---- refusals ----

def np_sqrt(x):
    return np.sqrt(x)


def np_abs(x):
    return np.abs(x)


def np_add(x):
    return np.add(x, x)


def np_sin_two(x):
    return np.sin(x, x)


def np_sin_array(a):
    return np.sin(a)


def np_sin_keyword(x):
    return np.sin(x=x)


def test_ufuncs_numba_cuda_cannot_compile_are_refused_by_name():
    # numba types np.sqrt but numba-cuda has no GPU lowering of it (KeyError: <ufunc 'sqrt'> at lowering).
    with pytest.raises(cubridge.CompileError, match=r"np\.sqrt is not supported in kernels \(numba-cuda has no GPU "
                                                    r"code for it; math\.sqrt is supported\); the NumPy functions "
                                                    r"numba-cuda compiles for scalars are: arccos, .*, tanh"):
        _compile(np_sqrt, ["float64"])
    with pytest.raises(cubridge.CompileError, match=r"np\.abs is not supported in kernels; the NumPy functions"):
        _compile(np_abs, ["float64"])
    with pytest.raises(cubridge.CompileError, match=r"np\.add is not supported in kernels"):
        _compile(np_add, ["float64"])


def test_ufunc_bad_calls_are_refused_with_what_is_accepted():
    # a second argument is the output array (np.sin(x, out): test_jit_ufunc_arrays.py)
    with pytest.raises(cubridge.CompileError, match=r"np\.sin\(\): the output must be an array, got float64"):
        _compile(np_sin_two, ["float64"])
    with pytest.raises(cubridge.CompileError, match=r"np\.sin\(\) takes no keyword arguments"):
        _compile(np_sin_keyword, ["float64"])
    with pytest.raises(cubridge.CompileError, match=r"np\.sin\(\) takes numbers here, got array\(float32, 1d, A\)"):
        cubridge.compile(np_sin_array, "(float32[:],)", device=True, abi="numba", cc=CC)
    with pytest.raises(cubridge.CompileError, match=r"no implementation of np\.invert\(float32\); its loops are "
                                                    r"\?->\?, b->b, B->B, h->h, H->H, i->i, I->I, q->q, Q->Q"):
        _compile(np_invert, ["float32"])


def test_float16_arguments_are_refused_as_numba_cuda_does():
    # numba types np.sin(float16) as float32 but numba-cuda's lowering stops at the float16 operand.
    with pytest.raises(cubridge.CompileError, match=r"np\.sin\(\) on float16 is not supported \(numba-cuda cannot "
                                                    r"compile NumPy functions on float16 values\); convert with "
                                                    r"np\.float32\(x\) first"):
        _compile(np_sin, ["float16"])
    with pytest.raises(cubridge.CompileError, match=r"np\.maximum\(\) on float16 is not supported"):
        _compile(np_maximum, ["float32", "float16"])


# ---- an array's dtype where a type is expected ----

def dtype_arrays(x, out):
    tmp = cuda.local.array(3, x.dtype)
    buf = cuda.shared.array(32, dtype=x.dtype)
    i = cuda.grid(1)
    tmp[0] = x[i]
    buf[0] = tmp[0] + x.dtype.type(1)
    out[i] = buf[0]


def dtype_type_cast(x):
    return x.dtype.type(2.7)


def dtype_as_value(x):
    return x.dtype


def dtype_type_of_tuple(x):
    return x.dtype.type(x.shape)


def test_array_dtype_gives_local_and_shared_arrays_and_casts():
    ptx, _ = cubridge.compile(dtype_arrays, "void(int16[:], int16[:])", device=False, abi="numba", cc=CC)
    assert cubridge.ptxas_check(ptx, CC)
    assert "st.global.u16" in ptx  # int16 items (the local and shared arrays are optimised away)
    assert str(cubridge.compile(dtype_type_cast, "(uint8[:],)", device=True, abi="numba", cc=CC)[1]) == "uint8"
    assert str(cubridge.compile(dtype_type_cast, "(complex64[::1],)", device=True, abi="numba", cc=CC)[1]) == "complex64"


def test_array_dtype_elsewhere_is_refused_by_name():
    with pytest.raises(cubridge.CompileError, match=r"an array's \.dtype is supported only where a type is expected: "
                                                    r"cuda\.local\.array\(n, x\.dtype\)"):
        cubridge.compile(dtype_as_value, "(float32[:],)", device=True, abi="numba", cc=CC)
    with pytest.raises(cubridge.CompileError, match=r"cannot convert UniTuple\(int64 x 1\) to float32 "
                                                    r"\(<array>\.dtype\.type\(v\) takes a number\)"):
        cubridge.compile(dtype_type_of_tuple, "(float32[:],)", device=True, abi="numba", cc=CC)


# ---- scalar bit casts ----

def view_f64_as_i64(x):
    return x.view(np.int64)


def view_f32_bits(x):
    return np.float32(x).view(np.uint32)


def view_as_array_dtype(v, a):
    return v.view(a.dtype)


def view_bool(x):
    return x.view(np.int8)


def view_wrong_width(x):
    return x.view(np.float32)


def view_as_complex(x):
    return x.view(np.complex64)


def test_scalar_view_is_a_bit_cast_of_the_same_width():
    ptx, resty = cubridge.compile(view_f64_as_i64, "(float64,)", device=True, abi="c", cc=CC)
    assert str(resty) == "int64" and "cvt" not in ptx  # the bits pass through unconverted
    assert cubridge.ptxas_check(ptx, CC)
    assert _compile(view_f32_bits, ["float64"]) == "uint32"
    assert _compile(view_f64_as_i64, ["uint64"]) == "int64"
    assert _compile(view_f64_as_i64, ["int64"]) == "int64"
    assert str(cubridge.compile(view_as_array_dtype, "(int16, float16[:])", device=True, abi="numba", cc=CC)[1]) \
        == "float16"


def test_scalar_view_refusals_name_the_types():
    with pytest.raises(cubridge.CompileError, match=r"\.view\(\) of a value of type bool is not supported; integers "
                                                    r"and floats offer \.view\(dtype\)"):
        _compile(view_bool, ["bool"])
    with pytest.raises(cubridge.CompileError, match=r"cannot view int64 as float32: a scalar's view keeps its width "
                                                    r"\(64 bits\)"):
        _compile(view_wrong_width, ["int64"])
    with pytest.raises(cubridge.CompileError, match=r"\.view\(dtype\): the dtype must be an integer or float type "
                                                    r"such as np\.int64"):
        _compile(view_as_complex, ["int64"])
