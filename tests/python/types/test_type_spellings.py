"""One signature grammar (issue 27): every spelling of the table is read the same way by cubridge.Type,
cubridge.Signature, jit, compile, compile_ptx, load_kernel (KernelSignature) and the CLI, and a bad one gets
the same message from each. The table is the twin of tests/cpp/spelling_table.hpp."""
import pytest

import cubridge
from cubridge._cli import cmd_compile as cli_compile

CC = (9, 0)

# (spelling, Numba's name of the type, whether a kernel takes it)
SPELLINGS = [
    ("float32", "float32", True), ("double", "float64", True), ("float", "float64", True),
    ("bool_", "bool", True), ("boolean", "bool", True), ("bool", "bool", True), ("f4", "float32", True),
    ("i8", "int64", True), ("intp", "int64", True), ("uintp", "uint64", True), ("half", "float16", True),
    ("int", "int64", True), ("complex", "complex128", True), ("c8", "complex64", True),
    ("float32[:, ::1]", "array(float32, 2d, C)", True), ("float32[::1, :]", "array(float32, 2d, F)", True),
    ("int16[:, :, :]", "array(int16, 3d, A)", True), ("array(float32, 2d, C)", "array(float32, 2d, C)", True),
    ("const float64[:]", "readonly array(float64, 1d, A)", True),
    ("readonly array(int64, 1d, A)", "readonly array(int64, 1d, A)", True),
    ("double[::1]", "array(float64, 1d, C)", True),
    ("float64*", "float64*", True), ("const float32 *", "const float32*", True), ("void*", "void*", True),
    ("CPointer(float32)", "float32*", True), ("voidptr", "void*", True),  # numba's spellings of pointers
    ("Record(x=float32, y=int32)", "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)", True),
    ("Record(x=float32, y=int32)[::1]",
     "unaligned array(Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False), 1d, C)", True),
    ("UniTuple(int64 x 2)", "UniTuple(int64 x 2)", True), ("UniTuple(int64, 2)", "UniTuple(int64 x 2)", True),
    ("Tuple(int64, float64)", "Tuple(int64, float64)", True), ("(int64, float32)", "Tuple(int64, float32)", True),
    ("bfloat16[::1]", "array(bfloat16, 1d, C)", True),  # numba.cuda.types.bfloat16 arrays (ml_dtypes, DLPack)
]

# (spelling, what the one message says about it after "unknown argument type '<spelling>': ")
BAD_SPELLINGS = [
    ("float31", "'float31' is not a type; accepted: bool, int8..int64"),
    ("float31[:]", "'float31' is not a type; accepted: bool, int8..int64"),
    ("flt*", "'flt' is not a type; accepted: bool, int8..int64"),
    ("float32**", "'float32**' is a pointer to a pointer; pass such an address as a uint64 scalar"),
    ("float32[::2]", "'::2' is not a dimension; write ':' (any stride) or '::1' (contiguous)"),
    ("const int32", "'const int32' is not a type; accepted:"),
]


def ignores(a):
    pass


def one_message(spelling, says):
    return f"signature 'void({spelling})': unknown argument type '{spelling}': {says}"


@pytest.mark.parametrize("spelling, name, kernel", SPELLINGS)
def test_every_spelling_is_one_type(spelling, name, kernel):
    t = cubridge.Type.parse(spelling)
    assert t.name == name and str(t) == name
    assert cubridge.Type.parse(t.name) == t and t == spelling and hash(cubridge.Type.parse(spelling)) == hash(t)
    sig = cubridge.Signature.parse(f"void({spelling}, int32)")
    assert sig.args == [t, cubridge.int32] and sig.return_type == cubridge.void


@pytest.mark.parametrize("spelling, name, kernel", SPELLINGS)
def test_kernel_signatures_read_the_same_spellings(spelling, name, kernel):
    text = f"void({spelling})"
    if not kernel:
        with pytest.raises(ValueError, match=r"is not a kernel parameter type; kernels take numbers, arrays"):
            cubridge.KernelSignature(text)
        return
    ours = cubridge.KernelSignature(text)  # what load_kernel reads a text signature with
    assert ours == cubridge.KernelSignature(cubridge.Signature.parse(text))  # ... and a Signature object
    if cubridge.Type.parse(spelling).kind == "tuple":  # passed as its elements (numba-cuda's ABI)
        assert str(ours) == f"void({name})" and len(ours) == len(cubridge.Type.parse(spelling).elements)
        return
    assert cubridge.Type.parse(ours.params[0]) == cubridge.Type.parse(spelling)


@pytest.mark.parametrize("spelling, name, kernel", SPELLINGS)
def test_compile_ptx_jit_and_the_cli_read_the_same_spellings(spelling, name, kernel, tmp_path, capsys):
    text = f"void({spelling})"  # C pointers too: compiled functions take them as numba-cuda's do (CPointer)
    ptx, resty = cubridge.compile_ptx(ignores, text, cc=CC)
    assert resty is None and cubridge.ptxas_check(ptx, CC)
    _, resty = cubridge.compile(ignores, text, abi="numba", cc=CC)
    assert resty is None
    if kernel:
        assert cubridge.jit(text)(ignores).signatures == [str(cubridge.KernelSignature(text))]
    src = tmp_path / "m.py"
    src.write_text("def ignores(a):\n    pass\n")
    assert cli_compile([f"{src}:ignores", "--sig", text, "--kernel", "-o", str(tmp_path / "k.ptx")]) == 0, \
        capsys.readouterr().err


@pytest.mark.parametrize("spelling, says", BAD_SPELLINGS)
def test_a_bad_spelling_gets_one_message_everywhere(spelling, says, tmp_path, capsys):
    message = one_message(spelling, says)
    with pytest.raises(ValueError) as e:
        cubridge.Signature.parse(f"void({spelling})")
    assert str(e.value).startswith(message)
    for call in (lambda: cubridge.compile_ptx(ignores, f"void({spelling})", cc=CC),
                 lambda: cubridge.compile(ignores, f"void({spelling})", abi="numba", cc=CC),
                 lambda: cubridge.jit(f"void({spelling})")(ignores)):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value).startswith(message)
    for call in (lambda: cubridge.KernelSignature(f"void({spelling})"),
                 lambda: cubridge.load_kernel(".version 8.0\n", "k", f"void({spelling})")):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value).startswith("kernel " + message)
    src = tmp_path / "m.py"
    src.write_text("def ignores(a):\n    pass\n")
    assert cli_compile([f"{src}:ignores", "--sig", f"void({spelling})", "--kernel", "-o", str(tmp_path / "k.ptx")]) == 1
    assert f"cubridge compile: {message}" in capsys.readouterr().err


def test_types_build_signatures_and_arrays():
    assert cubridge.float32[:, ::1] == cubridge.Type.parse("array(float32, 2d, C)")
    assert cubridge.float32[::1, :] == "float32[::1, :]" and cubridge.float32[:] != "float32[::1]"
    sig = cubridge.void(cubridge.float32[:, ::1], cubridge.float64)
    assert isinstance(sig, cubridge.Signature) and sig == cubridge.Signature.parse("void(float32[:, ::1], double)")
    assert {sig: 1}[cubridge.Signature.parse("none(array(float32, 2d, C), float64)")] == 1  # keys of a dispatcher
    assert cubridge.float32[:, :].accepts(cubridge.float32[::1, :]) and not cubridge.float32[:, ::1].accepts(
        cubridge.float32[:, :])
    with pytest.raises(TypeError, match=r"array types are spelt with ':' and '::1' only"):
        cubridge.float32[3]
    with pytest.raises(ValueError, match=r"type 'float31' is not a type; accepted: bool, int8..int64"):
        cubridge.Type.parse("float31")


def test_from_numba_and_from_dtype():
    np = pytest.importorskip("numpy")
    assert cubridge.Type.from_dtype(np.float32) is cubridge.float32
    assert cubridge.Type.from_dtype(np.dtype([("x", np.float32), ("y", np.int32)])) == \
        "Record(x=float32, y=int32)"
    with pytest.raises(TypeError, match=r"from_dtype: dtype\('>f4'\) is no type of cubridge's"):
        cubridge.Type.from_dtype(np.dtype(">f4"))
    numba = pytest.importorskip("numba")
    assert cubridge.Type.from_numba(numba.float32[:, ::1]) == cubridge.float32[:, ::1]
    assert cubridge.Type.from_numba(numba.types.CPointer(numba.float64)) == "float64*"
    assert cubridge.Type.from_numba(numba.from_dtype(np.dtype([("x", np.float32)]))) == "Record(x=float32)"
