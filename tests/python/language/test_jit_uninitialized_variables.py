"""Reads of variables that may be unassigned, as numba's SSA finds them (numba-cuda's test_ssa
test_undefined_var). The rules (variable_versions.cpp, _numba_diagnostics rule 8):

1. A read of a local variable that some path reaches with the variable never assigned is reported, by the
   source's name, the function and the line: one branch of an if assigning it, a loop that may not run,
   `x += 1` with no assignment on its path; each place once.
2. A read every path reaches assigned (both branches, before an if, a parameter) is not reported, nor a
   path CPython rules out itself (`while True:`), nor code no path reaches.
3. The reports are kept with the code in the code cache: a result read from it reports the same reads.
4. Where numba's config asks (ALWAYS_WARN_UNINIT_VAR), compiling warns numba's NumbaWarning "Detected
   uninitialized variable x" per read; with it off (numba's default), or without numba, nothing is warned.
5. The kernel's values on the GPU are Python's for the paths that assign (numba-cuda's test's kernel).
"""
import sys
import warnings

import numpy as np
import pytest

import cubridge
from cubridge import _compiler, _numba_diagnostics
from test_jit_variable_versions import phi_if_else, phi_loop  # assigned on both paths; before a loop

SIG = "void(int64[::1], int64)"


def numba_test_ssa(result, n):  # numba-cuda's test_ssa check_undefined_var
    if n:
        if n > 0:
            c = 0
        result[0] = c
    else:
        # variable c is not defined in this branch
        c += 1
        result[0] = c


def after_a_loop(result, n):
    for i in range(n):
        result[i] = i
    result[0] = i


def while_true(result, n):
    while True:
        c = n
        break
    result[0] = c


def after_return(result, n):
    if n > 0:
        c = 1
        result[0] = c
        return
    return


def _reads(fn, cache=False):
    r = _compiler._compile_result(fn, SIG, device=False, abi="numba", cache=cache)
    return r, [(v, f, line) for v, f, _file, line in r.uninitialized_reads]


def _line(fn, offset):
    return fn.__code__.co_firstlineno + offset


def test_reads_some_path_reaches_unassigned_are_reported():
    _, reads = _reads(numba_test_ssa)
    f = "numba_test_ssa"
    # result[0] = c in the if (c = 0 only when n > 0), c += 1 in the else; the else's result[0] = c reads the
    # c that += assigned
    assert reads == [("c", f, _line(numba_test_ssa, 4)), ("c", f, _line(numba_test_ssa, 7))]
    assert _reads(after_a_loop)[1] == [("i", "after_a_loop", _line(after_a_loop, 3))]
    assert _reads(numba_test_ssa)[0].uninitialized_reads[0][2] == numba_test_ssa.__code__.co_filename


@pytest.mark.parametrize("fn", [phi_if_else, phi_loop, while_true, after_return])
def test_reads_every_path_reaches_assigned_are_not(fn):
    assert _reads(fn)[1] == []


def test_the_reports_are_kept_in_the_code_cache():
    first, reads = _reads(numba_test_ssa, cache=True)
    again, cached = _reads(numba_test_ssa, cache=True)
    assert again.from_cache and cached == reads and reads


@pytest.fixture
def numba_config():
    """numba's config module as cubridge reads it (numba imported), ALWAYS_WARN_UNINIT_VAR restored after."""
    pytest.importorskip("numba", reason="numba is not installed")
    import numba.core.config  # noqa: F401
    module = _numba_diagnostics._numba_config_module()
    old = getattr(module, "ALWAYS_WARN_UNINIT_VAR", 0)
    yield module
    module.ALWAYS_WARN_UNINIT_VAR = old


def _numba_warning():
    for name in ("numba.cuda.core.errors", "numba.core.errors"):
        cls = getattr(sys.modules.get(name), "NumbaWarning", None)
        if cls is not None:
            return cls
    raise AssertionError("numba's errors module is not imported")


def test_numbas_config_asks_for_numbas_warning(numba_config):
    numba_config.ALWAYS_WARN_UNINIT_VAR = 1
    with pytest.warns(_numba_warning()) as caught:
        cubridge.jit(SIG, cache=False)(numba_test_ssa)
    texts = [str(w.message) for w in caught if issubclass(w.category, _numba_warning())]
    assert any("Detected uninitialized variable c" in t for t in texts), texts
    assert any(f"line {_line(numba_test_ssa, 4)}" in t for t in texts), texts  # numba's Loc


def test_no_warning_with_numbas_default(numba_config):
    numba_config.ALWAYS_WARN_UNINIT_VAR = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cubridge.jit(SIG, cache=False)(numba_test_ssa)


def test_a_cached_result_warns_too(numba_config):
    numba_config.ALWAYS_WARN_UNINIT_VAR = 0
    _reads(numba_test_ssa, cache=True)
    numba_config.ALWAYS_WARN_UNINIT_VAR = 1
    with pytest.warns(_numba_warning(), match="Detected uninitialized variable c"):
        r, _ = _reads(numba_test_ssa, cache=True)
    assert r.from_cache


@pytest.mark.gpu
def test_values_are_pythons_where_the_paths_assign():
    ours = np.zeros(1, dtype=np.int64)
    cubridge.jit(numba_test_ssa)[1, 1](ours, 1)
    expected = np.zeros(1, dtype=np.int64)
    numba_test_ssa(expected, 1)
    np.testing.assert_array_equal(ours, expected)
