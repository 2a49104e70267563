"""Tuples as kernel arguments, as numba-cuda takes them (its test_array_args): typeof gives numba's UniTuple /
Tuple of the elements' types (nested, empty, holding arrays), the kernel's PTX takes the elements one by one
(depth first: numba-cuda's _prepare_args), and a launch packs them in that order. No GPU needed: the packed
buffer is read back from KernelSignature.pack."""
import re

import numpy as np
import pytest

import cubridge


def reads_three(r, x):
    r[0] = x[0]
    r[1] = x[1]
    r[2] = x[2]


def nested(r, x):
    r[0] = len(x)
    r[1] = len(x[0])
    r[2] = len(x[1])
    r[3] = len(x[2])
    r[4] = x[1][0]
    r[5] = x[1][1]
    r[6] = x[2][0]
    r[7] = x[2][1]
    r[8] = x[2][2]


def adds_arrays(x):
    i = cubridge.grid(1)
    if i < len(x[0]):
        x[0][i] = x[1][i] + x[2][i]


def ptx_params(ptx):
    return re.findall(r"\.param \.(\w+) \w+_param_\d+", ptx)


@pytest.mark.parametrize("value, name", [
    ((1, 2, 3), "UniTuple(int64 x 3)"),
    ((1, 2, 3, 4.5, 5.5, 6.5), "Tuple(int64, int64, int64, float64, float64, float64)"),
    ((), "Tuple()"),
    (((), (), ()), "UniTuple(Tuple() x 3)"),
    (((), (5, 6), (8, 9, 10)), "Tuple(Tuple(), UniTuple(int64 x 2), UniTuple(int64 x 3))"),
    (((6, 5, 4), 7), "Tuple(UniTuple(int64 x 3), int64)"),
    ((np.zeros(2), np.ones(2, np.float32)), "Tuple(array(float64, 1d, C), array(float32, 1d, C))"),
    ((np.arange(2), 10, (4, 3)), "Tuple(array(int64, 1d, C), int64, UniTuple(int64 x 2))"),
    ((True, 1j), "Tuple(bool, complex128)"),
])
def test_typeof_a_tuple_is_numbas_tuple_of_its_elements_types(value, name):
    assert str(cubridge.typeof(value)) == name
    assert cubridge.Type.parse(name) == cubridge.typeof(value)  # the spelling reads back


def test_a_tuple_parameter_is_its_elements_in_the_ptx_and_the_packed_buffer():
    sig = "void(int64[::1], Tuple(int64, int64, float64))"
    ptx, _ = cubridge.compile_ptx(reads_three, sig, cc=(9, 0))
    assert ptx_params(ptx) == ["u64"] * 7 + ["u64", "u64", "f64"]  # the array's 7 words, then the elements
    ks = cubridge.KernelSignature(sig)
    assert len(ks) == 4 and str(ks) == sig
    buf = ks.pack(np.zeros(3, np.int64), (7, -2, 2.5))
    assert buf[56:64] == np.int64(7).tobytes()
    assert buf[64:72] == np.int64(-2).tobytes()
    assert buf[72:80] == np.float64(2.5).tobytes()


def test_nested_and_empty_tuples_pack_depth_first_and_pass_nothing_for_empty_ones():
    ks = cubridge.KernelSignature(cubridge.void(cubridge.int64[::1], cubridge.typeof(((), (5, 6), (8, 9, 10)))))
    assert len(ks) == 6  # the array, then 5, 6, 8, 9, 10
    buf = ks.pack(np.zeros(9, np.int64), ((), (5, 6), (8, 9, 10)))
    assert np.frombuffer(buf[56:96], np.int64).tolist() == [5, 6, 8, 9, 10]
    ptx, _ = cubridge.compile_ptx(nested, "void(int64[::1], Tuple(Tuple(), UniTuple(int64 x 2), UniTuple(int64 x 3)))",
                                  cc=(9, 0))
    assert len(ptx_params(ptx)) == 7 + 5
    assert len(cubridge.KernelSignature("void(Tuple())")) == 0


def test_a_tuple_of_arrays_passes_each_array_as_the_numba_abi_does():
    x = (np.zeros(10), np.ones(10), np.ones(10) * 3)
    sig = cubridge.void(cubridge.typeof(x))
    ptx, _ = cubridge.compile_ptx(adds_arrays, sig, cc=(9, 0))
    assert len(ptx_params(ptx)) == 3 * 7
    buf = cubridge.KernelSignature(sig).pack(*[x])
    for k, a in enumerate(x):  # each array's nitems and data pointer at its own 7 words
        assert np.frombuffer(buf[56 * k + 16:56 * k + 24], np.int64)[0] == 10
        assert np.frombuffer(buf[56 * k + 32:56 * k + 40], np.uint64)[0] == a.__array_interface__["data"][0]


def test_the_lazy_dispatcher_compiles_one_specialisation_per_tuple_type():
    k = cubridge.jit(reads_three)
    s1 = k._signature_for((np.zeros(3, np.int64), (1, 2, 3)))
    s2 = k._signature_for((np.zeros(3, np.int64), (1, 2, 3.5)))
    assert s1 != s2
    assert str(k.compile(s1).signature) == "none(array(int64, 1d, C), UniTuple(int64 x 3))"
    assert k.signatures == ["void(int64[::1], UniTuple(int64 x 3))"]


@pytest.mark.parametrize("args, error, message", [
    ((np.zeros(3, np.int64), (1, 2)), TypeError,
     r"argument 1: a tuple of 2 \(\(1, 2\)\) was passed where the signature says UniTuple\(int64 x 3\), a tuple of 3"),
    ((np.zeros(3, np.int64), [1, 2, 3]), TypeError,
     r"argument 1: \[1, 2, 3\] \(list\) was passed where the signature says UniTuple\(int64 x 3\)"),
    ((np.zeros(3, np.int64), (1, 2, 3.5)), TypeError,
     r"argument 1\[2\]: a float \(3.5\) was passed where the signature says int64"),
    ((np.zeros(3, np.int64), (1, 2, 1 << 70)), ValueError,
     r"argument 1\[2\]: 1180591620717411303424 is out of range for every integer parameter type"),
    ((np.zeros(3, np.int64),), TypeError, r"takes 2 arguments, got 1"),
])
def test_a_launch_checks_each_tuple_against_its_type(args, error, message):
    with pytest.raises(error, match=message):
        cubridge.KernelSignature("void(int64[::1], UniTuple(int64 x 3))").pack(*args)


def test_tuples_hold_numbers_arrays_and_tuples_but_no_pointers_or_records():
    with pytest.raises(ValueError, match=r"'Tuple\(int32, float32\*\)' is not a type"):
        cubridge.KernelSignature("void(Tuple(int32, float32*))")
    with pytest.raises(ValueError, match=r"is not a type"):
        cubridge.Type.parse("UniTuple(Record(a=int8) x 2)")


# Namedtuples: numba-cuda's NamedTuple / NamedUniTuple, passed as their elements, read by field name.

def reads_fields(r1, r2, x):
    r1[0] = x.x
    r1[1] = x.y
    r2[0] = x.r


def test_typeof_a_namedtuple_keeps_its_class_and_fields():
    from collections import namedtuple
    Point = namedtuple("Point", ("x", "y", "r"))
    t = cubridge.typeof(Point(1, 2, 2.236))
    assert str(t) == "NamedTuple(Point, x=int64, y=int64, r=float64)"
    assert cubridge.Type.parse(str(t)) == t and t != cubridge.typeof((1, 2, 2.236))
    assert [str(e) for e in t.elements] == ["int64", "int64", "float64"]


def test_a_namedtuple_parameter_reads_its_fields_and_packs_its_elements():
    from collections import namedtuple
    Point = namedtuple("Point", ("x", "y", "r"))
    args = (np.zeros(2, np.int64), np.zeros(1), Point(1, 2, 2.236))
    k = cubridge.jit(reads_fields)
    sig = k._signature_for(args)
    ptx = k.compile(sig).ptx
    assert ptx_params(ptx)[-3:] == ["u64", "u64", "f64"]
    assert re.search(r"ld\.param\.f64\s+%fd\d+, \[\w+_param_16\]", ptx)  # x.r is the last parameter
    buf = cubridge.KernelSignature(sig).pack(*args)
    assert buf[-24:] == np.int64(1).tobytes() + np.int64(2).tobytes() + np.float64(2.236).tobytes()


def test_a_missing_namedtuple_field_is_refused_by_name():
    from collections import namedtuple
    Point = namedtuple("Point", ("x", "y"))

    def reads_z(r, p):
        r[0] = p.z
    k = cubridge.jit(reads_z)
    with pytest.raises(cubridge.CompileError, match=r"namedtuple Point has no field 'z'; its fields: x, y"):
        k.compile(k._signature_for((np.zeros(1, np.int64), Point(1, 2))))


def test_numbas_named_tuple_types_convert():
    types = pytest.importorskip("numba.core.types", reason="numba is not installed")
    from collections import namedtuple
    FakeArray = namedtuple("FakeArray", ["ndim"])
    t = cubridge.Type.from_numba(types.NamedUniTuple(types.int64, 1, FakeArray))
    assert t == cubridge.typeof(FakeArray(ndim=2)) and str(t) == "NamedTuple(FakeArray, ndim=int64)"
