"""cuda.match_any_sync and cuda.match_all_sync, without a GPU, as numba-cuda types and lowers them (its
test_warp_ops). The rules:

1. match_any_sync(mask, value) is an int32: the mask of the lanes in `mask` holding the same value
   (llvm.nvvm.match.any.sync.i32 / .i64, PTX match.any.sync.b32 / .b64);
2. match_all_sync(mask, value) is a tuple (int32, bool): that mask, or 0, and whether every lane in `mask`
   holds the value (llvm.nvvm.match.all.sync, PTX match.all.sync);
3. numba-cuda's cases: an int32 mask (a wider literal such as 0xFFFFFFFF converts) and an int32, int64,
   float32 or float64 value, picked by numba's score (uint32 takes int64, int8 int32); a float is matched
   by its bits;
4. anything else as the value (complex, an array) is refused by name.
Values on the GPU: parity/kernels_warp_match.py, against numba-cuda."""
import pytest

import cubridge
from numba import cuda

CC = (8, 0)


def use_match_any_sync(ary_in, ary_out):
    i = cuda.grid(1)
    ballot = cuda.match_any_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = ballot


def use_match_all_sync(ary_in, ary_out):
    i = cuda.grid(1)
    ballot, pred = cuda.match_all_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = ballot if pred else 0


def match_any_value(x):
    return cuda.match_any_sync(0xFFFFFFFF, x)


def match_all_value(x):
    return cuda.match_all_sync(0xFFFFFFFF, x)


def match_complex(x, out):
    out[0] = cuda.match_any_sync(0xFFFFFFFF, x[0])


@pytest.mark.parametrize("ty,width", [("int32", 32), ("int8", 32), ("int64", 64), ("uint32", 64), ("float32", 32),
                                      ("float64", 64)])
def test_match_any_sync_is_ptx_match_any(ty, width):
    ptx, _ = cubridge.compile_ptx(use_match_any_sync, f"void({ty}[:], int32[:])", cc=CC)
    assert f"match.any.sync.b{width}" in ptx


@pytest.mark.parametrize("ty,width", [("int32", 32), ("int64", 64), ("float32", 32), ("float64", 64)])
def test_match_all_sync_is_ptx_match_all(ty, width):
    ptx, _ = cubridge.compile_ptx(use_match_all_sync, f"void({ty}[:], int32[:])", cc=CC)
    assert f"match.all.sync.b{width}" in ptx


@pytest.mark.parametrize("ty", ["int32", "int64", "float32", "float64", "uint16"])
def test_result_types_are_numbas(ty):
    assert str(cubridge.compile(match_any_value, f"({ty},)", device=True, abi="numba", cc=CC)[1]) == "int32"
    assert str(cubridge.compile(match_all_value, f"({ty},)", device=True, abi="numba", cc=CC)[1]) == \
        "Tuple(int32, bool)"


def test_a_float_value_is_matched_by_its_bits():
    ir = cubridge._compiler._compile_result(match_any_value, "(float64,)", device=True, abi="numba", cc=CC,
                                            output="llvm").nvvm_ir
    assert "bitcast double" in ir and "@llvm.nvvm.match.any.sync.i64(i32" in ir


def test_a_value_numba_has_no_case_for_is_refused():
    with pytest.raises(cubridge.CompileError, match=r"cuda\.match_any_sync\(mask, value\): the value must be an "
                                                    r"int32, int64, float32 or float64 \(or a number that converts "
                                                    r"to one\), got complex64"):
        cubridge.compile_ptx(match_complex, "void(complex64[:], int32[:])", cc=CC)
