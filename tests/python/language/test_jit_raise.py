"""raise (and assert, and division by zero under debug=True) without a GPU, as numba-cuda compiles them:
the function returns a status code for each raise site (numbered across the module, so a device
function's sites keep their meaning in the kernel that calls it); the compile result lists each site's
exception class, constant arguments and source location (RaiseSite), and the code cache keeps that
table. A debug=True kernel records the first raising thread in numba-cuda's globals "<kernel>__errcode__",
"<kernel>__tid{x,y,z}__", "<kernel>__ctaid{x,y,z}__"; without debug the raising thread just returns.
What numba-cuda refuses (run-time exception arguments, raise ... from, bare raise) is refused by name.
test_raise_gpu.py checks the behaviour on a GPU against numba-cuda's."""
import re

import pytest
from numba import cuda

import cubridge
from cubridge import _compiler

CC = (9, 0)


class BadInput(Exception):
    pass


LIMIT = 7


def _result(fn, sig, **kw):
    kw.setdefault("device", False)
    r = _compiler._compile_result(fn, sig, abi="numba", cc=CC, **kw)
    check = cubridge.ptxas_check(r.code.decode(), CC)
    assert check, check.log
    return r


def raises_value_error(a, x):
    i = cuda.grid(1)
    if i == 2:
        raise ValueError("bad value", 3, -2.5)
    a[i] = x


def test_raise_site_lists_class_arguments_and_location():
    r = _result(raises_value_error, "void(int64[:], int64)")
    (site,) = r.raise_sites
    code, exception, args, function, file, line = site
    assert (code, exception, function) == (1, "builtins.ValueError", "raises_value_error")
    assert _compiler.exception_args(args) == ("bad value", 3, -2.5)
    assert file == __file__ and line == raises_value_error.__code__.co_firstlineno + 3
    assert not r.cooperative


def test_without_debug_the_kernel_keeps_no_status_globals():
    ptx = _result(raises_value_error, "void(int64[:], int64)").code.decode()
    assert "__errcode__" not in ptx and "atom.global.cas" not in ptx


def test_with_debug_the_kernel_records_the_first_raise_in_numba_cuda_globals():
    r = _result(raises_value_error, "void(int64[:], int64)", debug=True, opt=False)
    ptx = r.code.decode()
    name = r.name
    for suffix in ["__errcode__", "__tidx__", "__tidy__", "__tidz__", "__ctaidx__", "__ctaidy__", "__ctaidz__"]:
        assert f".visible .global .align 4 .u32 {name}{suffix};" in ptx
    assert "atom.global.cas.b32" in ptx  # only the first raising thread is recorded


def helper_raises(x):
    if x > LIMIT:
        raise BadInput("too big", LIMIT, True, None)
    return x + 1


def kernel_calls_raising_helper(a, x):
    assert x != 0, "x must not be zero"
    a[0] = helper_raises(x) // x


def test_sites_are_numbered_across_the_module_with_user_exception_classes():
    r = _result(kernel_calls_raising_helper, "void(int64[:], int64)", debug=True, opt=False)
    sites = {s[1]: s for s in r.raise_sites}
    assert sorted(s[0] for s in r.raise_sites) == [1, 2, 3]
    assert _compiler.exception_args(sites["builtins.AssertionError"][2]) == ("x must not be zero",)
    bad = sites[f"{__name__}.BadInput"]
    assert bad[3] == "helper_raises"
    assert _compiler.exception_args(bad[2]) == ("too big", 7, True, None)
    assert _compiler.exception_class(bad[1]) is BadInput
    # debug=True: Numba's "python" error model, a division by zero raises (without a source location).
    div = sites["builtins.ZeroDivisionError"]
    assert _compiler.exception_args(div[2]) == ("integer division by zero",) and div[5] == 0


def float_division(a, x):
    a[0] = 1.0 / x
    a[1] = a[0] % x


def test_division_messages_are_numbas():
    r = _result(float_division, "void(float64[:], float64)", debug=True, opt=False)
    assert [_compiler.exception_args(s[2]) for s in r.raise_sites] == [("division by zero",), ("modulo by zero",)]
    assert _result(float_division, "void(float64[:], float64)").raise_sites == []  # NumPy error model


def raise_class_alone(x):
    if x < 0:
        raise IndexError
    return x


def test_device_functions_raise_through_their_status():
    r = _result(raise_class_alone, ("int64",), device=True)
    assert r.raise_sites == [(1, "builtins.IndexError", [], "raise_class_alone", __file__,
                              raise_class_alone.__code__.co_firstlineno + 2)]


def test_exception_classes_resolve_for_the_launcher():
    assert _compiler.exception_class("builtins.KeyError") is KeyError
    assert _compiler.exception_class("builtins.print") is SystemError  # not an exception class
    assert _compiler.exception_args(["s:a\tb", "u:18446744073709551615", "f:0x1p-1", "c:0x0p+0 0x1p+1", "n:"]) == (
        "a\tb", 2**64 - 1, 0.5, 2j, None)


def test_the_code_cache_keeps_the_raise_sites(tmp_path, monkeypatch):
    monkeypatch.setenv("CUBRIDGE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("CUBRIDGE_DISABLE_CACHE", raising=False)
    first = _result(kernel_calls_raising_helper, "void(int64[:], int64)", debug=True, opt=False, cache=True)
    again = _result(kernel_calls_raising_helper, "void(int64[:], int64)", debug=True, opt=False, cache=True)
    assert again.from_cache and not first.from_cache
    assert again.raise_sites == first.raise_sites and again.cooperative == first.cooperative


def bare_raise(x):
    raise


def raise_from(x):
    raise ValueError("x") from None


def raise_runtime_value(x):
    raise ValueError(x)


def raise_variable(x):
    e = 3
    raise e


def raise_undefined(x):
    raise NoSuchError("x")


def raise_module_function(x):
    raise raise_undefined


def raise_keyword(x):
    raise ValueError(msg="x")


def raise_fstring(x):
    raise ValueError(f"x={x}")


@pytest.mark.parametrize("fn, match", [
    (bare_raise, r"a bare 'raise' \(re-raising\) is not supported"),
    (raise_from, r"'raise \.\.\. from \.\.\.' is not supported"),
    (raise_runtime_value, r"exception arguments must be constants"),
    (raise_variable, r"'e' is a local variable; exceptions held in variables cannot be raised"),
    (raise_undefined, r"'NoSuchError' is not an exception class; raise a builtin exception class"),
    (raise_module_function, r"'raise_undefined' is not an exception class"),
    (raise_keyword, r"exception arguments must be positional"),
    (raise_fstring, r"this string is not a constant; exception arguments must be constants"),
])
def test_what_numba_cuda_cannot_raise_is_refused(fn, match):
    with pytest.raises(cubridge.CompileError, match=match) as info:
        cubridge.compile(fn, ("int64",), device=True, abi="numba", cc=CC)
    assert re.search(r"test_jit_raise\.py:\d+:\d+: ", str(info.value))


def test_numba_cuda_accepts_the_same_raise():
    """numba's CUDA target compiles the raise forms accepted here (where it imports)."""
    numba_cuda = pytest.importorskip("numba.cuda")
    import numpy
    numpy.row_stack = getattr(numpy, "row_stack", numpy.vstack)
    from numba import types as nt
    numba_cuda.compile_ptx(raises_value_error, (nt.int64[:], nt.int64), cc=CC)
    numba_cuda.compile_ptx(raise_class_alone, (nt.int64,), cc=CC, device=True)


def test_the_launcher_raises_the_kernels_exception_with_numba_cudas_message():
    """What @cubridge.jit makes of cubridge.KernelRaised (the launch's report of a debug=True kernel)."""
    from cubridge._kernels import _RaisingKernel
    r = _result(raises_value_error, "void(int64[:], int64)", debug=True, opt=False)
    kernel = _RaisingKernel(None, {site[0]: site for site in r.raise_sites})
    raised = cubridge.KernelRaised("kernel raised")
    raised.code, raised.tid, raised.ctaid = 1, (2, 0, 0), (1, 0, 0)  # x, y, z
    e = kernel.exception(raised)
    line = raises_value_error.__code__.co_firstlineno + 3
    assert type(e) is ValueError
    assert e.args == (f"In function 'raises_value_error', file {__file__}, line {line}, tid=[0, 0, 2] "
                      f"ctaid=[0, 0, 1]: bad value", 3, -2.5)
    raised.code = 99
    assert repr(kernel.exception(raised)) == "SystemError('unknown error 99 in native function')"


def test_a_division_report_has_no_location():
    from cubridge._kernels import _RaisingKernel
    r = _result(float_division, "void(float64[:], float64)", debug=True, opt=False)
    kernel = _RaisingKernel(None, {site[0]: site for site in r.raise_sites})
    raised = cubridge.KernelRaised("kernel raised")
    raised.code, raised.tid, raised.ctaid = 1, (0, 0, 0), (0, 0, 0)
    assert kernel.exception(raised).args == ("tid=[0, 0, 0] ctaid=[0, 0, 0]: division by zero",)
