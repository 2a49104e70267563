"""numba's 0-d arrays (numba-cuda's caching tests pass every argument as np.asarray(x)). Rules:
 1. typeof: a 0-d NumPy array is array(T, 0d, C) (of records too); a NumPy scalar is a number and np.void a
    record, as numba.typeof says.
 2. "array(T, 0d, C)" is a type spelling; a kernel signature spells a 0-d parameter that way and reads it back.
 3. a[()] of a 0-d array is its element (loads and stores); the kernel takes numba's five words per 0-d array
    (meminfo, parent, nitems, itemsize, data), as numba-cuda's PTX does.
 4. A 0-d integer array used as an index is its value (numba's rule): a[i] with i = np.asarray(1).
 5. GPU: a launch with 0-d NumPy arrays reads them and writes the result back, as numba-cuda's."""
import numpy as np
import pytest

import cubridge

CC = (8, 0)
REC = np.dtype([("a", np.int8), ("b", np.float64)], align=True)


def add(r, x, y):
    r[()] = x[()] + y[()] + 1


def record_return(r, ary, i):
    r[()] = ary[i]


def entry_params(ptx):
    entry = ptx[ptx.find(".entry"):]
    return [line.split()[1] for line in entry[:entry.find(")")].splitlines() if ".param" in line]


def test_typeof_follows_numba():
    assert cubridge.typeof(np.asarray(2)) == "array(int64, 0d, C)"
    assert cubridge.typeof(np.zeros((), np.float32)) == "array(float32, 0d, C)"
    assert cubridge.typeof(np.float32(1)) == "float32"
    rec = cubridge.typeof(np.zeros(2, REC)).dtype
    assert cubridge.typeof(np.zeros((), REC)) == cubridge.Type.parse(f"array({rec}, 0d, C)")
    assert cubridge.typeof(np.zeros(2, REC)[0]) == rec
    numba = pytest.importorskip("numba")
    for value in (np.asarray(2), np.zeros((), np.float32), np.float32(1)):
        assert cubridge.typeof(value) == str(numba.typeof(value))


def test_the_spelling_parses_and_signatures_spell_it_back():
    t = cubridge.Type.parse("array(int64, 0d, C)")
    assert t.ndim == 0 and t == cubridge.typeof(np.asarray(1))
    sig = cubridge.KernelSignature("void(array(int64, 0d, C), const array(float64, 0d, C))")
    assert str(sig) == "void(array(int64, 0d, C), const array(float64, 0d, C))"
    assert str(cubridge.KernelSignature(str(sig))) == str(sig)


def test_element_loads_and_stores_take_numbas_five_words_per_array():
    t = cubridge.typeof(np.asarray(1))
    ptx, _ = cubridge.compile_ptx(add, cubridge.void(t, t, t), cc=CC)
    assert entry_params(ptx) == [".u64"] * 15
    numba = pytest.importorskip("numba")
    cuda = pytest.importorskip("numba.cuda")
    nt = numba.typeof(np.asarray(1))
    theirs, _ = cuda.compile_ptx(add, (nt, nt, nt), cc=CC)
    assert entry_params(theirs) == entry_params(ptx)


def test_a_0d_integer_array_indexes_as_its_value():
    args = (np.zeros((), REC), np.zeros(2, REC), np.asarray(1))
    ptx, _ = cubridge.compile_ptx(record_return, cubridge.void(*[cubridge.typeof(a) for a in args]), cc=CC)
    assert entry_params(ptx) == [".u64"] * (5 + 7 + 5)


@pytest.mark.gpu
def test_a_launch_with_0d_numpy_arrays_writes_back():
    k = cubridge.jit(add)
    r = np.zeros((), np.int64)
    k[1, 1](r, np.asarray(2), np.asarray(3))
    assert r[()] == 6
    rr = np.zeros((), REC)
    packed = np.zeros(2, REC)
    packed[1]["a"], packed[1]["b"] = 2, 43.5
    cubridge.jit(record_return)[1, 1](rr, packed, np.asarray(1))
    assert tuple(rr[()]) == (2, 43.5)
    cuda = pytest.importorskip("numba.cuda")
    theirs = np.zeros((), np.int64)
    cuda.jit(add)[1, 1](theirs, np.asarray(2), np.asarray(3))
    assert theirs[()] == r[()]
