"""NumPy ufuncs called on arrays with an explicit output, np.sin(x, out), as numba-cuda compiles them in a
kernel (its test_ufuncs runs every ufunc so, launched [1, 1]). The rules:

1. the call is a loop over the output's elements, any rank and layout; each input is read at the same
   index, a scalar input everywhere and an input axis of length 1 broadcast;
2. the loop is the one numba picks for the element types (as for scalars); its result is stored with
   NumPy's same_kind casting (never down the kinds: a float result into an int array is refused);
3. an input whose axis is neither the output's length nor 1 raises ValueError("unable to broadcast
   argument i to output array") before anything is written;
4. refused by name: inputs of another rank than the output, a read-only output, a scalar where the output
   goes, ufuncs numba-cuda has no GPU code for.
Values against numba-cuda on the GPU: parity/kernels_ufunc_arrays.py."""
import numpy as np
import pytest

import cubridge
from conftest import assembled_ptx

CC = (8, 0)


def arccos_into(x, out):
    np.arccos(x, out)


def arctan2_into(x, y, out):
    np.arctan2(x, y, out)


@pytest.mark.parametrize("sig", ["void(float64[::1], float64[::1])", "void(float32[:, ::1], float32[:, ::1])",
                                 "void(float64[::1, :, :], float64[::1, :, :])", "void(float64, float64[::1])",
                                 "void(int8[:], float64[:])"])
def test_a_ufunc_with_an_output_array_is_a_loop_over_it(sig):
    ptx = assembled_ptx(arccos_into, sig, CC)
    assert "st.global.f" in ptx or "st.f" in ptx


def _raise_sites(fn, sig):
    r = cubridge._compiler._compile_result(fn, sig, device=False, abi="numba", cc=CC)
    return [(site[1], site[2]) for site in r.raise_sites]  # (code, exception, args, function, file, line)


def test_an_input_that_does_not_broadcast_raises_value_error():
    sites = _raise_sites(arctan2_into, "void(float64[:, ::1], float64[:, ::1], float64[:, ::1])")
    assert ("builtins.ValueError", ["s:unable to broadcast argument 0 to output array"]) in sites
    assert ("builtins.ValueError", ["s:unable to broadcast argument 1 to output array"]) in sites


def test_a_float_result_into_an_int_array_is_refused():
    with pytest.raises(cubridge.CompileError, match=r"np.arccos\(\): the result \(float64, loop d->d\) cannot be cast "
                                                    r"to the output's int32 with NumPy's same_kind rule"):
        cubridge.compile_ptx(arccos_into, "void(int32[::1], int32[::1])", cc=CC)


@pytest.mark.parametrize("sig, message", [
    ("void(float64[::1], float64[:, ::1])", r"input 0 is array\(float64, 1d, C\) and the output "
                                            r"array\(float64, 2d, C\); inputs of another rank"),
    ("void(float64[::1], const float64[::1])", r"np.arccos\(\) cannot write its output: it is a read-only array"),
    ("void(float64, float64)", r"np.arccos\(\): the output must be an array, got float64"),
])
def test_misuses_are_refused_by_name(sig, message):
    with pytest.raises(cubridge.CompileError, match=message):
        cubridge.compile_ptx(arccos_into, sig, cc=CC)
