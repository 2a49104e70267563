"""inspect_lto_ptx: the PTX nvJitLink makes of a kernel's LTO-IR (link-time optimised), as numba-cuda's gives it
(its test_operator and test_intrinsics check the float16 instructions in it). Compile-only, no GPU. The rules:

1. a kernel's NVVM IR marks the entry twice, as numba-cuda's set_cuda_kernel does: the nvvm.annotations
   "kernel" note and a place in @llvm.used (without it the LTO link drops the unreferenced entry); a device
   function has neither;
2. the LTO PTX holds the kernel's entry and its code: the float16 operators (+ - * unary - abs, comparisons)
   and cuda.fp16's hadd/hsub/hmul/hfma/hneg/habs as the f16 instructions numba-cuda's tests look for; a float16
   compared with an int8 stays float16, with a wider int or float it is promoted (f32 / f64);
3. it is for the compute capability asked (or the compiled one);
4. the code the kernel links (declare_device's CUDA C++) is compiled to LTO-IR and optimised into it: a
   linked __half addition is add.f16 in the kernel, no call left (numba-cuda's test_inspect_lto_asm)."""
import numpy as np
import pytest

import cubridge
from numba import cuda

CC = (9, 0)


def fp16_add(ary, a, b):
    ary[0] = a + b


def fp16_sub(ary, a, b):
    ary[0] = a - b


def fp16_mul(ary, a, b):
    ary[0] = a * b


def fp16_iadd(ary, a):
    ary[0] += a


def fp16_isub(ary, a):
    ary[0] -= a


def fp16_imul(ary, a):
    ary[0] *= a


def fp16_neg(ary, a):
    ary[0] = -a


def fp16_abs(ary, a):
    ary[0] = abs(a)


def fp16_gt(ary, a, b):
    ary[0] = a > b


def fp16_ge(ary, a, b):
    ary[0] = a >= b


def fp16_lt(ary, a, b):
    ary[0] = a < b


def fp16_le(ary, a, b):
    ary[0] = a <= b


def fp16_eq(ary, a, b):
    ary[0] = a == b


def fp16_ne(ary, a, b):
    ary[0] = a != b


def hadd(ary, a, b):
    ary[0] = cuda.fp16.hadd(a, b)


def hsub(ary, a, b):
    ary[0] = cuda.fp16.hsub(a, b)


def hmul(ary, a, b):
    ary[0] = cuda.fp16.hmul(a, b)


def hfma(ary, a, b, c):
    ary[0] = cuda.fp16.hfma(a, b, c)


def hneg(ary, a):
    ary[0] = cuda.fp16.hneg(a)


def habs(ary, a):
    ary[0] = cuda.fp16.habs(a)


def _lto_ptx(fn, sig, cc=CC):
    return cubridge.jit(sig, lto=True)(fn).compile(sig).inspect_lto_ptx(cc=cc)


def test_a_kernel_is_in_llvm_used_and_a_device_function_is_not():
    k = cubridge.jit("void(f2[:], f2, f2)")(fp16_add).compile("void(f2[:], f2, f2)")
    ir = k.inspect_llvm()
    assert "@llvm.used = appending global [1 x i8*] [i8* bitcast (void (" in ir
    assert f"@{k.entry_name} to i8*)], section \"llvm.metadata\"" in ir
    assert '!"kernel", i32 1}' in ir
    device_ir = cubridge._compiler._compile_result(fp16_add, "void(f2[:], f2, f2)", device=True, abi="numba", cc=CC,
                                                   output="llvm").nvvm_ir
    assert "@llvm.used" not in device_ir and "nvvm.annotations" not in device_ir


@pytest.mark.parametrize("fn,sig,instruction", [
    (fp16_add, "void(f2[:], f2, f2)", "add.f16"),
    (fp16_sub, "void(f2[:], f2, f2)", "sub.f16"),
    (fp16_mul, "void(f2[:], f2, f2)", "mul.f16"),
    (fp16_iadd, "void(f2[:], f2)", "add.f16"),
    (fp16_isub, "void(f2[:], f2)", "sub.f16"),
    (fp16_imul, "void(f2[:], f2)", "mul.f16"),
    (fp16_neg, "void(f2[:], f2)", "neg.f16"),
    (fp16_abs, "void(f2[:], f2)", "abs.f16"),
    (hadd, "void(f2[:], f2, f2)", "add.f16"),
    (hsub, "void(f2[:], f2, f2)", "sub.f16"),
    (hmul, "void(f2[:], f2, f2)", "mul.f16"),
    (hfma, "void(f2[:], f2, f2, f2)", "fma.rn.f16"),
    (hneg, "void(f2[:], f2)", "neg.f16"),
    (habs, "void(f2[:], f2)", "abs.f16"),
])
def test_the_lto_ptx_holds_the_kernel_and_its_float16_instructions(fn, sig, instruction):
    k = cubridge.jit(sig, lto=True)(fn).compile(sig)
    ptx = k.inspect_lto_ptx(cc=CC)
    assert f".entry {k.entry_name}(" in ptx
    assert instruction in ptx


COMPARISONS = [(fp16_gt, "setp.gt."), (fp16_ge, "setp.ge."), (fp16_lt, "setp.lt."), (fp16_le, "setp.le."),
               (fp16_eq, "setp.eq."), (fp16_ne, "setp.neu.")]


@pytest.mark.parametrize("fn,setp", COMPARISONS)
@pytest.mark.parametrize("other,suffix", [("f2", "f16"), ("int8", "f16"), ("int16", "f32"), ("int32", "f64"),
                                          ("int64", "f64"), ("f4", "f32"), ("f8", "f64")])
def test_float16_comparisons_in_the_lto_ptx(fn, setp, other, suffix):
    # numba-cuda's test_fp16_comparison_ptx, test_fp16_int8_comparison_ptx and
    # test_mixed_fp16_comparison_promotion_ptx (np.result_type(float16, int16) is float32)
    assert setp + suffix in _lto_ptx(fn, f"void(b1[:], f2, {other})")


def test_the_lto_ptx_is_for_the_compute_capability_asked():
    assert ".target sm_80" in _lto_ptx(fp16_add, "void(f2[:], f2, f2)", cc=(8, 0))
    assert ".target sm_90" in _lto_ptx(fp16_add, "void(f2[:], f2, f2)", cc=(9, 0))


def test_the_lto_ptx_runs_the_same_arithmetic_as_the_ptx():
    sig = "void(float32[::1], float32)"

    def scale(x, a):
        x[0] = x[0] * a + np.float32(1.0)

    k = cubridge.jit(sig, lto=True)(scale).compile(sig)
    assert "fma.rn.f32" in k.inspect_lto_ptx(cc=CC) and "fma.rn.f32" in k.inspect_asm(cc=CC)


ADD_F2_F2 = """
#include <cuda_fp16.h>
extern "C"
__device__ int add_f2_f2(__half * res, __half * a, __half *b) {
    *res = *a + *b;
    return 0;
}
"""


class _CUSource:
    """The shape of numba-cuda's in-memory CUDA C++ (numba.cuda.CUSource): class name, data, name."""

    def __init__(self, data, name):
        self.data, self.name = data, name


_CUSource.__name__ = "CUSource"


class FFI:
    """The shape of cffi's FFI object (ffi.from_buffer(a): the array's data pointer); only its type is read."""


FFI.__module__ = "cffi.api"
ffi = FFI()


def test_linked_cuda_code_is_optimised_into_the_kernel():
    add = cubridge.declare_device("add_f2_f2", "float16(CPointer(float16), CPointer(float16))",
                                  link=_CUSource(ADD_F2_F2, "add_f2_f2.cu"))

    def add_two_locals(arr):
        a = cubridge.local.array(shape=1, dtype=np.float16)
        b = cubridge.local.array(shape=1, dtype=np.float16)
        a[0] = 1
        b[0] = 2
        arr[0] = add(ffi.from_buffer(a), ffi.from_buffer(b))

    k = cubridge.jit("void(float16[::1])")(add_two_locals)
    asm = k.inspect_asm("void(float16[::1])")
    assert "call" in asm and "add_f2_f2" in asm  # the kernel's own PTX calls the external function
    lto = k.overloads[k.signatures[0]].inspect_lto_ptx(cc=CC)
    assert "add.f16" in lto and "call" not in lto, lto
