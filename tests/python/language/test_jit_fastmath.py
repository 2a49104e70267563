"""fastmath=True on float32 math, as numba-cuda lowers it (cuda/mathimpl.py). The rules:

1. math.cos, sin, tan, exp, log, log2, log10 on float32 call libdevice's __nv_fast_<name>f (sin.approx,
   cos.approx, lg2.approx, ex2.approx; log and log10 scale lg2 by 0f3F317218 / 0f3E9A209B), and
   math.pow(float32, float32) __nv_fast_powf (lg2.approx); without fastmath the accurate __nv_<name>f;
2. math.tanh on float32 is the tanh.approx.f32 instruction from compute capability 7.5 on (numba-cuda's
   inline asm); np.tanh keeps libdevice's tanhf (numba-cuda's ufunc goes through the libdevice table);
3. float64 is never replaced, nor are the functions outside the list (math.exp2 stays __nv_exp2f);
4. the same holds for kernels and device functions, through jit and compile_ptx (test_fastmath.py of
   numba-cuda checks both paths).
Values against numba-cuda on the GPU: parity/kernels_fastmath.py."""
import math

import numpy as np
import pytest

import cubridge

CC = (9, 0)
KSIG = "void(float32[::1], float32)"


def _kernel(op):
    def kernel(r, x):
        r[0] = op(x)
    return kernel


def _device(op):
    def device_function(x):
        return op(x)
    return device_function


def _both(fn, sig, device, **kw):
    fast, _ = cubridge.compile_ptx(fn, sig, device=device, fastmath=True, cc=CC, **kw)
    prec, _ = cubridge.compile_ptx(fn, sig, device=device, cc=CC, **kw)
    return fast, prec


UNARY = [
    (math.cos, ["cos.approx.ftz.f32 "], ["cos.approx.ftz.f32 "]),
    (math.sin, ["sin.approx.ftz.f32 "], ["sin.approx.ftz.f32 "]),
    (math.tan, ["sin.approx.ftz.f32 ", "cos.approx.ftz.f32 ", "div.approx.ftz.f32 "], ["sin.approx.ftz.f32 "]),
    (math.log, ["lg2.approx.ftz.f32 ", "0f3F317218"], ["lg2.approx.ftz.f32 "]),
    (math.log10, ["lg2.approx.ftz.f32 ", "0f3E9A209B"], ["lg2.approx.ftz.f32 "]),
    (math.log2, ["lg2.approx.ftz.f32 "], ["lg2.approx.ftz.f32 "]),
    (math.tanh, ["tanh.approx.f32 "], ["tanh.approx.f32 "]),
]


@pytest.mark.parametrize("op,fast_has,prec_lacks", UNARY, ids=[u[0].__name__ for u in UNARY])
@pytest.mark.parametrize("device", [False, True], ids=["kernel", "device"])
def test_float32_function_is_numbas_fast_variant(op, fast_has, prec_lacks, device):
    fn, sig = (_device(op), "float32(float32)") if device else (_kernel(op), KSIG)
    fast, prec = _both(fn, sig, device)
    assert all(s in fast for s in fast_has), fast
    assert not any(s in prec for s in prec_lacks), prec


def test_exp_fast_variant_drops_the_fma_of_the_accurate_one():
    fast, prec = _both(_kernel(math.exp), KSIG, False)
    assert "fma.rn.f32 " not in fast and "ex2.approx.ftz.f32 " in fast
    assert "fma.rn.f32 " in prec


def test_exp2_is_not_replaced_but_flushes_denormals_under_fastmath():
    fast, prec = _both(_kernel(math.exp2), KSIG, False)
    assert "ex2.approx.ftz.f32 " in fast
    assert "ex2.approx.f32 " in prec and "ex2.approx.ftz.f32 " not in prec


def test_pow_float32_is_fast_powf():
    def kernel(r, x, y):
        r[0] = math.pow(x, y)
    fast, prec = _both(kernel, "void(float32[::1], float32, float32)", False)
    assert "lg2.approx.ftz.f32 " in fast
    assert "lg2.approx.ftz.f32 " not in prec


def test_the_nvvm_ir_names_the_fast_libdevice_functions():
    ir, _ = cubridge.compile(_kernel(math.cos), KSIG, device=False, abi="numba", fastmath=True, cc=CC,
                             output="llvm")
    assert "@__nv_fast_cosf" in ir and "@__nv_cosf" not in ir
    ir, _ = cubridge.compile(_kernel(math.cos), KSIG, device=False, abi="numba", cc=CC, output="llvm")
    assert "@__nv_cosf" in ir and "@__nv_fast_cosf" not in ir


def test_float64_is_never_replaced():
    fast, _ = _both(_kernel(math.cos), "void(float64[::1], float64)", False)
    assert "cos.approx" not in fast
    fast, _ = _both(_kernel(math.tanh), "void(float64[::1], float64)", False)
    assert "tanh.approx" not in fast


def test_numpy_tanh_keeps_libdevice_under_fastmath():
    fast, _ = _both(_kernel(np.tanh), KSIG, False)
    assert "tanh.approx.f32 " not in fast


def test_tanh_approx_needs_compute_capability_7_5():
    # libNVVM's lowest target decides when no cc is given: tanh.approx where it is 7.5 or higher.
    ptx, _ = cubridge.compile_ptx(_kernel(math.tanh), KSIG, fastmath=True)
    lowest = int(ptx.split(".target sm_")[1][:2])
    assert ("tanh.approx.f32 " in ptx) == (lowest >= 75)


def test_jit_kernel_inspect_asm_has_the_fast_variant():
    k = cubridge.jit(KSIG, fastmath=True)(_kernel(math.sin))
    assert "sin.approx.ftz.f32 " in k.inspect_asm(KSIG)
    k = cubridge.jit(KSIG)(_kernel(math.sin))
    assert "sin.approx.ftz.f32 " not in k.inspect_asm(KSIG)
