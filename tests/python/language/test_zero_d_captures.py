"""0-d arrays (numba's array(T, 0d, C)) captured from a kernel's globals and closure, and NumPy's reductions
over them, as numba-cuda handles them (test_array_reductions.test_count_nonzero_basic,
test_device_array_capture.test_zero_dimensional). Rules:
 1. A 0-d NumPy array global is frozen into constant memory like any NumPy global: a read-only
    array(T, 0d, C) whose a[()] is its one element; a write to it is refused by name.
 2. A 0-d NumPy array inside a captured tuple is an item like the others: indexed with a constant and
    iterated by literal_unroll with its own type.
 3. NumPy's reductions walk a 0-d array's one element (np.nditer over a 0-d array yields it once):
    np.count_nonzero, np.sum, np.max... of a 0-d array are those of its value.
 4. A captured 0-d GPU array (__cuda_array_interface__ with shape ()) embeds its device pointer: a[()] loads
    and stores that memory, as a 0-d kernel argument would.
 5. GPU: the values match NumPy and numba-cuda on the same source.
 6. len() of, iteration over and atomics on a 0-d array (captured or an argument) are refused by name: NumPy
    has no len or iteration of a 0-d array, numba-cuda's atomics take arrays of one or more dimensions."""
import numpy as np
import pytest

import cubridge

CC = (9, 0)
ZERO_D = np.array(42.0, dtype=np.float32)
CASES = (np.int64([1, 0, 2, 0, 3]), np.array(0), np.float64([]), np.array(2.5), np.float64([np.nan, 0.0, 1.0]))
PAIR = (np.array(7, dtype=np.int32), np.float64([1.5, 2.5]))
RECORD_0D = np.zeros((), np.dtype([("a", np.int32), ("b", np.float64)], align=True))
RECORD_0D["b"] = 2.5


class FakeDeviceArray:
    """An object with a CUDA Array Interface whose pointer is never dereferenced (the code is only compiled)."""

    def __init__(self, address, shape, typestr):
        self.__cuda_array_interface__ = {"data": (address, False), "shape": shape, "typestr": typestr,
                                         "strides": None, "version": 3}


SCALAR = FakeDeviceArray(0x7F0000004000, (), "<f4")


def reads_zero_d(out):
    out[()] = ZERO_D[()] * 2.0


def writes_zero_d(out):
    ZERO_D[()] = out[()]


def counts(out):
    i = 0
    for case in literal_unroll(CASES):
        out[i] = np.count_nonzero(case)
        i += 1


def indexes_pair(out):
    out[0] = PAIR[0][()] + PAIR[1][1] + PAIR[0].ndim


def reductions_of_0d(out, a):
    out[0] = np.sum(a)
    out[1] = np.max(a)
    out[2] = np.mean(a)
    out[3] = np.count_nonzero(a)


def reads_and_writes_scalar(out):
    out[()] = SCALAR[()] * 2.0
    SCALAR[()] = 1.0


def reads_record(out):
    out[0] = RECORD_0D[()].b


def length_of(out, z):
    out[0] = len(z)


def iterates(out, z):
    for v in z:
        out[0] = v


def atomic_on(out, z):
    cubridge.atomic.add(z, (), 1)


try:  # numba-cuda's own (its tests import it from there), else numba's
    from numba.cuda.misc.special import literal_unroll  # noqa: E402
except ImportError:
    from numba import literal_unroll  # noqa: E402

F32_0D = cubridge.typeof(np.zeros((), np.float32))


def _ptx(fn, sig):
    return cubridge.compile_ptx(fn, sig, cc=CC)[0]


def _stored_u64(ptx):
    """The values stored by `mov.u64 %rdN, value` then `st.global.u64 [...], %rdN`, in store order."""
    values, stores = {}, []
    for line in ptx.splitlines():
        parts = line.replace(",", " ").replace(";", " ").split()
        if parts[:1] == ["mov.u64"] and parts[2].lstrip("-").isdigit():
            values[parts[1]] = int(parts[2])
        elif parts[:1] == ["st.global.u64"]:
            stores.append((parts[1], values.get(parts[2])))
    return stores


def test_a_0d_numpy_global_is_a_constant_array_read_by_its_element():
    ir = cubridge.compile(reads_zero_d, cubridge.void(F32_0D), output="llvm", abi="numba", device=False, cc=CC)[0]
    assert "@__cb_const_ZERO_D = internal addrspace(4) constant [4 x i8]" in ir
    assert str(int(np.float32(84.0).view(np.uint32))) in _ptx(reads_zero_d, cubridge.void(F32_0D))


def test_a_write_to_a_0d_numpy_global_is_refused_by_name():
    with pytest.raises(cubridge.CompileError, match="ZERO_D"):
        _ptx(writes_zero_d, cubridge.void(F32_0D))


def test_a_0d_array_in_a_captured_tuple_is_unrolled_and_counted():
    stores = _stored_u64(_ptx(counts, "void(int64[::1])"))
    assert [v for _, v in stores] == [int(np.count_nonzero(c)) for c in CASES]


def test_a_0d_array_in_a_captured_tuple_is_indexed():
    ptx = _ptx(indexes_pair, "void(float64[::1])")
    assert str(int(np.float64(7 + 2.5 + 0).view(np.uint64))) in ptx or "0d4023000000000000" in ptx


@pytest.mark.parametrize("dtype", ["int64", "float64", "bool"])
def test_reductions_of_a_0d_argument_compile(dtype):
    ptx = _ptx(reductions_of_0d, f"void(float64[::1], array({dtype}, 0d, C))")
    assert ".entry" in ptx


def test_a_captured_0d_gpu_array_embeds_its_address():
    ir = cubridge.compile(reads_and_writes_scalar, cubridge.void(F32_0D), output="llvm", abi="numba",
                          device=False, cc=CC)[0]
    assert f"inttoptr i64 {0x7F0000004000} to float*" in ir
    ptx = _ptx(reads_and_writes_scalar, cubridge.void(F32_0D))
    assert str(0x7F0000004000) in ptx


def test_a_0d_record_global_is_a_constant_record_array():
    ir = cubridge.compile(reads_record, "void(float64[::1])", output="llvm", abi="numba", device=False, cc=CC)[0]
    assert "@__cb_const_RECORD_0D = internal addrspace(4) constant [16 x i8]" in ir


@pytest.mark.parametrize("fn, match", [
    (length_of, r"len\(\) of a 0-d array \(array\(int32, 0d, C\)\) is not supported"),
    (iterates, r"cannot iterate over a 0-d array \(array\(int32, 0d, C\)"),
    (atomic_on, r"cubridge.atomic.add\(\) on a 0-d array \(array\(int32, 0d, C\)\) is not supported"),
])
def test_len_iteration_and_atomics_of_a_0d_array_are_refused_by_name(fn, match):
    with pytest.raises(cubridge.CompileError, match=match):
        _ptx(fn, "void(float64[::1], array(int32, 0d, C))")


def _run_reductions(jit, a):
    out = np.zeros(4)
    jit(reductions_of_0d)[1, 1](out, a)
    return out


@pytest.mark.gpu
def test_gpu_values_match_numpy_and_numba_cuda():
    out = np.zeros(len(CASES), dtype=np.int64)
    cubridge.jit(counts)[1, 1](out)
    assert out.tolist() == [int(np.count_nonzero(c)) for c in CASES]
    r = np.zeros((), np.float32)
    cubridge.jit(reads_zero_d)[1, 1](r)
    assert r[()] == 84.0
    rec = np.zeros(1)
    cubridge.jit(reads_record)[1, 1](rec)
    assert rec[0] == 2.5
    for a in (np.array(3), np.array(-2.5), np.array(True)):
        mine = _run_reductions(cubridge.jit, a)
        assert mine.tolist() == [np.sum(a), np.max(a), np.mean(a), np.count_nonzero(a)]
    cuda = pytest.importorskip("numba.cuda")
    theirs = np.zeros(len(CASES), dtype=np.int64)
    cuda.jit(counts)[1, 1](theirs)
    assert theirs.tolist() == out.tolist()
    # numba-cuda 0.30 refuses np.max of a 0-d array (its npy_max indexes it with numpy_take, which its CUDA
    # lowering lacks): the reductions of 0-d arrays are checked against NumPy above only.


@pytest.mark.gpu
def test_gpu_a_captured_0d_device_array_is_read_and_written():
    results = {}
    jits = [("cubridge", cubridge.jit, cubridge.to_device)]
    try:
        from numba import cuda
        jits.append(("numba-cuda", cuda.jit, cuda.to_device))
    except ImportError:
        pass
    for name, jit, to_device in jits:
        captured = to_device(np.array(42.0, dtype=np.float32))

        @jit
        def kernel(out):
            out[()] = captured[()] * 2.0
            captured[()] = 5.0

        out = to_device(np.zeros((), np.float32))
        kernel[1, 1](out)
        results[name] = (float(out.copy_to_host()[()]), float(captured.copy_to_host()[()]))
    assert results["cubridge"] == (84.0, 5.0)
    assert len(set(results.values())) == 1
