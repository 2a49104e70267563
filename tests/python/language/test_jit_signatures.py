"""Signatures as numba writes them (issue 12, item 9): numba's type objects (arrays of every layout,
readonly arrays, UniTuple/Tuple, scalars, void) and numba.void(...) signatures, for cubridge.jit,
cubridge.compile, compile_ptx and load_kernel; cubridge.void; one converter (_types.as_type) for all."""
import numpy

numpy.row_stack = getattr(numpy, "row_stack", numpy.vstack)  # numba 0.68 still names it

import numba  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from numba import types  # noqa: E402

import cubridge  # noqa: E402
from cubridge import _kernels, _types  # noqa: E402

CC = (9, 0)


def k2d(m, v, out):
    i = 0
    out[i, 0] = m[i, 0] * v[i]


def dev_tuple(x, t):
    return x + t[0] + t[1]


def reads_only(a, out):
    out[0] = a[0]


def writes_readonly(a):
    a[0] = 1.0


@pytest.mark.parametrize("numba_type, ours", [
    (numba.float32[:], "array(float32, 1d, A)"),
    (numba.float32[::1], "array(float32, 1d, C)"),
    (numba.float32[:, ::1], "array(float32, 2d, C)"),
    (numba.float64[::1, :], "array(float64, 2d, F)"),
    (numba.int16[:, :, :], "array(int16, 3d, A)"),
    (types.Array(numba.float32, 2, "C"), "array(float32, 2d, C)"),
    (types.Array(types.complex64, 1, "A", readonly=True), "readonly array(complex64, 1d, A)"),
    (types.UniTuple(numba.int64, 2), "UniTuple(int64 x 2)"),
    (types.Tuple((numba.int64, numba.float32)), "Tuple(int64, float32)"),
    (types.float32, "float32"), (numba.boolean, "bool"), (types.uint8, "uint8"), (types.complex128, "complex128"),
    (types.void, "none"), (np.float32, "float32"), (np.dtype("int32"), "int32"),
])
def test_numba_types_convert_to_ours(numba_type, ours):
    assert _types.as_type(numba_type).name == ours
    assert str(numba_type) == ours or numba_type in (types.void, np.float32) or isinstance(numba_type, np.dtype)


def test_the_conversion_is_table_driven_by_numba_type_class():
    # One entry per structured numba type class (found through the MRO: subclasses convert as their base),
    # so a new kind (records) adds a row; scalars convert by name.
    assert set(_types._NUMBA_TYPE_CONVERTERS) == {"Array", "UniTuple", "Tuple", "NamedUniTuple", "NamedTuple", "NoneType",
                                                  "CPointer", "RawPointer", "Record", "NPDatetime", "NPTimedelta"}

    class CUDAArrayLike(types.Array):  # numba-cuda's CUDAArray is such a subclass
        pass
    assert _types.as_type(CUDAArrayLike(numba.float32, 1, "C")).name == "array(float32, 1d, C)"


@pytest.mark.parametrize("sig", [
    numba.void(numba.float32[:, ::1], numba.float32[::1], numba.float32[:, ::1]),
    (numba.float32[:, :], types.Array(numba.float32, 1, "A", readonly=True), numba.float32[:, ::1]),
    cubridge.void(cubridge.float32[:, ::1], cubridge.float32[:], cubridge.float32[:, :]),
    [numba.float32[:, ::1], numba.float32[::1], numba.float32[:, ::1]],
])
def test_kernel_signatures_compile_ptx(sig):
    ptx, resty = cubridge.compile_ptx(k2d, sig, cc=CC)
    assert resty is None
    assert cubridge.ptxas_check(ptx, CC)


def test_ptx_parameters_match_numba_cuda():
    from numba import cuda
    sig = numba.void(numba.float32[:, ::1], numba.float32[::1], numba.float32[:, ::1])
    ours, _ = cubridge.compile_ptx(k2d, sig, cc=CC)
    theirs, _ = cuda.compile_ptx(k2d, sig.args, cc=CC)

    def params(ptx):
        return [line.split()[1] for line in ptx.splitlines() if line.strip().startswith(".param")]
    assert params(ours) == params(theirs)


def test_device_functions_take_numba_scalar_and_tuple_types():
    _, resty = cubridge.compile(dev_tuple, numba.float64(numba.float64, types.UniTuple(numba.int64, 2)))
    assert resty == cubridge.float64
    _, resty = cubridge.compile(dev_tuple, (types.float32, types.Tuple((numba.int64, numba.float32))))
    assert resty == cubridge.float64  # numba: float32 + int64 -> float64
    _, resty = cubridge.compile(dev_tuple, (numba.float32, cubridge.UniTuple(cubridge.float32, 2)))
    assert resty == cubridge.float32


def test_readonly_array_types_are_read_only():
    sig = (types.Array(numba.float32, 1, "C", readonly=True), numba.float32[::1])
    cubridge.compile_ptx(reads_only, sig, cc=CC)
    with pytest.raises(cubridge.CompileError, match=r"read-only|readonly"):
        cubridge.compile_ptx(writes_readonly, (types.Array(numba.float32, 1, "C", readonly=True),), cc=CC)


def test_cubridge_void_builds_signatures():
    sig = cubridge.void(cubridge.float32[:], cubridge.int32)
    assert str(sig) == "none(array(float32, 1d, A), int32)"
    assert isinstance(cubridge.void, cubridge.Type) and cubridge.void.kind == "none"
    assert isinstance(sig, cubridge.Signature) and sig == cubridge.Signature.parse("void(float32[:], int32)")
    _, resty = cubridge.compile_ptx(reads_only, cubridge.void(cubridge.float32[:], cubridge.float32[:]), cc=CC)
    assert resty is None
    with pytest.raises(TypeError, match=r"array types are spelt"):
        cubridge.void[:]


def test_load_kernel_and_jit_read_numba_signatures():
    sig = numba.void(numba.float32[::1], types.Array(numba.float32, 2, "A", readonly=True), numba.int32)
    assert str(_kernels.kernel_signature(sig)) == \
        "none(array(float32, 1d, C), readonly array(float32, 2d, A), int32)"
    assert cubridge.KernelSignature(_kernels.kernel_signature(sig)).params == \
        ["float32[::1]", "const float32[:, :]", "int32"]
    assert str(_kernels.kernel_signature(cubridge.void(cubridge.float64[:, ::1]))) == "none(array(float64, 2d, C))"
    assert str(_kernels.kernel_signature([numba.float32[:], "const float32*"])) == \
        "none(array(float32, 1d, A), const float32*)"


def test_jit_takes_lists_of_numba_signatures():
    k = cubridge.jit([numba.void(numba.float32[:, ::1], numba.float32[::1], numba.float32[:, ::1]),
                      cubridge.void(cubridge.float64[:, :], cubridge.float64[:], cubridge.float64[:, :])])(k2d)
    assert k.signatures == ["void(float32[:, ::1], float32[::1], float32[:, ::1])",
                            "void(float64[:, :], float64[:], float64[:, :])"]
    one = cubridge.jit(numba.void(numba.float32[:, ::1], numba.float32[::1], numba.float32[:, ::1]))(k2d)
    assert one.signatures == ["void(float32[:, ::1], float32[::1], float32[:, ::1])"]


def test_refusals_name_the_type_and_what_is_accepted():
    with pytest.raises(TypeError, match=r"unicode_type is not a type the compiler accepts; .*numba.float32\[:, ::1\]"):
        cubridge.compile_ptx(reads_only, (types.unicode_type, numba.float32[:]), cc=CC)
    with pytest.raises(ValueError, match=r"a kernel returns void, but .* returns float32"):
        _kernels.kernel_signature(numba.float32(numba.float32[:]))
    with pytest.raises(TypeError, match=r"arrays hold numbers"):
        _types.as_type(types.Array(types.UniTuple(numba.int64, 2), 1, "C"))
    # A tuple is a kernel parameter (numba-cuda passes its elements): a signature for it is checked against
    # the function like any other.
    with pytest.raises(ValueError, match=r"function 'dev_tuple' takes 2 argument\(s\) but the signature gives 1"):
        cubridge.jit(numba.void(types.UniTuple(numba.int64, 2)))(dev_tuple)
