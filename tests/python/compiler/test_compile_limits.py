"""Code and signatures that would exhaust the compiler end in a clear error, in milliseconds, never in a stack
overflow or an out-of-memory kill: chains nested past the compiler's nesting limit (they are walked
recursively), types nested past the type limit, and tuples of more values than the tuple limit. Just under
each limit still compiles. (Issue 13's "unbounded recursion" and "work that explodes" classes.)"""
import time

import pytest

import cubridge
from cubridge import _compiler, _core

CC = (9, 0)


def compile_text(source: str, sig: str = "(int64,)"):
    o = _compiler._options(False, False, True, False, CC, True, "c", None, "ptx")
    o.filename = "limits.py"
    return _core._compile_source(source, "f", sig, o)


def chain(op: str, n: int) -> str:
    return "def f(x):\n    return " + f" {op} ".join(["x"] * n) + "\n"


@pytest.mark.parametrize("op", ["and", "+", "|"])
def test_chains_under_the_nesting_limit_compile(op):
    compile_text(chain(op, 290))


@pytest.mark.parametrize("op, n", [("and", 10_000), ("+", 20_000), ("or", 400)])
def test_chains_past_the_nesting_limit_are_refused_quickly(op, n):
    start = time.perf_counter()
    with pytest.raises(cubridge.CompileError, match=r"limits.py:2:\d+: this expression or block nests more than 300 "
                                                    r"levels deep .* split it into named parts"):
        compile_text(chain(op, n))
    assert time.perf_counter() - start < 2.0


def test_parentheses_nested_17000_deep_are_refused():
    source = "def f(x):\n    return " + "(" * 17_000 + "x" + ")" * 17_000 + "\n"
    with pytest.raises(cubridge.CompileError, match=r"nested too deeply \(more than 200 levels\)"):
        compile_text(source)


def test_a_signature_nested_17000_deep_is_refused():
    sig = "(" + "(" * 17_000 + "int64" + ")" * 17_000 + ",)"
    with pytest.raises(ValueError, match=r"types nest at most 32 levels deep"):
        compile_text("def f(x):\n    return 1\n", sig)


def test_a_tuple_type_of_a_billion_values_is_refused_before_it_is_built():
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"'UniTuple\(int8 x 1000\)': a tuple of 1000 values; "
                                         r"tuples hold at most 256"):
        compile_text("def f(x):\n    return 1\n", "(UniTuple(UniTuple(UniTuple(int8 x 1000) x 1000) x 1000),)")
    assert time.perf_counter() - start < 2.0


def test_a_tuple_literal_of_30000_values_is_refused():
    source = "def f(x):\n    t = (" + ", ".join(["x"] * 30_000) + ")\n    return t[0]\n"
    with pytest.raises(cubridge.CompileError, match=r"limits.py:2:9: a tuple of 30000 values; tuples hold at most "
                                                    r"256 \(use an array\)"):
        compile_text(source)


def test_a_tuple_at_the_limit_compiles_in_about_a_second():
    start = time.perf_counter()
    compile_text("def f(x):\n    return x\n", "(UniTuple(int8 x 256),)")
    assert time.perf_counter() - start < 10.0  # ~0.6 s: the IR of a tuple grows with the square of its size
