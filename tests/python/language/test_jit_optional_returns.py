"""An Optional value returned where the signature declares a plain type (numba-cuda's
test_compile_cabi_calling_device_function_returning_optional): numba casts Optional(T) to the declared type
(optional_to_any), so the function compiles, the value unwrapped as anywhere a T is needed. Without a declared
type, the compiled function itself may still not return an Optional (refused by name)."""
import pytest

import cubridge
from cubridge import int32


def _maybe_none(x):
    if x > 0:
        return x + 1
    else:
        return


_maybe_none_device = cubridge.jit(device=True)(_maybe_none)


def _wrapper(x):
    return _maybe_none_device(x)


def test_an_optional_returned_under_a_declared_type_is_converted_to_it():
    code, resty = cubridge.compile(_wrapper, int32(int32), output="ltoir", abi="c")
    assert resty == int32 and len(code) > 0
    ir = cubridge.compile(_wrapper, int32(int32), abi="c", output="llvm")[0]
    assert "trunc i64" in ir  # the int64 inside the Optional, cast to the declared int32


def test_an_optional_returned_without_a_declared_type_is_refused_by_name():
    with pytest.raises(cubridge.CompileError, match=r"'_wrapper' returns OptionalType\(int64\): only the functions "
                                                    r"it calls may return an Optional"):
        cubridge.compile(_wrapper, (int32,), abi="c")
