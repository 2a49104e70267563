"""cuda.local.array / cuda.shared.array with numba-cuda's alignment= keyword (its test_array_alignment), without
a GPU. The rules:

1. alignment=N (a constant: a literal, a module-level or closure integer) is the alignment of the array: a local
   array is the alloca named "_cudapy_lmem" with align N, a shared array the global "_cudapy_smem_<k>" with
   align N, whatever the dtype (numbers and records) and shape;
2. alignment=None (written, or a closure None) or none given: a local array carries no "_cudapy_lmem" alignment,
   a shared array keeps a power-of-2 alignment (16);
3. an integer that is not positive, not a power of 2 or not a multiple of 8 is refused with numba-cuda's
   ValueError words ("Alignment must be positive" / "a power of 2" / "a multiple of 8") and the value given;
   anything else (a string, a float) with its RequireLiteralValue words "alignment must be a constant integer";
4. a.ctypes.data is the array's data address as uint64 (numba's uintp), so kernels can store it;
5. ptxas assembles what the alignment gives.
GPU values (the addresses really aligned) are checked by parity/kernels_array_alignment.py."""
import itertools
import re

import numpy as np
import pytest

import cubridge

CC = (9, 0)
SIG = "void(uint64[::1], uint64[::1], int64)"
SMEM = re.compile(r'^@"_cudapy_smem_\d+".*?align (\d+)', re.MULTILINE)
LMEM = re.compile(r'^\s*%"_cudapy_lmem".*?align (\d+)', re.MULTILINE)
RECORDS = [np.dtype([("a", np.uint8), ("b", np.int32), ("c", np.float64)], align=a) for a in (True, False)] + \
    [np.dtype([("a", np.uint8), ("b", np.int32), ("c", np.float64), ("d", np.complex64), ("e", (np.uint8, 5))],
              align=a) for a in (True, False)]


def _kernel(shape, dtype, alignment):
    def f(loc, shrd, which):
        i = cubridge.grid(1)
        if which == 0:
            local_array = cubridge.local.array(shape=shape, dtype=dtype, alignment=alignment)
            if i == 0:
                loc[0] = local_array.ctypes.data
        else:
            shared_array = cubridge.shared.array(shape=shape, dtype=dtype, alignment=alignment)
            if i == 0:
                shrd[0] = shared_array.ctypes.data
    return cubridge.jit(SIG)(f)


@pytest.mark.parametrize("shape,dtype,alignment", itertools.product(
    (1, 50, (2, 3), (1, 4, 5)), [np.uint8, np.uint32, np.uint64] + RECORDS, (16, 64, 256)))
def test_alignment_is_the_arrays_alignment(shape, dtype, alignment):
    ir = _kernel(shape, dtype, alignment).inspect_llvm(SIG)
    assert LMEM.findall(ir) == [str(alignment)], ir
    assert SMEM.findall(ir) == [str(alignment)], ir


@pytest.mark.parametrize("dtype", [np.uint8, np.float64] + RECORDS[:1])
def test_no_alignment_leaves_local_arrays_unmarked_and_shared_ones_a_power_of_two(dtype):
    ir = _kernel((2, 3), dtype, None).inspect_llvm(SIG)
    assert LMEM.findall(ir) == []
    (shared,) = SMEM.findall(ir)
    assert int(shared) & (int(shared) - 1) == 0


def test_alignment_positional_and_literal_and_ptxas_assembles_it():
    def f(out):
        a = cubridge.local.array(8, np.float64, 64)
        s = cubridge.shared.array((4, 4), np.int32, alignment=128)
        a[0] = 1.0
        s[0, 0] = 2
        out[0] = a.ctypes.data % 64 + s.ctypes.data % 128
    ptx, _ = cubridge.compile(f, "void(uint64[::1])", cc=CC)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    assert ".align 128" in ptx


@pytest.mark.parametrize("which", ["local", "shared"])
@pytest.mark.parametrize("alignment,words", [(-1, "positive"), (0, "positive"), (3, "a power of 2"),
                                             (17, "a power of 2"), (33, "a power of 2"), (4, "a multiple of 8")])
def test_invalid_integer_alignments_are_refused_with_numbas_words(which, alignment, words):
    def local(dest):
        a = cubridge.local.array(shape=50, dtype=np.uint8, alignment=alignment)
        dest[0] = a.ctypes.data

    def shared(dest):
        a = cubridge.shared.array(shape=50, dtype=np.uint8, alignment=alignment)
        dest[0] = a.ctypes.data
    f = local if which == "local" else shared
    with pytest.raises(ValueError, match=rf"Alignment must be {words} \(cubridge\.{which}\.array got "
                                         rf"alignment={alignment}; it takes a power of 2 that is a multiple of 8"):
        cubridge.jit("void(uint64[::1])")(f)


@pytest.mark.parametrize("alignment", ["1.0", "foo", 1.0, 1.5])
def test_non_integer_alignments_are_refused_as_numba_refuses_them(alignment):
    def f(dest):
        a = cubridge.local.array(shape=50, dtype=np.uint8, alignment=alignment)
        dest[0] = a.ctypes.data
    with pytest.raises(cubridge.CompileError, match=r"RequireLiteralValue: alignment must be a constant integer: "
                                                    r"cubridge\.local\.array\(shape, dtype, alignment\) takes an "
                                                    r"integer literal"):
        cubridge.jit("void(uint64[::1])")(f)


def test_ctypes_data_is_the_data_address_as_uint64():
    def f(a, out):
        out[0] = a.ctypes.data
    ir = cubridge.jit("void(float32[::1], uint64[::1])")(f).inspect_llvm("void(float32[::1], uint64[::1])")
    assert re.search(r"ptrtoint float\* %\S+ to i64", ir), ir
    with pytest.raises(cubridge.CompileError, match=r"'\.ctypes\.data' is an array's data address; a value of type "
                                                    r"float32 has none"):
        cubridge.compile(lambda_free_ctypes, "void(float32)")


def lambda_free_ctypes(x):
    y = x.ctypes.data  # noqa: F841


def test_dynamic_shared_memory_takes_its_alignment_too():
    # every extern shared symbol starts at the dynamic shared memory base: one declared with the alignment
    def f(out):
        d = cubridge.shared.array(0, dtype=np.float32, alignment=64)
        e = cubridge.shared.array(0, dtype=np.float32)
        out[0] = d.ctypes.data % 64 + e.ctypes.data % 16
    ptx, _ = cubridge.compile(f, "void(uint64[::1])", cc=CC)
    assert re.search(r"\.extern \.shared \.align 64 \.b8 __cb_dynamic_shared_align64\[\]", ptx), ptx
    assert re.search(r"\.extern \.shared \.align 16 \.b8 __cb_dynamic_shared\[\]", ptx), ptx
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
