"""Enum members in compiled functions, without a GPU, as numba-cuda types them. The rules:

1. an IntEnum member (Cls.member, Cls["member"]) is its integer: it takes part in arithmetic, comparisons
   and casts as an int64 does (numba's IntEnumMember converts to its integer), whether the class is a
   module global or a closure variable, and members of two IntEnum classes compare by value, as Python does;
2. an Enum that is not an IntEnum is refused by name wherever the code uses it: its members compare by class
   as well as by value, which folding them to their values would lose.
Values against numba-cuda on the GPU: parity/kernels_enums.py."""
import os
import sys
from enum import Enum, IntEnum

import pytest

import cubridge
from conftest import assembled_ptx

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity import kernels_enums as kernels  # noqa: E402


class Color(Enum):
    red = 1
    green = 2


def test_int_enum_members_are_integers_in_arithmetic_and_comparisons():
    ptx = assembled_ptx(kernels.int_coerce, "void(int64[::1], int32[::1])")
    assert "500" in ptx and "404" in ptx


def test_int_enum_members_cast():
    assembled_ptx(kernels.int_cast, "void(int64[::1], int32[::1])")


def test_int_enum_in_a_closure_folds_to_its_value():
    class Level(IntEnum):
        low = 3
        high = 7

    def kernel(out):
        out[0] = Level.high * 10 + Level["low"]

    ptx = assembled_ptx(kernel, "void(int64[::1])")
    assert any(line.strip().startswith("mov.u64") and line.rstrip().endswith(", 73;") for line in ptx.splitlines())


def uses_color(out):
    out[0] = Color.red == Color.green


def uses_color_item(out):
    out[0] = Color["red"] == Color["green"]


def test_other_enums_are_refused_by_name():
    for fn in (uses_color, uses_color_item):
        with pytest.raises(cubridge.CompileError, match=r"'Color' is the Enum class test_jit_enums\.Color: members of "
                                                        r"an Enum that is not an IntEnum are not supported yet"):
            cubridge.compile_ptx(fn, "void(bool[::1])")
