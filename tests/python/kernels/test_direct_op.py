"""_core._DirectOp's `native` argument (a framework's compiled answers, python/src/py_framework_table.hpp): only
a capsule of the framework table's name and version is taken; anything else is refused naming what it got and
what is accepted. The direct call itself runs on a GPU with PyTorch (tests/python/torch_ops/)."""
import ctypes

import pytest

import cubridge
from cubridge import _core


@cubridge.jit("void(const float32[::1], float32[::1])")
def copy(x, out):
    i = cubridge.grid(1)
    if i < out.size:
        out[i] = x[i]


class Tensor:
    """Stands in for a framework's tensor type (never instantiated here)."""


def direct_op(native):
    return _core._DirectOp(
        implementation=lambda *a: None, falsy_guards=[], none_guards=[], count=1, tensor_type=Tensor, tensors=[0],
        scalars=[], fast=True, results=1, likes=[0], contiguous=[0], order=[0, 1],
        empty_like=lambda x: None, contiguous_format=object(), raw_stream=lambda i: 0, kernel=copy, kernels=None,
        signature=None, kernel_for=None, ntasks=8, griddim=None, blockdim=None, sharedmem=0, single=True,
        qualname="copy", native=native)


def capsule(name: bytes, version: int):
    """A capsule of `name` over a table whose first field (the version) is `version`."""
    table = (ctypes.c_uint32 * 16)(version)
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(ctypes.addressof(table), name, None), table, name  # the table and name outlive the capsule


def test_without_native_answers_the_op_is_made():
    direct_op(None)


def test_a_native_that_is_no_framework_table_capsule_is_refused_by_name():
    with pytest.raises(TypeError, match=r"native must be a capsule named 'cubridge.framework_table', got int"):
        direct_op(7)
    cap, *_keep = capsule(b"other.table", 1)
    with pytest.raises(TypeError, match=r"'cubridge.framework_table', got PyCapsule"):
        direct_op(cap)


def test_a_framework_table_of_another_version_is_refused_naming_both():
    cap, *_keep = capsule(b"cubridge.framework_table", 99)
    with pytest.raises(ValueError, match=r"framework table of version 99; this cubridge reads version 2"):
        direct_op(cap)
