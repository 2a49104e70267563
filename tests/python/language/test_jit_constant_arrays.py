"""NumPy arrays bound outside a kernel (module globals, closure variables), without a GPU: as numba-cuda
does, they are frozen into the code as read-only constant memory, read directly or through
const.array_like; writes, oversized arrays and const.array_like of anything else are refused by name; the
on-disk code cache tells arrays of different contents apart. Their values are checked on the GPU by the
kernel corpus (const_stencil, const_lookup)."""
import numpy as np
import pytest

import cubridge

CC = (9, 0)
TABLE = (np.arange(24, dtype=np.int32) * 3 - 7).reshape(2, 3, 4)
BIG_ENDIAN = np.array([1.5, -2.25], dtype=">f8")
HUGE = np.zeros(20000, dtype=np.float32)  # 80,000 bytes: more than constant memory's 64 KiB


def read_table(out):
    i = cubridge.grid(1)
    if i < out.shape[0]:
        out[i] = TABLE[i % 2, i % 3, i % 4] + TABLE.shape[2] + TABLE.ndim


def through_array_like(out):
    t = cubridge.const.array_like(TABLE)
    i = cubridge.grid(1)  # an index known only at run time keeps the table (constant ones fold away)
    out[0] = t[1, 2, i % 4]


def read_big_endian(out):
    out[0] = BIG_ENDIAN[cubridge.grid(1) % 2]


def write_table(out):
    TABLE[0, 0, 0] = 1


def atomic_on_table(out):
    cubridge.atomic.add(TABLE, (0, 0, 0), 1)


def read_huge(out):
    out[0] = HUGE[0]


def array_like_of_argument(x):
    t = cubridge.const.array_like(x)
    x[0] = t[0]


def closure_kernel(scale):
    def k(out):
        out[0] = scale[1]
    return k


def _ptx(fn, sig):
    ptx, resty = cubridge.compile_ptx(fn, sig, cc=CC)
    assert resty is None
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    return ptx


def _const_bytes(ptx, name):
    """The initializer of the .const global `name` in PTX, as bytes."""
    line = next(l for l in ptx.splitlines() if f"__cb_const_{name}[" in l and l.lstrip().startswith(".const"))
    size = int(line[line.index("[") + 1:line.index("]")])
    given = bytes(int(v) for v in line[line.index("{") + 1:line.index("}")].split(","))
    return given + bytes(size - len(given))  # PTX leaves trailing zero bytes out


def test_module_global_lands_in_constant_memory_with_its_bytes():
    ptx = _ptx(read_table, "void(int64[::1])")
    assert _const_bytes(ptx, "TABLE") == TABLE.tobytes()
    assert "ld.const" in ptx


def test_const_array_like_reads_the_same_array():
    ptx = _ptx(through_array_like, "void(int32[::1])")
    assert _const_bytes(ptx, "TABLE") == TABLE.tobytes()


def test_numba_spelling_of_const_array_like():
    from numba import cuda  # noqa: F401  (the kernel below spells it as numba-cuda does)

    def k(out):
        t = cuda.const.array_like(TABLE)
        out[0] = t[0, 0, cuda.grid(1) % 4]
    assert _const_bytes(_ptx(k, "void(int32[::1])"), "TABLE") == TABLE.tobytes()


def test_foreign_byte_order_is_stored_native():
    ptx = _ptx(read_big_endian, "void(float64[::1])")
    assert _const_bytes(ptx, "BIG_ENDIAN") == BIG_ENDIAN.astype("<f8").tobytes()


def test_closure_variables_are_constant_arrays_too():
    scale = np.array([0.5, 4.0], dtype=np.float64)
    ptx, _ = cubridge.compile_ptx(closure_kernel(scale), "void(float64[::1])", cc=CC)
    four = int.from_bytes(np.float64(4.0).tobytes(), "little")
    assert str(four) in ptx  # scale[1] (4.0) read at compile time: the constant load folded into a move


@pytest.mark.parametrize("fn,sig,message", [
    (write_table, "void(int64[::1])", r"cannot store to 'TABLE': it is a NumPy array bound outside the kernel, "
                                      r"frozen into the code as read-only constant memory"),
    (atomic_on_table, "void(int64[::1])", r"cannot update 'TABLE': it is a read-only array"),
    (read_huge, "void(float32[::1])", r"array 'HUGE' \(80000 bytes\) does not fit: the module's constant arrays take "
                                      r"80000 bytes and constant memory holds 65536"),
    (array_like_of_argument, "void(float32[::1])", r"cubridge\.const\.array_like\(ary\): ary must be a NumPy array "
                                                   r"bound outside the kernel"),
])
def test_refusals_name_the_array(fn, sig, message):
    with pytest.raises(cubridge.CompileError, match=message):
        cubridge.compile_ptx(fn, sig, cc=CC)


def test_the_code_cache_tells_contents_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("CUBRIDGE_CACHE_DIR", str(tmp_path))
    global TABLE
    saved = TABLE
    try:
        first, _ = cubridge.compile(read_table, "void(int64[::1])", device=False, abi="numba", cc=CC, cache=True)
        TABLE = saved + 1
        second, _ = cubridge.compile(read_table, "void(int64[::1])", device=False, abi="numba", cc=CC, cache=True)
    finally:
        TABLE = saved
    assert _const_bytes(first, "TABLE") == saved.tobytes()
    assert _const_bytes(second, "TABLE") == (saved + 1).tobytes()


def test_bad_constant_arrays_from_the_binding_are_refused():
    o = cubridge._core._CompileOptions() if hasattr(cubridge._core, "_CompileOptions") else None
    if o is None:
        pytest.skip("the options class is not exposed under this name")
    with pytest.raises(ValueError, match=r"dtype 'object' is not a number type"):
        o.add_constant_array("X", "object", [2], b"\0" * 16)
    with pytest.raises(ValueError, match=r"15 bytes given for 2 elements of float64 \(16 bytes expected\)"):
        o.add_constant_array("X", "float64", [2], b"\0" * 15)
    with pytest.raises(ValueError, match=r"rank 33 is not supported; expected 0 to 32 dimensions"):
        o.add_constant_array("X", "float64", [1] * 33, b"\0" * 8)
    o.add_constant_array("X", "float64", [], b"\0" * 8)  # rank 0: numba's 0-d array, one element


# Structured arrays (numba-cuda's test_constmem record cases): frozen into constant memory as numba's Record
# of their dtype, packed or aligned, their fields read by name; fields that are not kernel types (a
# big-endian field) are refused by name. Values against numba-cuda: parity/kernels_constant_records.py.
def test_record_arrays_are_constant_memory():
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
    from conftest import assembled_ptx
    from parity import kernels_constant_records as k
    ptx = assembled_ptx(k.const_record, "void(float64[::1], int64[::1])", CC)
    assert "__cb_const_CONST_RECORD[32]" in ptx  # two records of 16 bytes
    ptx = assembled_ptx(k.const_record_align, "void(float64[::1], float64[::1], float64[::1], float64[::1], "
                                               "float64[::1])", CC)
    assert "__cb_const_CONST_RECORD_ALIGN[24]" in ptx and "ld.const.u32" in ptx  # y at offset 4, aligned
    assembled_ptx(k.const_record_empty, "void(float64[::1])", CC)


BIG_ENDIAN_RECORDS = np.zeros(2, dtype=[("x", ">f8")])


def reads_big_endian_records(out):
    out[0] = BIG_ENDIAN_RECORDS[0]["x"]


def test_a_record_array_of_non_kernel_fields_is_refused_by_name():
    with pytest.raises(cubridge.CompileError, match=r"a structured NumPy array bound outside the kernel: a constant "
                                                    r"array: field dtype '>f8' is not a kernel type"):
        cubridge.compile_ptx(reads_big_endian_records, "void(float64[::1])")
