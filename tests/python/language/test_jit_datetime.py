"""NumPy's datetime64 and timedelta64 in kernels, without a GPU, as numba-cuda types them (NPDatetime(unit),
NPTimedelta(unit): int64 counts of the unit, NaT = INT64_MIN; its test_datetime). The rules, one test each:

1. typeof spells arrays and scalars as numba does ("array(datetime64[D], 1d, C)", "timedelta64[s]",
   "datetime64[]" for the generic unit); the unit is part of the type, so arrays of two units are two
   specializations. CAI typestrs '<M8[D]', '<m8[ms]', '<M8' are read with their unit; a multiple of a unit
   ('<M8[10s]'), another size ('<M4[D]') or a non-native byte order is refused by name.
2. Signatures spell them "datetime64[D]", "timedelta64[ms]", "datetime64[]" (numba's names), and numba's
   NPDatetime/NPTimedelta type objects convert to them.
3. datetime - datetime is a timedelta of the finer unit; datetime +/- timedelta (and timedelta + datetime) a
   datetime of the combined unit; timedelta +/- timedelta the unit the other casts to safely; timedelta * int
   keeps the timedelta's unit; -timedelta; comparisons of two datetimes or two timedeltas give bool.
4. Each operand is brought to the result's unit by NumPy's integer factor (D -> h is * 24, W -> D * 7); an
   operation with NaT gives NaT, a comparison with NaT False (True for !=).
5. Refused by name: years/months with finer units (numba-cuda converts them by the calendar), datetime +
   datetime, timedelta / timedelta and timedelta * float (not compiled by cubridge), comparing a datetime with a
   timedelta, timedeltas whose units do not convert (M and D), storing into an element of another unit or
   type.
Values are checked on the GPU by test_jit_datetime_gpu.py (against NumPy and numba-cuda)."""
import numpy as np
import pytest

import cubridge
from conftest import described_address

CC = (9, 0)
NAT = "-9223372036854775808"


def _llvm(fn, sig):
    return cubridge.compile(fn, sig, device=False, abi="numba", cc=CC, output="llvm")[0]


def _result(fn, sig):
    return str(cubridge.compile(fn, sig, device=True, abi="numba", cc=CC)[1])


class _Cai:
    def __init__(self, typestr, shape=(4,)):
        address, self._keep = described_address()
        self.__cuda_array_interface__ = {"version": 3, "typestr": typestr, "shape": shape, "strides": None,
                                         "data": (address, False)}


# 1. typeof
@pytest.mark.parametrize("dtype, name", [
    ("datetime64[D]", "array(datetime64[D], 1d, C)"),
    ("timedelta64[D]", "array(timedelta64[D], 1d, C)"),
    ("datetime64[ns]", "array(datetime64[ns], 1d, C)"),
    ("timedelta64[ms]", "array(timedelta64[ms], 1d, C)"),
    ("datetime64", "array(datetime64[], 1d, C)"),
])
def test_typeof_spells_numpy_datetime_arrays_as_numba(dtype, name):
    assert str(cubridge.typeof(np.zeros(3, dtype))) == name


def test_typeof_spells_datetime_scalars_as_numba():
    assert str(cubridge.typeof(np.datetime64("2005-02-06", "D"))) == "datetime64[D]"
    assert str(cubridge.typeof(np.timedelta64(3, "h"))) == "timedelta64[h]"
    assert str(cubridge.typeof(np.datetime64("NaT", "s"))) == "datetime64[s]"


def test_the_unit_is_part_of_the_type():
    assert cubridge.typeof(np.zeros(3, "M8[D]")) != cubridge.typeof(np.zeros(3, "M8[s]"))
    assert cubridge.typeof(np.zeros(3, "M8[D]")) != cubridge.typeof(np.zeros(3, "m8[D]"))
    assert hash(cubridge.Type.parse("datetime64[D]")) != hash(cubridge.Type.parse("datetime64[s]"))


@pytest.mark.parametrize("typestr, name", [
    ("<M8[D]", "array(datetime64[D], 1d, C)"),
    ("<m8[ms]", "array(timedelta64[ms], 1d, C)"),
    ("<M8", "array(datetime64[], 1d, C)"),
])
def test_a_cai_array_is_read_with_its_unit(typestr, name):
    assert str(cubridge.typeof(_Cai(typestr))) == name


@pytest.mark.parametrize("typestr, message", [
    ("<M8[10s]", r"'<M8\[10s\]' is not a valid typestr \(the unit '\[10s\]' is not one of \[Y, M, W, D, h, m, s"),
    ("<M4[D]", r"'<M4\[D\]' is not a valid typestr \(a datetime64/timedelta64 is 8 bytes: write <M8\[unit\]"),
    ("<m8[D", r"'<m8\[D' is not a valid typestr \(the unit '\[D' is not one of"),
])
def test_a_bad_datetime_typestr_is_refused_by_name(typestr, message):
    with pytest.raises(ValueError, match=message):
        cubridge.typeof(_Cai(typestr))


def test_a_datetime_array_in_non_native_byte_order_is_refused():
    with pytest.raises(TypeError, match=r"arrays of typestr '>M8\[D\]' cannot be kernel arguments: datetime64 "
                                        r"arrays are taken in native byte order"):
        cubridge.typeof(np.zeros(2, ">M8[D]"))


def test_a_multiple_of_a_unit_in_a_numpy_array_is_refused():
    with pytest.raises(TypeError, match=r"'<M8\[10s\]' cannot be kernel arguments: .*not multiples of one"):
        cubridge.typeof(np.zeros(2, "M8[10s]"))


# 2. spellings
@pytest.mark.parametrize("text", ["datetime64[D]", "timedelta64[ms]", "datetime64[]", "timedelta64[as]",
                                  "array(datetime64[D], 1d, C)", "array(timedelta64[s], 2d, A)"])
def test_signature_spellings_read_back(text):
    assert str(cubridge.Type.parse(text)) == text


def test_numpy_name_of_the_generic_unit_is_accepted():
    assert str(cubridge.Type.parse("datetime64")) == "datetime64[]"


def test_numba_datetime_types_convert():
    numba = pytest.importorskip("numba")
    assert str(cubridge.Type.from_numba(numba.types.NPDatetime("D"))) == "datetime64[D]"
    assert str(cubridge.Type.from_numba(numba.types.NPTimedelta("ms")[:])) == "array(timedelta64[ms], 1d, A)"
    assert str(cubridge.Type.from_numba(numba.types.NPDatetime(""))) == "datetime64[]"
    assert str(cubridge.Type.from_dtype(np.dtype("m8[us]"))) == "timedelta64[us]"


# 3. result types
def sub(a, b):
    return a - b


def add(a, b):
    return a + b


def mul(a, b):
    return a * b


def div(a, b):
    return a / b


def neg(a):
    return -a


def lt(a, b):
    return a < b


def eq(a, b):
    return a == b


def ne(a, b):
    return a != b


@pytest.mark.parametrize("fn, sig, result", [
    (sub, "(datetime64[D], datetime64[D])", "timedelta64[D]"),
    (sub, "(datetime64[D], datetime64[h])", "timedelta64[h]"),
    (sub, "(datetime64[s], datetime64[D])", "timedelta64[s]"),
    (sub, "(datetime64[Y], datetime64[M])", "timedelta64[M]"),
    (sub, "(datetime64[D], timedelta64[D])", "datetime64[D]"),
    (sub, "(datetime64[D], timedelta64[m])", "datetime64[m]"),
    (add, "(datetime64[h], timedelta64[D])", "datetime64[h]"),
    (add, "(timedelta64[D], datetime64[D])", "datetime64[D]"),
    (add, "(timedelta64[D], timedelta64[h])", "timedelta64[h]"),
    (sub, "(timedelta64[ms], timedelta64[s])", "timedelta64[ms]"),
    (add, "(timedelta64[Y], timedelta64[M])", "timedelta64[M]"),
    (add, "(timedelta64[], timedelta64[s])", "timedelta64[s]"),
    (mul, "(timedelta64[D], int32)", "timedelta64[D]"),
    (mul, "(uint8, timedelta64[s])", "timedelta64[s]"),
    (neg, "(timedelta64[D],)", "timedelta64[D]"),
    (lt, "(datetime64[D], datetime64[s])", "bool"),
    (eq, "(timedelta64[D], timedelta64[h])", "bool"),
])
def test_operators_have_numbas_result_types(fn, sig, result):
    assert _result(fn, sig) == result


# 4. lowering: unit factors and NaT
def store_sub(out, a, b):
    out[0] = a - b


def store_eq(out, a, b):
    out[0] = a == b


def store_ne(out, a, b):
    out[0] = a != b


def store(out, v):
    out[0] = v


def test_the_coarser_operand_is_scaled_by_numpys_factor():
    ir = _llvm(store_sub, "void(timedelta64[h][::1], datetime64[D], datetime64[h])")
    assert "mul i64 %" in ir and ", 24" in ir


def test_weeks_scale_to_days_by_seven():
    ir = _llvm(store_sub, "void(timedelta64[D][::1], datetime64[W], datetime64[D])")
    assert ", 7\n" in ir or ", 7 " in ir


def test_an_operation_with_nat_gives_nat():
    ir = _llvm(store_sub, "void(timedelta64[D][::1], datetime64[D], datetime64[D])")
    assert f"icmp ne i64" in ir and f"i64 {NAT}" in ir and "select i1" in ir


def test_a_comparison_with_nat_is_false_and_not_equal_is_true():
    eq_ir = _llvm(store_eq, "void(bool[::1], datetime64[D], datetime64[D])")
    ne_ir = _llvm(store_ne, "void(bool[::1], datetime64[D], datetime64[D])")
    assert "i1 false" in eq_ir.split("icmp eq i64")[1]
    assert "i1 true" in ne_ir.split("icmp ne i64 %", 1)[1]


# numba-cuda's test_datetime kernels, written without intrinsics (one thread walks the arrays) so that numba-cuda
# compiles them too (test_jit_datetime_gpu.py).
def basic_datetime_kernel(start, end, delta):  # test_basic_datetime_kernel
    for i in range(delta.size):
        delta[i] = end[i] - start[i]


def scalar_datetime_kernel(dates, target, delta, matches, outdelta):  # test_scalar_datetime_kernel
    for i in range(matches.size):
        matches[i] = dates[i] == target
        outdelta[i] = dates[i] - delta


def assign(out, arr):  # test_datetime_cupy_inputs
    for i in range(arr.shape[0]):
        out[i] = arr[i]


@pytest.mark.parametrize("fn, args", [
    (basic_datetime_kernel, (np.zeros(3, "M8[D]"), np.zeros(3, "M8[D]"), np.zeros(3, "m8[D]"))),
    (scalar_datetime_kernel, (np.zeros(3, "M8[D]"), np.datetime64(1, "D"), np.timedelta64(1, "D"),
                              np.zeros(3, np.bool_), np.zeros(3, "M8[D]"))),
    (assign, (np.zeros(3, "M8[D]"), np.zeros(3, "M8[D]"))),
])
def test_numba_cudas_datetime_kernels_compile_to_ptx(fn, args):
    sig = cubridge.void(*[cubridge.typeof(a) for a in args])
    ptx = cubridge.compile(fn, sig, device=False, abi="numba", cc=CC, output="ptx")[0]
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log


# 5. refusals
@pytest.mark.parametrize("fn, sig, message", [
    (sub, "(datetime64[M], datetime64[D])", r"combining datetime64\[M\] with datetime64\[D\] converts years or "
                                            r"months to days by the calendar"),
    (add, "(datetime64[Y], timedelta64[D])", r"converts years or months to days by the calendar"),
    (add, "(datetime64[D], timedelta64[M])", r"timedelta64\[M\] \(years or months\) cannot be added to or "
                                             r"subtracted from a finer datetime64\[D\]"),
    (add, "(datetime64[D], datetime64[D])", r"unsupported operand types for \+: datetime64\[D\] and datetime64\[D\] "
                                            r"\(numba-cuda has no such operator"),
    (sub, "(timedelta64[D], datetime64[D])", r"unsupported operand types for -: timedelta64\[D\] and datetime64\[D\]"),
    (add, "(timedelta64[M], timedelta64[D])", r"the units of timedelta64\[M\] and timedelta64\[D\] do not convert"),
    (mul, "(timedelta64[D], float64)", r"timedelta64 \* float64 is not supported by cubridge"),
    (div, "(timedelta64[D], timedelta64[D])", r"timedelta64 / timedelta64, // and % are not supported"),
    (add, "(datetime64[D], int64)", r"unsupported operand types for \+: datetime64\[D\] and int64"),
    (lt, "(datetime64[D], timedelta64[D])", r"cannot compare datetime64\[D\] with timedelta64\[D\] \(numba-cuda "
                                           r"compares a datetime64 with a datetime64 and a timedelta64 with a "
                                           r"timedelta64 only"),
    (eq, "(timedelta64[M], timedelta64[D])", r"cannot compare timedelta64\[M\] with timedelta64\[D\] \(the units"),
    (neg, "(datetime64[D],)", r"datetime64\[D\]"),
])
def test_what_numba_cuda_does_not_type_or_cubridge_does_not_compile_is_refused_by_name(fn, sig, message):
    with pytest.raises(Exception, match=message):
        _result(fn, sig)


@pytest.mark.parametrize("sig", ["void(datetime64[D][::1], datetime64[s])", "void(datetime64[D][::1], int64)",
                                 "void(int64[::1], datetime64[D])", "void(datetime64[D][::1], timedelta64[D])"])
def test_an_element_takes_only_a_value_of_its_own_type_and_unit(sig):
    with pytest.raises(Exception, match=r"cannot store a value of type .* a datetime64/timedelta64 element takes a "
                                        r"value of its own type and unit"):
        _llvm(store, sig)


# A NumPy datetime array bound outside the kernel is frozen into constant memory as numba-cuda freezes any
# constant array: its int64 counts, typed datetime64[unit].
EPOCHS = np.array(["2024-01-01", "2024-03-01", "NaT"], dtype="M8[D]")


def days_since_first_epoch(out):
    for i in range(out.size):
        out[i] = EPOCHS[i] - EPOCHS[0]


def test_a_global_datetime_array_is_a_constant_array_of_its_counts():
    ir = _llvm(days_since_first_epoch, "void(timedelta64[D][::1])")
    counts = EPOCHS.view(np.int64).astype("<i8").tobytes()
    assert "".join(f"\\{b:02X}" for b in counts) in ir


# np.datetime64 / np.timedelta64 scalars bound outside the kernel are constants of their type (numba's
# lower_constant of NPDatetime: the int64 count), NaT included.
T0 = np.datetime64("2024-01-01", "D")
HOUR = np.timedelta64(1, "h")
NAT_S = np.datetime64("NaT", "s")


def since_t0(out, d):
    out[0] = d - T0


def plus_an_hour(out, d):
    out[0] = d + HOUR


def is_nat_s(out, d):
    out[0] = d != NAT_S


def test_global_datetime_scalars_are_constants_of_their_type():
    assert _result(sub_t0, "(datetime64[D],)") == "timedelta64[D]"
    ir = _llvm(since_t0, "void(timedelta64[D][::1], datetime64[D])")
    assert f"i64 {int(T0.astype('int64'))}" in ir
    ir = _llvm(plus_an_hour, "void(datetime64[h][::1], datetime64[D])")
    assert "i64 1" in ir and ", 24" in ir  # the date scaled to hours, the hour added
    ir = _llvm(is_nat_s, "void(bool[::1], datetime64[s])")
    assert NAT in ir


def sub_t0(d):
    return d - T0
