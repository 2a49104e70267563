"""Functions whose GPU code numba takes from somewhere other than their Python body are never compiled
from that body (no silent wrong code). The rules:

1. a user function with a numba ``@overload`` is compiled from the implementation the overload returns
   (a def or a lambda), never from its own body (a stub, or a different function; test_jit_overloads.py
   has the rest);
2. a numba ``@intrinsic`` is typed by its own typer and compiled by numba's lowering (test_jit_numba_lowering.py
   has the rules): a typer that raises stops the compilation with its error, as numba's typing does;
3. ``@register_jitable`` functions are compiled from their body: that body is what numba compiles too;
4. numba's own device API reached as a value (``from numba.cuda.libdevice import sin``) is compiled as what
   the path names, not from the docstring-only stub (test_jit_cache_hints.py has the cache hints);
5. a numba CPU function (``numba.jit``) is compiled from its body as numba-cuda compiles it, unless it was
   made with signatures: numba then disables compiling it for anything else, and numba-cuda refuses it in a
   kernel with "Untyped global name 'f': using cpu function on device but its compilation is disabled".

numba's CPU target registers these in numba.core's typing registry; numba-cuda's in its own (both read)."""
import pytest

import cubridge

numba_extending = pytest.importorskip("numba.core.extending", reason="numba is not installed")

CC = (8, 0)


def scaled(x):
    pass  # a stub: numba compiles the overload below instead


@numba_extending.overload(scaled)
def _scaled_overload(x):
    def impl(x):
        return x * 2
    return impl


def twice(x):
    return x * 2  # a real body, but numba compiles the overload, which could differ


@numba_extending.overload(twice)
def _twice_overload(x):
    return lambda x: x * 2


@numba_extending.intrinsic
def llvm_level(typingctx, x):
    raise AssertionError("llvm_level's typer refuses every call")


@numba_extending.register_jitable
def plus_one(x):
    return x + 1


def calls_stub(r, x):
    r[0] = scaled(x)


def calls_overloaded(r, x):
    r[0] = twice(x)


def calls_intrinsic(r, x):
    r[0] = llvm_level(x)


def calls_jitable(r, x):
    r[0] = plus_one(x)


def test_a_function_with_a_numba_overload_compiles_the_overloads_implementation():
    ptx, _ = cubridge.compile_ptx(calls_stub, "void(int64[::1], int64)", cc=CC)
    assert "shl.b64" in ptx or "mul.lo.s64" in ptx or "add.s64" in ptx  # x * 2, not the stub's None


def test_an_overload_returning_a_lambda_compiles_the_lambda():
    ptx, _ = cubridge.compile_ptx(calls_overloaded, "void(int64[::1], int64)", cc=CC)
    assert "shl.b64" in ptx or "mul.lo.s64" in ptx or "add.s64" in ptx


def test_a_numba_intrinsics_typer_error_stops_the_compilation():
    with pytest.raises(AssertionError, match=r"llvm_level's typer refuses every call"):
        cubridge.compile_ptx(calls_intrinsic, "void(int64[::1], int64)", cc=CC)


def test_register_jitable_is_compiled_from_its_body():
    ptx, _ = cubridge.compile_ptx(calls_jitable, "void(int64[::1], int64)", cc=CC)
    assert "add.s64" in ptx


libdevice = pytest.importorskip("numba.cuda.libdevice", reason="numba has no numba.cuda.libdevice")
from numba.cuda.libdevice import sin as libdevice_sin  # noqa: E402  (a docstring-only stub)


def calls_libdevice_by_name(r, x):
    r[0] = libdevice_sin(x)


def calls_libdevice_by_path(r, x):
    r[0] = libdevice.sin(x)


def test_numba_libdevice_stub_imported_by_name_is_libdevice():
    # Compiled from its body the stub returns None, and the store is refused; as libdevice's sin it is the
    # same code as the dotted spelling.
    by_name, _ = cubridge.compile_ptx(calls_libdevice_by_name, "void(float64[::1], float64)", cc=CC)
    by_path, _ = cubridge.compile_ptx(calls_libdevice_by_path, "void(float64[::1], float64)", cc=CC)
    strip = lambda p: p.replace("calls_libdevice_by_name", "F").replace("calls_libdevice_by_path", "F")  # noqa: E731
    assert strip(by_name) == strip(by_path)


numba = pytest.importorskip("numba")


@numba.jit
def cpu_add(a, b):
    return a + b


@numba.jit("(i4, i4)")
def cpu_add_with_signature(a, b):
    return a + b


def kernel_calling_cpu_add(ary):
    i = cubridge.grid(1)
    ary[i] = cpu_add(ary[i], 1)


def kernel_calling_cpu_add_with_signature(ary):
    i = cubridge.grid(1)
    ary[i] = cpu_add_with_signature(ary[i], 1)


def test_a_numba_cpu_function_is_compiled_from_its_body():
    ptx = cubridge.compile_ptx(kernel_calling_cpu_add, "void(int64[:])", cc=CC)[0]
    assert "add.s64" in ptx


def test_a_numba_cpu_function_made_with_signatures_is_refused_in_numba_cudas_words():
    with pytest.raises(cubridge.CompileError,
                       match="Untyped global name 'cpu_add_with_signature': using cpu function on device but its "
                             "compilation is disabled"):
        cubridge.compile_ptx(kernel_calling_cpu_add_with_signature, "void(int64[:])", cc=CC)
