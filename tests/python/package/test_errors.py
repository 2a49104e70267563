"""One error family (issue 27, item 4): every error class cubridge raises derives from cubridge.Error and
keeps the built-in base its callers catch today, so `except ValueError` and `except cubridge.Error` both work."""
import pytest

import cubridge


@pytest.mark.parametrize("cls, builtin", [
    (cubridge.CompileError, ValueError), (cubridge.ArrayInterfaceError, ValueError),
    (cubridge.CudaError, RuntimeError), (cubridge.DriverUnavailable, RuntimeError),
    (cubridge.ToolkitError, RuntimeError), (cubridge.LinkError, RuntimeError), (cubridge.NvvmError, RuntimeError),
])
def test_each_error_is_a_cubridge_error_and_keeps_its_builtin_base(cls, builtin):
    assert issubclass(cls, cubridge.Error) and issubclass(cls, builtin)


def test_a_compile_error_is_caught_by_both_bases():
    def f(x):
        return {x}

    with pytest.raises(cubridge.Error, match=r"a dict or set"):
        cubridge.compile(f, "(int32,)")
    with pytest.raises(ValueError, match=r"a dict or set"):
        cubridge.compile(f, "(int32,)")


def test_a_bad_array_description_is_an_array_interface_error():
    class Cai:
        __cuda_array_interface__ = {"shape": (3,), "typestr": "<f4", "data": (0x1000, False), "version": 9}

    with pytest.raises(cubridge.ArrayInterfaceError, match=r"\['version'\]: 9 is not a version this consumer") as e:
        cubridge.as_cuda_array(Cai())
    assert isinstance(e.value, ValueError) and isinstance(e.value, cubridge.Error)
