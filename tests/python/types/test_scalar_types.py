"""The scalar-type table as the Python package reads it: ``_core._scalar_types()`` hands over the rows of
include/cubridge/types/scalar_type.hpp, and every dict the package builds from them equals the one it spelt
out before there was one table (pinned here as they were)."""
import numpy as np

import cubridge
from cubridge import _core, _environment, _records, _scalar_types, _types, xla

NUMBA_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
               "float32", "float64", "complex64", "complex128")


def test_rows_come_from_the_extension_in_table_order():
    rows = _core._scalar_types()
    assert [r.name for r in rows] == [r.name for r in _scalar_types.ROWS]
    assert [r.name for r in rows] == ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                      "uint64", "float16", "bfloat16", "float32", "float64", "complex64",
                                      "complex128"]
    assert repr(rows[0]) == "<ScalarTypeInfo bool>"


def test_pinned_rows():
    by_name = {r.name: r for r in _scalar_types.ROWS}
    f4 = by_name["float32"]
    assert (f4.kind, f4.itemsize, f4.typestr, f4.alias, f4.c_type, f4.dlpack, f4.xla, f4.xla_primitive) == \
        ("f", 4, "<f4", None, "float", (2, 32, 1), "f32", 11)
    b = by_name["bool"]
    assert (b.kind, b.itemsize, b.typestr, b.alias, b.c_type, b.dlpack, b.xla, b.xla_primitive) == \
        ("b", 1, "|b1", "boolean", "bool", (6, 8, 1), "pred", 1)
    bf = by_name["bfloat16"]
    assert (bf.kind, bf.itemsize, bf.typestr, bf.alias, bf.c_type, bf.dlpack, bf.xla, bf.xla_primitive) == \
        (None, 2, None, None, "__nv_bfloat16", (4, 16, 1), "bf16", 16)
    c16 = by_name["complex128"]
    assert (c16.typestr, c16.c_type, c16.dlpack, c16.xla, c16.xla_primitive) == \
        ("<c16", "cuDoubleComplex", (5, 128, 1), "c128", 18)
    assert by_name["int64"].alias == "intp" and by_name["uint64"].alias == "uintp"
    assert by_name["float16"].alias == "half"


def test_rows_agree_with_numpy():
    for r in _scalar_types.NUMPY_ROWS:
        dt = np.dtype(r.typestr)
        assert (dt.kind, dt.itemsize, dt.name, dt.str) == (r.kind, r.itemsize, r.name, r.typestr)


def test_kernel_and_record_names_are_the_old_dict():
    before = {("b", 1): "bool", ("i", 1): "int8", ("i", 2): "int16", ("i", 4): "int32", ("i", 8): "int64",
              ("u", 1): "uint8", ("u", 2): "uint16", ("u", 4): "uint32", ("u", 8): "uint64",
              ("f", 2): "float16", ("f", 4): "float32", ("f", 8): "float64", ("c", 8): "complex64",
              ("c", 16): "complex128"}
    assert _scalar_types.NAME_OF_NUMPY == before
    assert _records._SCALAR_NAMES == before
    assert list(_scalar_types.NAME_OF_NUMPY) == list(before)


def test_compiler_types_are_the_old_ones():
    assert list(_types._BY_NAME) == list(NUMBA_NAMES)
    for name in NUMBA_NAMES:
        t = _types._BY_NAME[name]
        assert type(t) is cubridge.Type and t.name == name and t.is_scalar
        public = "boolean" if name == "bool" else name
        assert getattr(cubridge, public) is getattr(_types, public) is t  # cubridge.float32 is the dict's
    assert _types.boolean is _types.bool_ is _types._BY_NAME["bool"]
    assert _types.intp is _types.int64 and _types.uintp is _types.uint64
    assert cubridge.void.kind == "none" and cubridge.none is cubridge.void
    assert _environment._ARRAY_DTYPES == set(NUMBA_NAMES)
    assert "bfloat16" not in _types._BY_NAME


def test_xla_names_and_codes_are_the_old_ones():
    assert xla._ELEMENT_TYPES == ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                  "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
    assert xla._XLA_NAMES == ["pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32",
                              "f64", "c64", "c128"]
    assert xla._element_code("pred") == 1 and xla._element_code("bfloat16") == 11
    assert xla._element_code(np.dtype("float32")) == 12 and xla._element_code("c128") == 15


def test_numpy_kinds_are_the_old_string():
    assert _scalar_types.NUMPY_KINDS == "biufc"
