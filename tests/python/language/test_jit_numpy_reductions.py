"""NumPy's whole-array reductions in kernels (issue 21, numba-cuda's test_array_reductions), without a GPU.
The rules, each a test below:
- np.all, any, sum, mean, var, std, min, max, nanmin, nanmax, nansum, nanprod, nanmean and count_nonzero take
  an array of any rank and layout and compile for integers, bools, float32 and float64 (all, any, sum, mean,
  count_nonzero for complex numbers too);
- the result type is numba's: sum widens integers to int64/uint64 and bools to int64; mean, var, std and
  nanmean are float64 for integers and bools and for float32 (their division by a.size is float64); min and max
  keep the dtype; nansum/nanprod widen integers to int64; count_nonzero is int64; all and any are bool;
- over constant data the result folds to numba's value (the NaN and empty-array rules are numba's
  arraymath implementations: the first NaN wins min/max, NaNs are skipped by the nan* reductions);
- refused by name: axis=/dtype= and other arguments, a scalar argument, float16 and record elements,
  complex var/std/min/max/nan*, and the nan* accumulations of bools.
Values over run-time arrays are compared with numba-cuda on the GPU (parity/kernels_reductions.py)."""
import numpy as np
import pytest

import cubridge
from cubridge import CompileError

CC = (9, 0)
REDUCTIONS = ["all", "any", "sum", "mean", "var", "std", "min", "max", "nanmin", "nanmax", "nansum", "nanprod",
              "nanmean", "count_nonzero"]


def _reduction(name):
    ns = {"np": np}
    exec(f"def f(a):\n    return np.{name}(a)\n", ns)
    return ns["f"]


def _resty(name, spelling):
    ptx, resty = cubridge.compile_ptx(_reduction(name), f"({spelling},)", device=True, cc=CC)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    return str(resty)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("spelling", ["float64[::1]", "float32[:, :]", "int32[:, :, ::1]", "int64[::1]"])
def test_every_reduction_compiles_for_numbers_of_any_rank(name, spelling):
    assert _resty(name, spelling)


@pytest.mark.parametrize("name, spelling, expected", [
    ("sum", "int32[::1]", "int64"), ("sum", "uint8[::1]", "uint64"), ("sum", "bool[::1]", "int64"),
    ("sum", "float32[::1]", "float32"), ("sum", "complex64[::1]", "complex64"),
    ("mean", "int32[::1]", "float64"), ("mean", "float32[::1]", "float64"), ("mean", "bool[::1]", "float64"),
    ("var", "float32[:, :]", "float64"), ("std", "int16[::1]", "float64"),
    ("min", "int32[::1]", "int32"), ("max", "float32[::1]", "float32"), ("nanmin", "int8[::1]", "int8"),
    ("nansum", "int32[::1]", "int64"), ("nanprod", "float32[::1]", "float32"), ("nanmean", "int32[::1]", "float64"),
    ("count_nonzero", "float64[:, ::1]", "int64"), ("count_nonzero", "bool[::1]", "int64"),
    ("all", "float64[::1]", "bool"), ("any", "int32[:, :]", "bool"),
])
def test_result_types_are_numbas(name, spelling, expected):
    assert _resty(name, spelling) == expected


VALUES = np.float64([[np.nan, -1.5], [2.5, 3.0]])
COUNTS = np.int64([[1, 0, 2], [0, 3, 0]])


def folded_floats(out):
    out[0] = np.min(VALUES)  # the first NaN is the minimum
    out[1] = np.nanmin(VALUES)  # NaNs skipped: -1.5
    out[2] = np.nanmax(VALUES)  # 3.0
    out[3] = np.nanprod(VALUES)  # -1.5 * 2.5 * 3.0 = -11.25


def folded_counts(counts):
    counts[0] = np.count_nonzero(COUNTS)  # 3
    counts[1] = np.all(COUNTS)  # False
    counts[2] = np.any(COUNTS)  # True
    counts[3] = np.max(COUNTS)  # 3


def _stored(ptx):
    """The immediates stored to global memory, by byte offset (NVVM folds reductions of constant data)."""
    import re
    regs, out = {}, {}
    for line in ptx.splitlines():
        line = line.strip()
        if m := re.match(r"mov\.\w+\s+(%\w+),\s*([^;]+);", line):
            regs[m.group(1)] = m.group(2).strip()
        elif m := re.match(r"st\.global\.\w+\s+\[%rd\d+(?:\+(\d+))?\],\s*([^;]+);", line):
            v = m.group(2).strip()
            out[int(m.group(1) or 0)] = regs.get(v, v)
    return out


def _double(text):
    import struct
    if text.startswith("0d"):
        return struct.unpack(">d", bytes.fromhex(text[2:]))[0]
    return struct.unpack("<d", struct.pack("<q", int(text)))[0]


def test_reductions_of_constant_arrays_fold_to_numbas_values():
    ptx, _ = cubridge.compile_ptx(folded_floats, "void(float64[::1])", cc=CC)
    got = {off: _double(v) for off, v in _stored(ptx).items()}
    assert np.isnan(got[0]) and got[8] == -1.5 and got[16] == 3.0 and got[24] == -11.25
    ptx, _ = cubridge.compile_ptx(folded_counts, "void(int64[::1])", cc=CC)
    assert {off: int(v) for off, v in _stored(ptx).items()} == {0: 3, 8: 0, 16: 1, 24: 3}


@pytest.mark.parametrize("source, match", [
    ("np.sum(a, axis=0)", r"np.sum\(\) is supported on a whole array in kernels .*axis="),
    ("np.mean(a, 0)", r"np.mean\(\) is supported on a whole array"),
    ("np.max(a[0, 0])", r"np.max\(\) takes an array here, got float64"),
])
def test_other_arguments_and_scalars_are_refused(source, match):
    ns = {"np": np}
    exec(f"def f(a):\n    return {source}\n", ns)
    with pytest.raises(CompileError, match=match):
        cubridge.compile_ptx(ns["f"], "(float64[:, ::1],)", device=True, cc=CC)


@pytest.mark.parametrize("name, spelling, match", [
    ("var", "complex128[::1]", r"np.var\(\) of array\(complex128, 1d, C\) is not supported: complex elements"),
    ("nanmax", "complex64[::1]", r"np.nanmax\(\) of .* complex elements"),
    ("nansum", "bool[::1]", r"np.nansum\(\) of array\(bool, 1d, C\) is not supported: numba-cuda keeps the bool"),
    ("sum", "float16[::1]", r"np.sum\(\) of array\(float16, 1d, C\) is not supported: its elements are float16"),
])
def test_unreproduced_dtypes_are_refused_by_name(name, spelling, match):
    with pytest.raises(CompileError, match=match):
        cubridge.compile_ptx(_reduction(name), f"({spelling},)", device=True, cc=CC)
