"""Device functions declared with signatures (numba-cuda's ``jit(sigs, device=True)``) are called as numba
calls them. The rules (numba-cuda 0.30, test_dispatcher.TestDispatcher.test_explicit_signatures_device*):

1. a call is typed against the declared signatures only: the arguments are cast to the parameters of the
   one they convert to best (fewest unsafe, then safe, then promoting conversions; the first declared wins
   a tie), unsafely where needed: add(1.5, 2.5) declared (int64, int64) is 1 + 2 = 3, not 4;
2. a declared return type converts the result;
3. a call no declared signature accepts is refused, naming the arguments and the signatures.

The values are compared with numba-cuda's on the GPU in parity/kernels_declared.py."""
import pytest

import cubridge

CC = (8, 0)


def add(x, y):
    return x + y


def _device(sigs, fn):
    # a fresh copy per declaration keeps the tests apart (each declaration is its own DeviceFunction anyway).
    import types
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    return cubridge.jit(sigs, device=True)(copy)


def _kernel_calling(helper):
    def kernel(r, x, y):
        r[0] = helper(x, y)
    return kernel


def test_arguments_are_cast_unsafely_to_the_one_declared_signature():
    ptx, _ = cubridge.compile_ptx(_kernel_calling(_device(["(int64, int64)"], add)),
                                  "void(int64[::1], float64, float64)", cc=CC)
    assert ptx.count("cvt.rzi.s64.f64") == 2 and "add.s64" in ptx


def test_the_best_declared_signature_wins_and_the_first_breaks_ties():
    helper = _device(["(float32, float64)", "(float64, float32)", "(int64, int64)"], add)
    ptx, _ = cubridge.compile_ptx(_kernel_calling(helper), "void(float64[::1], float64, float64)", cc=CC)
    # (float32, float64): one unsafe conversion, as (float64, float32); (int64, int64) takes two.
    assert "cvt.rn.f32.f64" in ptx and "cvt.f64.f32" in ptx and "cvt.rzi" not in ptx


def test_exact_matches_are_not_converted():
    helper = _device(["(int64, int64)", "(float64, float64)"], add)
    ptx, _ = cubridge.compile_ptx(_kernel_calling(helper), "void(float64[::1], float64, float64)", cc=CC)
    assert "cvt.rzi" not in ptx and ("add.f64" in ptx or "add.rn.f64" in ptx)


def scale(x, y):
    return x * y


def test_a_declared_return_type_converts_the_result():
    helper = _device(["int32(float64, float64)"], scale)
    ptx, resty = cubridge.compile(_kernel_calling(helper), "void(int64[::1], float64, float64)", device=False,
                                  abi="numba", cc=CC)
    assert "cvt.rzi.s32.f64" in ptx


def test_a_call_no_declared_signature_accepts_is_refused():
    helper = _device(["(int64[::1], int64)"], add)
    with pytest.raises(cubridge.CompileError, match=r"add\(float64, float64\): no declared signature of 'add' "
                                                    r"accepts these arguments; it was declared with "
                                                    r"\(array\(int64, 1d, C\), int64\)"):
        cubridge.compile_ptx(_kernel_calling(helper), "void(int64[::1], float64, float64)", cc=CC)


def test_without_signatures_the_call_specialises_on_the_arguments():
    import types
    helper = cubridge.jit(device=True)(types.FunctionType(add.__code__, add.__globals__, "add"))
    ptx, _ = cubridge.compile_ptx(_kernel_calling(helper), "void(int64[::1], float64, float64)", cc=CC)
    assert "add.f64" in ptx or "add.rn.f64" in ptx


def halves(n):
    return n // 2


def test_a_constant_argument_is_converted_to_the_declared_type_not_bound():
    # (float64,) declared: halves(3) is 3.0 // 2, a float64, as numba converts the argument.
    helper = _device(["(float64,)"], halves)

    def caller():
        return helper(3)
    _, resty = cubridge.compile(caller, "()", device=True, abi="numba", cc=CC)
    assert str(resty) == "float64"
