"""Division under fastmath, as numba-cuda compiles it (mathimpl.maybe_fast_truediv). The rules:

1. `x / y` on two float32 values with fastmath is libdevice's __nv_fast_fdividef (div.approx.ftz.f32)
   with no zero check, so even with debug=True (numba's "python" error model) it never raises
   ZeroDivisionError (test_fastmath.test_divf_exception);
2. without fastmath, and for float64, the debug=True zero check stays and raises;
3. the in-place form `x /= y` is numba's itruediv, which keeps the check.

The launch itself (fastmath kernel dividing by zero returns inf) is in parity/kernels_fastmath.py."""
import cubridge

CC = (8, 0)


def divide(r, x, y):
    r[0] = x / y


def divide_in_place(r, x, y):
    x /= y
    r[0] = x


def _ptx(fn, sig, **options):
    ptx, _ = cubridge.compile_ptx(fn, sig, cc=CC, debug=True, opt=False, **options)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    return ptx


def _raise_sites(fn, sig, **options):
    r = cubridge._compiler._compile_result(fn, sig, debug=True, device=False, abi="numba", cc=CC, opt=False,
                                           **options)
    return [site[1] for site in r.raise_sites]  # (code, exception, args, function, file, line)


def test_fastmath_float32_division_has_no_zero_check():
    assert _raise_sites(divide, "void(float32[::1], float32, float32)", fastmath=True) == []
    assert "div.approx.ftz.f32" in _ptx(divide, "void(float32[::1], float32, float32)", fastmath=True)


def test_without_fastmath_the_zero_check_raises():
    assert _raise_sites(divide, "void(float32[::1], float32, float32)") == ["builtins.ZeroDivisionError"]


def test_fastmath_float64_division_keeps_the_check():
    assert _raise_sites(divide, "void(float64[::1], float64, float64)", fastmath=True) == \
        ["builtins.ZeroDivisionError"]


def test_in_place_division_keeps_the_check_under_fastmath():
    assert _raise_sites(divide_in_place, "void(float32[::1], float32, float32)", fastmath=True) == \
        ["builtins.ZeroDivisionError"]
