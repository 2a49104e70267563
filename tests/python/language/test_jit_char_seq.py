"""NumPy's fixed-width strings in kernels, without a GPU, as numba-cuda supports them (its
test_const_string): an array of typestr '|S<n>' is an array of numba's CharSeq "[char x n]", '<U<n>' of
UnicodeCharSeq "[unichr x n]", in arrays and as record fields. The rules:

1. typeof spells them as numba does; the record holding one keeps NumPy's offsets and item size.
2. A bytes constant stored into a CharSeq element or field writes its bytes, cut at the width, the rest of
   the element zeros (numba's Bytes -> CharSeq cast); a str constant into a UnicodeCharSeq writes its code
   points (UTF-32) the same way.
3. Refused by name: str into CharSeq and bytes into UnicodeCharSeq (numba converts neither), a string
   constant into any other element type, a string bound to a name, and reading such an element as a value
   (numba's getitem, len, comparisons are not compiled by cubridge); arrays in non-native byte order.
The values are checked on the GPU by test_jit_char_seq_gpu.py."""
import numpy as np
import pytest

import cubridge

CC = (9, 0)


def _llvm(fn, sig):
    return cubridge.compile(fn, sig, device=False, abi="numba", cc=CC, output="llvm")[0]


def _ptx(fn, sig):
    return cubridge.compile(fn, sig, device=False, abi="numba", cc=CC, output="ptx")[0]


def _stored(units, width, bits):
    """The constant the store writes: the units, zero-padded or cut to the width."""
    units = (list(units) + [0] * width)[:width]
    return "[" + ", ".join(f"i{bits} {u}" for u in units) + "]"


@pytest.mark.parametrize("dtype, name", [
    ("S12", "array([char x 12], 1d, C)"),
    ("<U12", "array([unichr x 12], 1d, C)"),
    ("S1", "array([char x 1], 1d, C)"),
])
def test_typeof_spells_arrays_of_fixed_width_strings_as_numba(dtype, name):
    assert str(cubridge.typeof(np.zeros(3, dtype))) == name


def test_typeof_spells_a_record_with_a_string_field_as_numba():
    dt = np.dtype([("x", np.int32), ("y", "<U12"), ("z", "S3")])
    assert str(cubridge.typeof(np.zeros(2, dt))) == (
        "unaligned array(Record(x[type=int32;offset=0],y[type=[unichr x 12];offset=4],z[type=[char x 3];offset=52];55;"
        "False), "
        "1d, C)")


def test_a_unicode_array_in_non_native_byte_order_is_refused():
    with pytest.raises(TypeError, match=r"arrays of typestr '>U3' cannot be kernel arguments: .*native byte order"):
        cubridge.typeof(np.zeros(2, ">U3"))


# Written without intrinsics, so that numba-cuda compiles them too (test_jit_char_seq_gpu.py): every element
# but the last one is assigned.
def bytes_assign(arr):
    for i in range(len(arr) - 1):
        arr[i] = b"XYZ"


def str_assign(arr):
    for i in range(len(arr) - 1):
        arr[i] = "XYZ"


def test_a_bytes_constant_is_stored_zero_padded_to_the_width():
    ir = _llvm(bytes_assign, "void(array([char x 12], 1d, C))")
    assert f"store [12 x i8] {_stored(b'XYZ', 12, 8)}, [12 x i8]* " in ir


def test_a_str_constant_is_stored_as_utf32_code_points():
    ir = _llvm(str_assign, "void(array([unichr x 12], 1d, C))")
    assert f"store [12 x i32] {_stored(map(ord, 'XYZ'), 12, 32)}, [12 x i32]* " in ir


def test_a_longer_constant_is_cut_at_the_width():
    def k(b, u):
        b[0] = b"ABCDEFG"
        u[0] = "\u00e9\u20ac\U0001F600xyz"
    ir = _llvm(k, "void(array([char x 4], 1d, C), array([unichr x 4], 1d, C))")
    assert f"store [4 x i8] {_stored(b'ABCD', 4, 8)}, " in ir
    assert f"store [4 x i32] {_stored([0xE9, 0x20AC, 0x1F600, ord('x')], 4, 32)}, " in ir


def test_escapes_and_non_ascii_bytes_keep_their_values():
    def k(b):
        b[0] = b"\x00\xff\n"
    ir = _llvm(k, "void(array([char x 5], 1d, C))")
    assert f"store [5 x i8] {_stored([0, 255, 10], 5, 8)}, " in ir


def record_fields(a):
    a[0]["x"] = 1
    a[0]["y"] = "ABC"
    a[1].x = 2
    a[1].y = "XYZ"


def test_record_fields_take_constants_at_their_offsets():
    dt = np.dtype([("x", np.int32), ("y", "<U12")])
    ir = _llvm(record_fields, cubridge.void(cubridge.typeof(np.zeros(2, dt))))
    assert ir.count("store [12 x i32] ") == 2
    assert f"store [12 x i32] {_stored(map(ord, 'ABC'), 12, 32)}, " in ir
    assert "getelementptr i8, i8* " in ir and ", i64 4\n" in ir  # the field's offset


def test_the_ir_assembles_to_ptx():
    def k(a):
        a[0]["x"] = 1
        a[0]["y"] = b"ABC"
    dt = np.dtype([("x", np.float32), ("y", "S12")])
    assert ".entry" in _ptx(k, cubridge.void(cubridge.typeof(np.zeros(2, dt))))
    assert ".entry" in _ptx(str_assign, "void(array([unichr x 12], 1d, C))")


@pytest.mark.parametrize("body, sig, message", [
    ("a[0] = 'XYZ'", "void(array([char x 12], 1d, C))",
     r"cannot store a str constant into \[char x 12\] \(numba's CharSeq: a fixed-width byte string\); numba "
     r"converts only bytes"),
    ("a[0] = b'XYZ'", "void(array([unichr x 12], 1d, C))",
     r"cannot store a bytes constant into \[unichr x 12\] \(numba's UnicodeCharSeq.*numba converts only str"),
    ("a[0] = b'XYZ'", "void(int32[::1])",
     r"cannot store a bytes constant into a value of type int32; string constants are stored only into"),
    ("x = a[0]", "void(array([char x 12], 1d, C))",
     r"a value of type \[char x 12\] \(numba's CharSeq.*cannot be read in a kernel by cubridge"),
    ("a[1] = a[0]", "void(array([unichr x 3], 1d, C))",
     r"a value of type \[unichr x 3\] \(numba's UnicodeCharSeq.*cannot be read"),
    ("s = b'XYZ'", "void(array([char x 12], 1d, C))",
     r"strings are not supported as values"),
    ("a[0:2] = b'XYZ'", "void(array([char x 12], 1d, C))",
     r"cannot store a bytes constant into a value of type array\(\[char x 12\], 1d, C\)"),
])
def test_what_is_not_compiled_is_refused_by_name(tmp_path, body, sig, message):
    src = tmp_path / "k_char_seq.py"
    src.write_text(f"def k(a):\n    {body}\n")
    ns = {}
    exec(compile(src.read_text(), str(src), "exec"), ns)
    import linecache
    linecache.checkcache(str(src))
    with pytest.raises(cubridge.CompileError, match=message):
        _llvm(ns["k"], sig)


@pytest.mark.parametrize("spelling", ["[char x 0]", "[char x -1]", "[unichr x]", "[char x 12]*",
                                      "UniTuple([char x 2] x 2)"])
def test_malformed_spellings_are_refused(spelling):
    with pytest.raises((TypeError, ValueError)):
        cubridge.Type.parse(spelling)
