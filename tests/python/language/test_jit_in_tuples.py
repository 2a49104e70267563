"""`x in t` / `x not in t` on a tuple of numbers, as numba compiles it (seq_contains): == between x and each
element, with numba's promotion for each pair (an int32 against int64 constants, a float against an int);
NaN is in no tuple. Other right operands (arrays, ...) and 'in' inside a chain of comparisons are refused by
name. Values are checked on the GPU against Python (test_in_tuples_gpu at the end, marked gpu)."""
import math

import numpy as np
import pytest

import cubridge
from cubridge import CompileError


def membership(inp, outp):
    outp[0] = 1 if inp[0] in (2, 3) else 3
    outp[1] = inp[1] not in (2.5, 7)
    outp[2] = inp[2] in (inp[0], inp[1], 9)


SIG = "void(float64[:], int32[:])"


def test_in_compiles_to_one_compare_per_element():
    ir = cubridge.jit(SIG)(membership).inspect_llvm(SIG)
    assert ir.count("fcmp oeq") >= 7  # 2 + 2 + 3 element compares, in float64 (numba's promotion)


def test_in_compiles_with_debug_info():  # numba-cuda's test_debug_function_calls_internal_impl
    def f(inp, outp):
        outp[0] = 1 if inp[0] in (2, 3) else 3
    sig = "void(int32[:], int32[:])"
    assert ".entry" in cubridge.jit(sig, debug=True, opt=False)(f).inspect_asm(sig)


@pytest.mark.parametrize("body, message", [
    ("outp[0] = inp[0] in inp", r"the 'in' operator is supported on tuples \(x in \(1, 2\)\); the right operand has "
                                r"type array\(float64, 1d, A\)"),
    ("outp[0] = 1 < inp[0] in (1, 2)", r"the 'in' operator is supported alone \(x in t\), not in a chain"),
    ("outp[0] = inp[0] in ((1, 2), 3)", r"cannot be compared with UniTuple\(int64 x 2\)"),
])
def test_what_in_does_not_search_is_refused_by_name(body, message):
    import linecache
    text = f"def f(inp, outp):\n    {body}\n"
    name = f"<in-test {abs(hash(body))}>"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)  # compiled from its source text
    ns = {}
    exec(compile(text, name, "exec"), ns)
    with pytest.raises(CompileError, match=message):
        cubridge.jit(SIG)(ns["f"]).inspect_llvm(SIG)


CASES = [(2.0, 7.0, 2.0), (3.0, 2.5, 9.0), (4.0, 1.0, 1.0), (math.nan, math.nan, math.nan), (-0.0, 7.0, 0.0)]


def contains(x, t):  # numba's seq_contains: == with each element (Python's `in` also matches by identity: nan)
    return any(x == e for e in t)


def expected(a, b, c):
    return [1 if contains(a, (2, 3)) else 3, int(not contains(b, (2.5, 7))), int(contains(c, (a, b, 9)))]


@pytest.mark.gpu
@pytest.mark.parametrize("values", CASES)
def test_in_tuples_gpu(values):
    k = cubridge.jit(SIG)(membership)
    inp = np.array(values, np.float64)
    out = cubridge.to_device(np.zeros(3, np.int32))
    k[1, 1](cubridge.to_device(inp), out)
    assert out.copy_to_host().tolist() == expected(*values)
