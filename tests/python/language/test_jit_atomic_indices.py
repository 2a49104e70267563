"""The index of a cuda.atomic call, as numba-cuda types and lowers it (cudadecl's atomic templates and
cudaimpl's _normalize_indices). The rules:

1. on a 2-d or higher array the index is a tuple, written or held in a variable, with one item per
   dimension; each item is cast to intp: integers as they are, bool and float items as int() casts them
   (truncation), so a float item that numba's NumPy-rule unification made of uint64 % int64 indexes right;
2. the cast index wraps around (a negative item counts from the end of its dimension), as numba-cuda's does;
3. an item of any other type (complex), a slice, or a count other than the array's rank is refused by name.
Values against numba-cuda on the GPU: parity/kernels_atomic_indices.py."""
import os
import sys

import pytest
from numba import cuda

import cubridge
from conftest import assembled_ptx

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity import kernels_atomic_indices as kernels  # noqa: E402


def test_tuple_variable_with_a_float_item_indexes_a_2d_shared_array():
    ptx = assembled_ptx(kernels.atomic_add_u32_float_index, "void(uint32[:, ::1])")
    assert "cvt.rzi.s64.f64" in ptx  # the float item truncates to intp
    assert "atom.shared.add.u32" in ptx


def test_float_item_on_a_float64_array():
    ptx = assembled_ptx(kernels.atomic_sub_f64_float_index, "void(float64[:, ::1])")
    assert "cvt.rzi.s64.f64" in ptx and "atom.shared.add.f64" in ptx  # sub is an add of -value


def test_written_tuple_with_a_float_item_on_a_global_array():
    ptx = assembled_ptx(kernels.atomic_max_global_float_index, "void(float64[:, ::1], float64[:, ::1])")
    assert "cvt.rzi.s64.f64" in ptx


def test_a_negative_float_item_wraps_around():
    ptx = assembled_ptx(kernels.atomic_add_negative_float_index, "void(int32[:, ::1])")
    assert "atom.global.add.u32" in ptx or "red.global.add.u32" in ptx


def complex_item(a):
    cubridge.atomic.add(a, (0, 1j), 1)




def too_few(a):
    cubridge.atomic.add(a, (0,), 1)


def test_a_complex_item_is_refused_by_name():
    with pytest.raises(cubridge.CompileError, match=r"atomic\.add\(\): an index must be an integer, a bool or a "
                                                    r"float .*got complex128"):
        cubridge.compile_ptx(complex_item, "void(int32[:, ::1])")


def test_an_index_naming_too_few_dimensions_is_refused():
    with pytest.raises(cubridge.CompileError, match=r"the index must name one element: 2 integer\(s\) for "
                                                    r"array\(int32, 2d, C\), got 1"):
        cubridge.compile_ptx(too_few, "void(int32[:, ::1])")


def add_one_global_2d(ary):
    cuda.atomic.add(ary, (cuda.threadIdx.x, cuda.threadIdx.y), 1.0)


def test_a_float64_add_on_a_global_array_is_numba_cudas_intrinsic():
    """numba-cuda lowers cuda.atomic.add of a float64 (cc >= 6.0) to llvm.nvvm.atomic.load.add.f64 on the element's
    generic pointer (nvvmutils.declare_atomic_add_float64), as cubridge does; libNVVM (13.0) then sees that the
    pointer came from a kernel parameter and emits atom.global.add.f64 for cubridge's IR. numba-cuda 0.30.4's own
    pipeline on the GPU machine gives atom.add.f64 (generic addressing, test below), which its
    test_atomic_add_double_global* look for: the same atomic add, addressed generically."""
    ir, _ = cubridge.compile(add_one_global_2d, "void(float64[:, :])", device=False, abi="numba", cc=(9, 0),
                             output="llvm")
    assert "call double @llvm.nvvm.atomic.load.add.f64.p0f64(double* " in ir
    assert "atom.global.add.f64" in assembled_ptx(add_one_global_2d, "void(float64[:, :])")


def test_numbas_cuda_target_gives_the_same_atomic_add():
    numba_cuda = pytest.importorskip("numba.cuda")
    import numpy
    numpy.row_stack = getattr(numpy, "row_stack", numpy.vstack)
    theirs, _ = numba_cuda.compile_ptx(add_one_global_2d, "void(float64[:, :])", cc=(9, 0))
    ours = assembled_ptx(add_one_global_2d, "void(float64[:, :])")
    atomics = [sorted({line.split()[0] for line in ptx.splitlines() if "add.f64" in line and line.split()[0].startswith(
        ("atom", "red"))}) for ptx in (theirs, ours)]
    assert atomics[1] == ["atom.global.add.f64"]
    assert atomics[0] in (["atom.add.f64"], ["atom.global.add.f64"])  # the address space is libNVVM's inference
