"""Tuples of NumPy arrays captured by a kernel, and numba's literal_unroll (issue 21, numba-cuda's
test_array_reductions), without a GPU. The rules, each a test below:
- a module or closure tuple of NumPy arrays (and numbers) is frozen as numba-cuda freezes each array: item k
  is a read-only constant-memory array with the item's bytes;
- `t[k]` (a constant k, negative too) is that item, `len(t)` the tuple's length; an index out of range and
  the tuple used as a value are refused by name;
- `for x in literal_unroll(t)` runs the body once per item with the item's own type (items of different
  ranks, layouts and dtypes), and a variable the body defines before reading gets one version per item; it
  unrolls captured tuples, tuple parameters and tuples written in place;
- the builtin `tuple((a, b))` of a tuple written in place is that tuple (numba-cuda's test_vector_type
  iterates one); tuple() of anything else stays refused;
- refused by name: break/continue in the unrolled body, the loop variable read after the loop, a local
  tuple (its length is not known before typing) and a non-tuple; a 0-d array in a captured tuple is an item.
Values are compared with numba-cuda on the GPU by parity/kernels_reductions.py."""
import numpy as np
import pytest

import cubridge
from cubridge import CompileError

try:
    from numba import literal_unroll
except ImportError:  # pragma: no cover - numba is in the test requirements
    pytest.skip("numba is not installed", allow_module_level=True)

CC = (9, 0)
MIXED = (np.float64([1.0, -2.5, 4.0]), np.int32([[1, 2], [3, 4]]), np.array([True, False]))
WITH_ZERO_D = (np.float64([1.0]), np.array(0))


def _ptx(fn, sig, **kw):
    ptx, resty = cubridge.compile_ptx(fn, sig, cc=CC, **kw)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    return ptx, resty


def _const_bytes(ptx, symbol):
    line = next(l for l in ptx.splitlines() if f"{symbol}[" in l and l.lstrip().startswith(".const"))
    size = int(line[line.index("[") + 1:line.index("]")])
    given = bytes(int(v) for v in line[line.index("{") + 1:line.index("}")].split(","))
    return given + bytes(size - len(given))


def read_items(out):
    i = cubridge.grid(1)  # run-time indices keep the arrays in constant memory
    out[0] = MIXED[0][i % 3] + MIXED[1][i % 2, 1] + MIXED[-1][i % 2]


def test_items_of_a_captured_tuple_are_constant_arrays_with_their_bytes():
    ptx, _ = _ptx(read_items, "void(float64[::1])")
    for k, a in enumerate(MIXED[:2]):  # (NVVM turns the 2-byte bool array into a select)
        assert _const_bytes(ptx, f"__cb_const_MIXED${k}") == a.tobytes()


def test_closure_tuple_is_frozen_too():
    cases = (np.int64([5, 6, 7]), np.float32([0.5]))

    def k(out):
        out[0] = cases[0][cubridge.grid(1) % 3] + cases[1][0]
    ptx, _ = _ptx(k, "void(float64[::1])")
    assert _const_bytes(ptx, "__cb_const_cases$0") == cases[0].tobytes()


def length_and_last(out):
    out[0] = len(MIXED) + MIXED[-1].size + MIXED[-3][2]


def test_len_and_a_negative_constant_index_fold():
    ptx, _ = _ptx(length_and_last, "void(float64[::1])")
    # 3 + 2 + 4.0 = 9.0, folded: no constant array is left in the code
    assert "__cb_const_" not in ptx
    assert "4621256167635550208" in ptx or "0d4022000000000000" in ptx  # 9.0's bits


def unrolled_sizes(out):
    i = 0
    for a in literal_unroll(MIXED):
        first = a[0]  # float64, a row of int32, bool: one version per item
        out[i] = a.size * 10 + a.ndim
        i += 1


def test_literal_unroll_types_each_item_apart():
    ptx, _ = _ptx(unrolled_sizes, "void(int64[::1])")
    for value in (31, 42, 21):  # size * 10 + ndim of each item, folded
        assert str(value) in ptx


def nested_unrolls(out):
    j = 0
    for a in literal_unroll(MIXED):
        s = 0.0
        for c in literal_unroll(MIXED):
            s += a.size * 10 + c.size
        for x in literal_unroll((a.size, 0.5)):  # a tuple written in place, of the outer item's size
            s += x
        out[j] = s
        j += 1


def _has_double(ptx, v):
    import struct
    bits = struct.unpack("<q", struct.pack("<d", v))[0]
    return str(bits) in ptx or f"0d{bits:016X}" in ptx


def test_nested_literal_unroll_loops_each_unroll():
    ptx, _ = _ptx(nested_unrolls, "void(float64[::1])")
    # sizes 3, 4, 2: 3 * (10 * size) + 9 + size + 0.5, folded
    assert all(_has_double(ptx, v) for v in (102.5, 133.5, 71.5)), ptx


def sum_of_parameter_and_literal(t):
    s = 0.0
    for x in literal_unroll(t):
        s += x
    for y in literal_unroll((1, 2.5)):
        s += y
    return s


def test_literal_unroll_of_a_tuple_parameter_and_a_tuple_literal():
    _, resty = _ptx(sum_of_parameter_and_literal, "(Tuple(int64, float32),)", device=True)
    assert str(resty) == "float64"


def _refused(fn, match, sig="void(float64[::1])"):
    with pytest.raises(CompileError, match=match):
        cubridge.compile_ptx(fn, sig, cc=CC)


def test_the_tuple_as_a_value_is_refused_by_name():
    def k(out):
        t = MIXED
        out[0] = t[0][0]
    _refused(k, r"'MIXED' is a tuple of 3 NumPy arrays .*literal_unroll\(MIXED\)")


def test_an_index_out_of_range_is_refused():
    def k(out):
        out[0] = MIXED[3][0]
    _refused(k, r"tuple index 3 is out of range for 'MIXED', a tuple of 3 items")


def test_break_in_the_unrolled_body_is_refused():
    def k(out):
        for a in literal_unroll(MIXED):
            if a.size > 2:
                break
            out[0] = a.size
    _refused(k, r"break in a literal_unroll loop is not supported")


def test_the_loop_variable_after_the_loop_is_refused():
    def k(out):
        for a in literal_unroll(MIXED):
            out[0] = a.size
        out[1] = a.size
    _refused(k, r"the variable 'a' of a literal_unroll loop is used outside the loop")


def test_a_local_tuple_is_refused():
    def k(out):
        t = (1, 2.5)
        for x in literal_unroll(t):
            out[0] = x
    _refused(k, r"literal_unroll\(t\): 't' is a local variable")


def test_a_non_tuple_parameter_is_refused():
    def k(out):
        for x in literal_unroll(out):
            out[0] = x
    _refused(k, r"literal_unroll\(out\): 'out' is array\(float64, 1d, C\); literal_unroll takes a tuple")


def test_a_zero_d_array_in_a_captured_tuple_is_an_item():
    def k(out):
        for a in literal_unroll(WITH_ZERO_D):
            out[0] += a.size + a.ndim
    assert ".entry" in cubridge.compile_ptx(k, "void(float64[::1])", cc=CC)[0]  # more in test_zero_d_captures.py


from numba import cuda  # noqa: E402  (numba-cuda's vector types, as its test spells them)


def over_tuple_builtin(res):
    j = 0
    for v in tuple((cuda.float32x4(1.0, 2.0, 3.0, 4.0), cuda.float32x4(5.0, 6.0, 7.0, 8.0))):
        res[j] = v.x + v.w
        j += 1


def test_tuple_of_a_tuple_written_in_place_is_that_tuple():
    ptx, _ = _ptx(over_tuple_builtin, "void(float32[::1])")
    assert "1084227584" in ptx and "1095761920" in ptx  # the bits of 5.0f and 13.0f, folded


def test_tuple_of_a_variable_stays_refused():
    def k(res):
        t = (1, 2)
        u = tuple(t)
        res[0] = u[0]
    _refused(k, r"name 'tuple' is not defined or not supported as a function", sig="void(float32[::1])")
