"""Records (NumPy structured dtypes) in kernels without a GPU, as numba-cuda supports them: the parameter
type of a structured array is numba's (typeof and str(numba.from_dtype(dt)) agree, offsets, padding and
item size exactly NumPy's), Numba's spellings and Numba type objects are accepted in signatures, field
reads and writes type as numba-cuda types them (result types checked against numba's own CUDA compiler
where numba imports), PTX keeps numba-cuda's parameter list, and each refusal names the bad thing. The
values are checked on the GPU by test_jit_records_gpu.py (cases in parity/kernels_records.py)."""
import os
import sys

import numpy as np
import pytest
from numba import cuda  # the parity cases need numba too

import cubridge

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity.kernels_records import RECORD_CASES  # noqa: E402

CC = (9, 0)

PAIR = np.dtype([("x", np.float32), ("y", np.int32)])
STATE = np.dtype([("s0", np.uint64), ("s1", np.uint64)])
DTYPES = {
    "pair": PAIR,
    "state": STATE,
    "packed": np.dtype([("b", np.float64), ("a", np.int8)]),
    "aligned": np.dtype([("a", np.int8), ("b", np.float64)], align=True),
    "offsets": np.dtype({"names": ["y", "x"], "formats": [np.float32, np.int16], "offsets": [8, 2],
                         "itemsize": 16}),
    "every_scalar": np.dtype([(f"f{i}", t) for i, t in enumerate(
        [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
         np.float16, np.float32, np.float64, np.complex64, np.complex128])], align=True),
    "misaligned": np.dtype([(f"f{i}", t) for i, t in enumerate(
        [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
         np.float16, np.float32, np.float64, np.complex64, np.complex128])]),
    "nested": np.dtype([("a", np.int8), ("v", np.float32, (3,)), ("n", PAIR)]),
    "array_2d": np.dtype([("m", np.float64, (2, 3)), ("k", np.int32)], align=True),
}


def record(dt) -> str:
    return cubridge.typeof(np.zeros(2, dt)).dtype.name


def numba_or_skip():
    numba = pytest.importorskip("numba")
    np.row_stack = getattr(np, "row_stack", np.vstack)
    pytest.importorskip("numba.cuda")
    return numba


def compile_kernel(fn, sig):
    ptx, resty = cubridge.compile_ptx(fn, sig, cc=CC)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    return ptx


def compile_device(fn, sig):
    ptx, resty = cubridge.compile(fn, sig, device=True, abi="numba", cc=CC)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    return str(resty)


# ---------------------------------------------------------------- typeof and spellings

@pytest.mark.parametrize("name", DTYPES)
def test_typeof_of_a_structured_array_is_numbas_record_spelling(name):
    numba = numba_or_skip()
    dt = DTYPES[name]
    a = np.zeros(4, dt)
    assert cubridge.typeof(a) == str(numba.from_dtype(dt)) + "[::1]"
    assert cubridge.typeof(a[::2]) == str(numba.from_dtype(dt)) + "[:]"


def test_typeof_reads_a_cai_descr_when_the_object_has_no_dtype():
    class Cai:
        def __init__(self, a):
            self.__cuda_array_interface__ = {"shape": a.shape, "typestr": a.dtype.str, "descr": a.dtype.descr,
                                             "data": (0, False), "version": 3, "strides": None}

    for dt in (DTYPES["pair"], DTYPES["nested"], DTYPES["array_2d"]):  # descr needs fields in order
        assert cubridge.typeof(Cai(np.zeros(3, dt))) == cubridge.typeof(np.zeros(3, dt)).name.replace(";True)", ";False)")
    # A descr has no alignment flag: an aligned record reads as packed, with the same offsets and padding.
    aligned = cubridge.typeof(Cai(np.zeros(3, DTYPES["aligned"])))
    assert aligned == "Record(a[type=int8;offset=0],b[type=float64;offset=8];16;False)[::1]"


def test_typeof_refuses_a_void_array_without_fields():
    class Cai:
        __cuda_array_interface__ = {"shape": (3,), "typestr": "|V8", "data": (0, False), "version": 3}

    with pytest.raises(TypeError, match=r"typestr '\|V8' without fields"):
        cubridge.typeof(Cai())
    with pytest.raises(TypeError, match="field dtype '>f4' is not a kernel type"):
        cubridge.typeof(np.zeros(2, np.dtype([("x", ">f4")])))


@pytest.mark.parametrize("name", DTYPES)
def test_kernel_signatures_take_numbas_spellings(name):
    numba = numba_or_skip()
    dt = DTYPES[name]
    rec = str(numba.from_dtype(dt))
    for spelling in (rec + "[::1]", str(numba.typeof(np.zeros(2, dt))), str(numba.from_dtype(dt)[::1])):
        sig = cubridge.KernelSignature(f"void({spelling}, int64)")
        assert sig.params == [rec + "[::1]", "int64"]
    assert cubridge.KernelSignature(f"void(const {rec}[:])").params == [f"const {rec}[:]"]
    assert cubridge.KernelSignature(f"void({numba.from_dtype(dt)[:]})").params == [f"{rec}[:]"]


def test_kernel_signature_refuses_a_malformed_record():
    with pytest.raises(ValueError, match=r"'Record\(x\[type=float32\];4;False\)' is not a record in Numba's spelling"):
        cubridge.KernelSignature("void(Record(x[type=float32];4;False)[:])")
    with pytest.raises(ValueError, match="is not a record"):  # the field runs past the item size
        cubridge.KernelSignature("void(Record(x[type=float64;offset=0];4;False)[:])")


def test_numba_type_objects_are_accepted_by_compile_and_jit():
    numba = numba_or_skip()

    def k(a):
        a[0].s0 = 1

    R = numba.from_dtype(STATE)
    for sig in ((R[::1],), numba.void(R[::1]), (numba.typeof(np.zeros(2, STATE)),)):
        compile_kernel(k, sig)
    d = cubridge.jit(k)
    assert d.compile((R[::1],)).args == [record(STATE) + "[::1]"]


# ---------------------------------------------------------------- field reads and writes

def read_attr_x(a):
    return a[0].x


def read_key_y(a):
    return a[1]["y"]


def read_index_1(a):
    return a[0][1]


def read_index_minus_2(a):
    return a[0][-2]


@pytest.mark.parametrize("fn, result", [(read_attr_x, "float32"), (read_key_y, "int32"), (read_index_1, "int32"),
                                        (read_index_minus_2, "float32")])
def test_a_field_read_has_the_fields_type(fn, result):
    numba = numba_or_skip()
    assert compile_device(fn, f"({record(PAIR)}[::1],)") == result
    assert str(cuda.compile_ptx(fn, (numba.from_dtype(PAIR)[::1],), device=True, cc=CC)[1]) == result


def field0(a):
    return a[1].f0


def field1(a):
    return a[1].f1


def field2(a):
    return a[1].f2


def field3(a):
    return a[1].f3


def field4(a):
    return a[1].f4


def field5(a):
    return a[1].f5


def field6(a):
    return a[1].f6


def field7(a):
    return a[1].f7


def field8(a):
    return a[1].f8


def field9(a):
    return a[1].f9


def field10(a):
    return a[1].f10


def field11(a):
    return a[1].f11


def field12(a):
    return a[1].f12


def field13(a):
    return a[1].f13


FIELD_READERS = [field0, field1, field2, field3, field4, field5, field6, field7, field8, field9, field10, field11, field12, field13]


@pytest.mark.parametrize("fn", FIELD_READERS, ids=[f.__name__ for f in FIELD_READERS])
def test_every_scalar_field_type_reads_as_numba_types_it(fn):
    numba = numba_or_skip()
    from numba import cuda
    dt = DTYPES["every_scalar"]
    _, theirs = cuda.compile_ptx(fn, (numba.from_dtype(dt)[::1],), device=True, cc=CC)
    assert compile_device(fn, f"({record(dt)}[::1],)") == str(theirs)


@pytest.mark.parametrize("fn", FIELD_READERS, ids=[f.__name__ for f in FIELD_READERS])
def test_a_misaligned_field_is_refused_as_numba_refuses_it(fn):
    numba = numba_or_skip()
    from numba import cuda
    dt = DTYPES["misaligned"]
    k = int(fn.__name__[5:])
    offset, item = dt.fields[f"f{k}"][1], dt[f"f{k}"]
    align = item.alignment
    sig = f"({record(dt)}[::1],)"
    if offset % align == 0:
        assert compile_device(fn, sig) == str(cuda.compile_ptx(fn, (numba.from_dtype(dt)[::1],), device=True,
                                                                cc=CC)[1])
        return
    with pytest.raises(cubridge.CompileError, match=rf"field 'f{k}' \({numba.from_dtype(item)}\) of Record\(.*\) "
                       rf"is at offset {offset}, not a multiple of its alignment {align}; .*\"type "
                       rf"{numba.from_dtype(item)} is not aligned\""):
        compile_device(fn, sig)
    with pytest.raises(Exception, match="is not aligned"):
        cuda.compile_ptx(fn, (numba.from_dtype(dt)[::1],), device=True, cc=CC)


def store_fields(a, v):
    a[0].x = v
    a[1]["y"] = v  # float64 into int32: numba casts (truncates)
    a[2].x += v
    a[3]["y"] -= 2
    a[4] = a[5]  # a whole record: its bytes


def test_stores_and_augmented_stores_compile():
    ptx = compile_kernel(store_fields, f"void({record(PAIR)}[::1], float64)")
    assert ptx.count(".param .u64") == 7  # numba-cuda's array: meminfo, parent, nitems, itemsize, data, shape, strides


def test_the_xoroshiro_state_pattern_compiles():
    def step(states, out):
        i = 0
        s0 = states[i]["s0"]
        s1 = states[i]["s1"]
        out[i] = s0 + s1
        states[i]["s0"] = s0 ^ s1
        states[i]["s1"] = s1 << np.uint32(3)

    compile_kernel(step, f"void({record(STATE)}[::1], uint64[::1])")


def test_packed_fields_are_read_with_byte_alignment_aligned_ones_whole():
    def k(a, out):
        out[0] = a[0].b

    packed = compile_kernel(k, f"void({record(DTYPES['packed'])}[::1], float64[::1])")
    aligned = compile_kernel(k, f"void({record(DTYPES['aligned'])}[::1], float64[::1])")
    assert "ld.u8" in packed or "ld.global.u8" in packed
    assert "ld.f64" in aligned or "ld.global.f64" in aligned


# ---------------------------------------------------------------- refusals

def unknown_attr(a):
    return a[0].z


def unknown_key(a):
    return a[0]["z"]


def variable_key(a, k):
    return a[0][k]


def index_out_of_range(a):
    return a[0][2]


def complex_into_int(a):
    a[0].y = 1j


def store_record_into_scalar(a, b):
    b[0].x = a[0]


def assign_attribute_of_number(a):
    x = a[0].x
    x.real = 1.0


def store_other_record(a, b):
    a[0] = b[0]


def arithmetic_on_a_record(a):
    a[0] += 1


def truth_of_a_record(a):
    if a[0]:
        a[1].y = 1


def atomic_on_records(a):
    cuda.atomic.add(a, 0, 1)


REFUSALS = [
    (unknown_attr, "({R}[::1],)", r"has no field 'z'; its fields: x \(float32\), y \(int32\)"),
    (unknown_key, "({R}[::1],)", r"has no field 'z'; its fields: x \(float32\), y \(int32\)"),
    (variable_key, "({R}[::1], int64)", r"a record field key must be a constant: a string literal \(r\['x'\]\)"),
    (index_out_of_range, "({R}[::1],)", r"record field index 2 out of range: the record has 2 field\(s\)"),
    (complex_into_int, "({R}[::1],)", r"cannot store a value of type complex128 into field 'y' \(int32\)"),
    (assign_attribute_of_number, "({R}[::1],)", r"cannot assign to attribute 'real' of a value of type float32"),
    (store_other_record, "({R}[::1], {S}[::1])", r"a record element takes a record of the same dtype"),
    (arithmetic_on_a_record, "({R}[::1],)", r"unsupported operand types for \+: Record\(.*\) and int64"),
    (truth_of_a_record, "({R}[::1],)", r"cannot test the truth of a value of type Record\("),
    (atomic_on_records, "({R}[::1],)", r"cuda.atomic.add\(\) on an array of Record\(.*\) is not supported"),
]


@pytest.mark.parametrize("fn, sig, message", REFUSALS, ids=[r[0].__name__ for r in REFUSALS])
def test_refusals_name_the_bad_thing(fn, sig, message):
    with pytest.raises(cubridge.CompileError, match=r"test_jit_records\.py:\d+:\d+: .*" + message):
        cubridge.compile(fn, sig.format(R=record(PAIR), S=record(STATE)), device=True, abi="numba", cc=CC)


def test_numba_refuses_what_we_refuse():
    numba = numba_or_skip()
    from numba import cuda
    R = numba.from_dtype(PAIR)[::1]
    for fn in (unknown_attr, complex_into_int):
        with pytest.raises(Exception):
            cuda.compile_ptx(fn, (R,), device=True, cc=CC)


# ---------------------------------------------------------------- the GPU cases compile here

@pytest.mark.parametrize("case", RECORD_CASES, ids=[c.id for c in RECORD_CASES])
def test_record_gpu_case_compiles_and_assembles(case):
    compile_kernel(case.fn, case.signature(cubridge.typeof))


# ---------------------------------------------------------------- one record as a parameter

def record_parameter(r, out):
    out[0] = r.x * r.y
    r.y = 5
    r["x"] += 1.5


def test_one_record_types_as_numbas_record_and_passes_by_address():
    numba = numba_or_skip()
    from numba import cuda
    a = np.zeros(3, PAIR)
    R = str(numba.from_dtype(PAIR))
    assert cubridge.typeof(a[1]) == R  # a NumPy record (np.void)
    # a 0-d structured NumPy array is a 0-d array of records, as numba types it (a device record, as
    # from_record_like gives, is a record)
    assert cubridge.typeof(np.zeros((), PAIR)) == f"array({R}, 0d, C)"
    sig = cubridge.KernelSignature(f"void({R}, const {R}, {R}[::1])")
    assert sig.params == [R, f"const {R}", R + "[::1]"]
    ptx = compile_kernel(record_parameter, f"void({R}, float32[::1])")
    theirs, _ = cuda.compile_ptx(record_parameter, (numba.from_dtype(PAIR), numba.float32[::1]), cc=CC)

    def params(text):
        entry = text[text.find(".entry"):]
        return [line.split()[1] for line in entry[:entry.find(")")].splitlines() if ".param" in line]

    assert params(ptx) == params(theirs) == [".u64"] * 8  # the record's address, then the array's 7
    assert cubridge.jit(record_parameter).compile((numba.from_dtype(PAIR), numba.float32[::1])).args == \
        [R, "float32[::1]"]


def test_from_record_like_refuses_what_is_no_record():
    with pytest.raises(TypeError, match=r"from_record_like: .*1.0\)? \(float32\) has no structured dtype"):
        cubridge.from_record_like(np.float32(1))
    with pytest.raises(TypeError, match="gpu_data 'x' is not device memory"):
        cubridge.from_record_like(np.zeros((), PAIR), gpu_data="x")


# ---------------------------------------------------------------- our own spelling, ranks, local and shared

OWN = [("Record(x=float32, y=int32)", PAIR),
       ("Record(a=int8, b=float64; aligned)", DTYPES["aligned"]),
       ("Record(a=int8, v=float32[3], n=Record(x=float32, y=int32))", DTYPES["nested"]),
       ("Record(m=float64[2, 3], k=int32; aligned)", DTYPES["array_2d"])]


@pytest.mark.parametrize("own, dt", OWN, ids=[o for o, _ in OWN])
def test_our_own_spelling_is_the_same_record(own, dt):
    assert cubridge.KernelSignature(f"void({own}[::1])").params == [cubridge.typeof(np.zeros(2, dt))]

    def k(a):
        a[0] = a[1]

    compile_kernel(k, f"void({own}[:])")


def test_records_of_any_rank_and_layout():
    def k(a, out):
        out[0] = a[1, 2].x + a[0, 0]["y"]
        a[1, 1].y = 3

    for layout in ("[:, ::1]", "[::1, :]", "[:, :]"):
        compile_kernel(k, f"void({record(PAIR)}{layout}, float64[::1])")
    assert cubridge.typeof(np.zeros((3, 4), PAIR, order="F")) == record(PAIR) + "[::1, :]"


POINT_DT = np.dtype([("x", np.float32), ("y", np.float32)])
NOT_A_DTYPE = {"x": np.float32}


def local_of_a_global_dtype(out):
    t = cuda.local.array(2, POINT_DT)
    t[0].x = 1.5
    out[0] = t[0].x


def local_of_a_dict(out):
    t = cuda.local.array(2, NOT_A_DTYPE)
    out[0] = t[0]


def test_local_and_shared_arrays_take_a_dtype_bound_outside_the_kernel():
    compile_kernel(local_of_a_global_dtype, "void(float32[::1])")
    with pytest.raises(cubridge.CompileError, match=r"the dtype must be a number type .* or a record: a NumPy "
                                                    r"structured dtype or numba.from_dtype\(dt\) bound outside"):
        cubridge.compile_ptx(local_of_a_dict, "void(float32[::1])", cc=CC)


def test_typeof_drops_the_padding_fields_np_dtype_of_a_descr_makes():
    """cubridge's DeviceArray.dtype is np.dtype(descr), which names an aligned dtype's padding 'f1', ...:
    typeof reads the descr instead, so the padding is no field (the record types as packed: a descr has
    no alignment flag); from_record_like remembers its dtype, so its record keeps the flag."""
    dt = np.dtype([("tag", np.int8), ("x", np.float32), ("y", np.float64), ("n", np.int32)], align=True)

    class DescrDtype:
        def __init__(self):
            self.dtype = np.dtype(dt.descr)
            self.__cuda_array_interface__ = {"shape": (3,), "typestr": dt.str, "descr": dt.descr,
                                             "data": (0, False), "version": 3}

    assert "f1" in DescrDtype().dtype.names
    assert cubridge.typeof(DescrDtype()) == (
        "Record(tag[type=int8;offset=0],x[type=float32;offset=4],y[type=float64;offset=8],"
        "n[type=int32;offset=16];24;False)[::1]")
