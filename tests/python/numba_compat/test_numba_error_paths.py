"""The error paths numba-cuda's own tests check, compile-only: each refused construct raises an error of the class
numba-cuda raises (also cubridge's own: CompileError, a ValueError) and its message holds numba's words that those
tests match, followed by cubridge's own (the value, and what is accepted). Each case runs twice: without numba in
the process (cubridge's classes alone) and with numba imported (a CompileError is then numba's TypingError too).

Rules, one test (or parametrized family) each:
 1. compile_ptx(kernel, abi='c'): NotImplementedError and ValueError, "The C ABI is not supported for kernels".
 2. A kernel returning a value: TypeError and CompileError, "must have void return type".
 3. cuda.all_sync and the other votes: "Mask type must be an integer" (bool and float masks),
    "Predicate must be an integer or boolean" (float predicates); integer and bool predicates compile.
 4. cuda.grid(n)/gridsize(n) with n not a constant: "RequireLiteralValue".
 5. cuda.shared/local.array with a dtype string: a NumPy number type's name compiles as that type;
    anything else is "Invalid NumPy dtype specified: '<text>'"; a dtype that is no type at all
    (np.dtype("O")) says, as numba does, "Cannot infer the type of variable '<the variable assigned>'".
 6. cuda.shared.array with a shape not known at compile time, or a list display of constants: numba's "No
    implementation of function Function(<function shared.array>) found for signature: >>> array(shape=<numba's
    type>, dtype=class(<dtype>))" (a list of integer constants spelled list(int64)<iv=[5, 6]>).
 7. (Self-recursion numba cannot type, in numba's words: tests/python/test_jit_recursion.py.)
 8. A callable object compiled code cannot call (a numba gufunc): "Untyped global name '<name>'".
 9. A method of a builtin type (float.as_integer_ratio): "Unknown attribute 'as_integer_ratio'".
10. Every raise a kernel can make is a registered raise site, so a debug kernel re-raises it by name (never
    "unknown error"): a tuple index out of range (IndexError "tuple index out of range"), a slice source of
    another size (ValueError), an Optional that is None (TypeError "expected <type>, got None").
11. A call of a device function declared with signatures that accept none of the arguments: numba's
    "Invalid use of type(...) with parameters (<argument types>)".
12. A call of a name that is not defined is numba's "NameError: name 'x' is not defined"; an error inside a
    called function adds the call chain, one "During: resolving callee type: ..." line per caller.
13. In a numba-cuda program served by cubridge, specialize() of a dispatcher made with signatures is numba's
    RuntimeError "Dispatcher already specialized" (cubridge alone gives the kernel the arguments select), and
    specialize() of one made without gives numba's specialized dispatcher: made with the arguments' signature
    (one per signature), sharing the compiled code, itself refusing to specialize again.
"""
import builtins
import os
import sys

import numpy as np
import pytest

import cubridge
from cubridge import _compiler

CC = (8, 0)
_NUMBA_ERRORS = ("numba.cuda.core.errors", "numba.core.errors")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "language"))  # test_jit_device_signatures


@pytest.fixture(params=["without numba", "with numba"])
def numba_state(request, monkeypatch):
    """The process as cubridge sees it: numba's errors modules hidden, or imported (numba-cuda's TypingError)."""
    if request.param == "with numba":
        errors = pytest.importorskip("numba.core.errors")
        return errors.TypingError
    for name in _NUMBA_ERRORS:
        monkeypatch.delitem(sys.modules, name, raising=False)
    return None


def refused(numba_typing_error, *classes):
    """The classes an error must be: cubridge's, and numba's TypingError where numba is imported."""
    return classes + ((numba_typing_error,) if numba_typing_error is not None else ())


def check(excinfo, classes, *words):
    for cls in classes:
        assert isinstance(excinfo.value, cls), (type(excinfo.value).__mro__, cls)
    for w in words:
        assert w in str(excinfo.value), (w, str(excinfo.value))


def add(x, y):
    return x + y


def first_plus_first(x, y):
    return x[0] + y[0]


# 1, 2 ---------------------------------------------------------------------------------------------------------

def test_the_c_abi_is_refused_for_kernels_as_numba_refuses_it(numba_state):
    with pytest.raises(NotImplementedError) as e:
        cubridge.compile_ptx(add, "(int32, int32)", abi="c", cc=CC)
    check(e, (ValueError, NotImplementedError), "The C ABI is not supported for kernels", "'add'",
          "compile it with abi='numba'")


def test_a_kernel_returning_a_value_is_a_type_error(numba_state):
    with pytest.raises(TypeError) as e:
        cubridge.compile_ptx(first_plus_first, "(uint32[::1], uint32[::1])", cc=CC)
    check(e, refused(numba_state, cubridge.CompileError, ValueError, TypeError),
          "Kernel 'first_plus_first' must have void return type but got uint64",
          "a kernel (device=False) must not return a value; compile it with device=True")


# 3, 4 ---------------------------------------------------------------------------------------------------------

def vote_all(mask, predicate, result):
    i = cubridge.grid(1)
    if i < result.shape[0]:
        result[i] = cubridge.all_sync(mask[i], predicate[i])


@pytest.mark.parametrize("sig, words", [
    ("void(float32[:], int32[:], int32[:])", "Mask type must be an integer"),
    ("void(boolean[:], int32[:], int32[:])", "Mask type must be an integer"),
    ("void(float64[:], int32[:], int32[:])", "Mask type must be an integer"),
    ("void(int32[:], float32[:], int32[:])", "Predicate must be an integer or boolean"),
    ("void(int32[:], float64[:], int32[:])", "Predicate must be an integer or boolean"),
])
def test_vote_masks_and_predicates_are_checked_in_numbas_words(numba_state, sig, words):
    with pytest.raises(cubridge.CompileError) as e:
        cubridge.compile_ptx(vote_all, sig, cc=CC)
    check(e, refused(numba_state, cubridge.CompileError), words, "all_sync(mask, predicate)")


@pytest.mark.parametrize("sig", ["void(uint32[:], uint32[:], int32[:])", "void(int64[:], int64[:], int32[:])",
                                 "void(uint32[:], boolean[:], int32[:])"])
def test_integer_masks_with_integer_or_bool_predicates_compile(sig):
    ptx, _ = cubridge.compile_ptx(vote_all, sig, cc=CC)
    assert "vote.sync.all.pred" in ptx


def grid_of(n):
    i = cubridge.grid(n)  # noqa: F841


def gridsize_of(n):
    i = cubridge.gridsize(n)  # noqa: F841


@pytest.mark.parametrize("fn", [grid_of, gridsize_of])
def test_grid_of_a_variable_is_numbas_require_literal_value(numba_state, fn):
    with pytest.raises(cubridge.CompileError) as e:
        cubridge.compile_ptx(fn, "void(int32)", cc=CC)
    check(e, refused(numba_state, cubridge.CompileError), "RequireLiteralValue", "(ndim) takes the constant 1, 2 or 3")


# 5, 6 ---------------------------------------------------------------------------------------------------------

def shared_int33(x):
    s = cubridge.shared.array(10, dtype="int33")
    s[0] = x[0]
    x[0] = s[0]


def local_int33(x):
    s = cubridge.local.array(10, dtype="int33")
    s[0] = x[0]
    x[0] = s[0]


def shared_float32_string(x):
    s = cubridge.shared.array(10, dtype="float32")
    s[1] = x[0]
    x[0] = s[1]


def local_int16_string(x):
    s = cubridge.local.array(3, dtype="int16")
    s[2] = x[0]
    x[0] = s[2]


@pytest.mark.parametrize("fn", [shared_int33, local_int33])
def test_an_invalid_dtype_string_is_numbas_invalid_numpy_dtype(numba_state, fn):
    with pytest.raises(cubridge.CompileError) as e:
        cubridge.compile_ptx(fn, "void(int32[::1])", cc=CC)
    check(e, refused(numba_state, cubridge.CompileError), "Invalid NumPy dtype specified: 'int33'",
          "takes a dtype string naming a NumPy number type")


def shared_object_dtype():
    arr = cubridge.shared.array(10, dtype=np.dtype("O"))  # noqa: F841


def test_a_dtype_that_is_no_type_leaves_the_variable_untyped_in_numbas_words(numba_state):
    """numba-cuda's test_sm.test_invalid_array_type: its message names the variable assigned."""
    with pytest.raises(cubridge.CompileError) as e:
        cubridge.compile_ptx(shared_object_dtype, "void()", cc=CC)
    check(e, refused(numba_state, cubridge.CompileError), "Cannot infer the type of variable 'arr'",
          "the dtype must be a number type")


def test_a_numpy_dtype_string_names_that_type():
    ir, _ = cubridge.compile(shared_float32_string, "void(float32[::1])", device=False, abi="numba", output="llvm")
    assert "addrspace(3) global [10 x float]" in ir, ir
    ir, _ = cubridge.compile(local_int16_string, "void(int16[::1])", device=False, abi="numba", output="llvm")
    assert "alloca [3 x i16]" in ir, ir
    cubridge.compile_ptx(local_int16_string, "void(int16[::1])", cc=CC)  # and libNVVM takes it


def shape_from_array(A):
    sa = cubridge.shared.array(shape=A[0], dtype=cubridge.float32)
    sa[0] = 1


def shape_tuple_from_array(A):
    sa = cubridge.shared.array(shape=(1, A[0]), dtype=cubridge.float32)
    sa[0, 0] = 1


GLOBAL_CONSTANT = 5
GLOBAL_CONSTANT_2 = 6


def shape_from_a_list(A):
    sa = cubridge.shared.array(shape=[GLOBAL_CONSTANT, GLOBAL_CONSTANT_2], dtype=cubridge.float32)
    A[0, 0] = sa[0, 0]


def shape_from_a_list_of_one(A):
    sa = cubridge.shared.array([GLOBAL_CONSTANT * 2], cubridge.float32)
    A[0, 0] = sa[0]


@pytest.mark.parametrize("fn, sig, spelled", [
    (shape_from_a_list, "void(float32[:, :])", ">>> array(shape=list(int64)<iv=[5, 6]>, dtype=class(float32))"),
    (shape_from_a_list_of_one, "void(float32[:, :])", ">>> array(shape=list(int64)<iv=[10]>, dtype=class(float32))"),
    (shape_from_array, "void(float32[:])", ">>> array(shape=float32, dtype=class(float32))"),
    (shape_from_array, "void(int32[:])", ">>> array(shape=int32, dtype=class(float32))"),
    (shape_tuple_from_array, "void(int32[:])", ">>> array(shape=Tuple(Literal[int](1), int32), dtype=class(float32))"),
    (shape_tuple_from_array, "void(float32[:, :])",
     ">>> array(shape=Tuple(Literal[int](1), array(float32, 1d, A)), dtype=class(float32))"),
])
def test_a_shape_unknown_at_compile_time_is_numbas_no_implementation(numba_state, fn, sig, spelled):
    with pytest.raises(cubridge.CompileError) as e:
        cubridge.compile_ptx(fn, sig, cc=CC)
    check(e, refused(numba_state, cubridge.CompileError), "No implementation of function Function(<function shared.array",
          "found for signature:\n \n " + spelled, "the shape must be an integer constant or a tuple of them")


# 8, 9 --------------------------------------------------------------------------------------------------------

class _NotCompilable:
    def __call__(self, a, b):
        return a


gufunc_like = _NotCompilable()


def calls_an_object(A, b):
    gufunc_like(A, b)


def float_method():
    float.as_integer_ratio(1.23)


def test_a_callable_object_is_numbas_untyped_global_name(numba_state):
    with pytest.raises(cubridge.CompileError) as e:
        cubridge.compile_ptx(calls_an_object, "void(int32[:], int32[:])", cc=CC)
    check(e, refused(numba_state, cubridge.CompileError), "Untyped global name 'gufunc_like'",
          "_NotCompilable object cannot be called from compiled code")


def test_a_builtin_types_method_is_numbas_unknown_attribute(numba_state):
    with pytest.raises(cubridge.CompileError) as e:
        cubridge.compile_ptx(float_method, "void()", cc=CC)
    check(e, refused(numba_state, cubridge.CompileError), "Unknown attribute 'as_integer_ratio'",
          "calls the type itself (float(x))")


# 10 ----------------------------------------------------------------------------------------------------------

def tuple_index(ary):
    x = cubridge.threadIdx.x
    if x == 2:
        ary.shape[-x]


def slice_from_tuple(a):
    a[0:4] = (1.0, 2.0, 3.0)


def slice_from_array(a, b):
    a[0:4] = b


def maybe(x):
    if x > 0:
        return x
    return None


def unwraps(a, x):
    a[0] = maybe(x) + 1


def raise_sites(fn, sig):
    r = _compiler._compile_result(fn, sig, debug=True, device=False, abi="numba", cc=CC, opt=False)
    return [(site[0], site[1], tuple(site[2])) for site in r.raise_sites]  # (code, exception, args, ...)


@pytest.mark.parametrize("fn, sig, exception, message", [
    (tuple_index, "void(int64[::1])", "builtins.IndexError", "s:tuple index out of range"),
    (slice_from_tuple, "void(float64[::1])", "builtins.ValueError", "s:cannot assign slice from input of different size"),
    (slice_from_array, "void(float64[::1], float64[::1])", "builtins.ValueError",
     "s:cannot assign slice from input of different size"),
    (unwraps, "void(int64[::1], int64)", "builtins.TypeError", "s:expected int64, got None"),
])
def test_every_raise_is_a_registered_site_with_numbas_exception(fn, sig, exception, message):
    sites = raise_sites(fn, sig)
    assert (exception, (message,)) in [(s[1], s[2]) for s in sites], sites
    codes = [s[0] for s in sites]
    assert codes == list(range(1, len(codes) + 1)), sites  # numbered, each once
    assert _compiler.exception_class(exception) is getattr(builtins, exception[9:])


# 11 ----------------------------------------------------------------------------------------------------------

def test_a_call_no_declared_signature_accepts_is_numbas_invalid_use(numba_state):
    from test_jit_device_signatures import _device, _kernel_calling
    helper = _device(["(int64, int64)", "(float64, float64)"], add)
    with pytest.raises(cubridge.CompileError) as e:
        cubridge.compile_ptx(_kernel_calling(helper), "void(int64[::1], complex128, complex128)", cc=CC)
    check(e, refused(numba_state, cubridge.CompileError), "Invalid use of type",
          "with parameters (complex128, complex128)", "no declared signature of 'add' accepts these arguments")


# 12 ----------------------------------------------------------------------------------------------------------

def calls_floor(x):
    return floor(x)  # noqa: F821  (deliberately not defined)


def kernel_calling_floor():
    calls_floor(1.5)


def test_an_error_in_a_callee_names_the_call_chain_in_numbas_words(numba_state):
    with pytest.raises(cubridge.CompileError) as e:
        cubridge.compile_ptx(kernel_calling_floor, "void()", cc=CC)
    check(e, refused(numba_state, cubridge.CompileError), "NameError: name 'floor' is not defined",
          "\nDuring: resolving callee type: type(CUDADispatcher(<function calls_floor>)) (the call of 'calls_floor' "
          "in 'kernel_calling_floor'")


# 13 ----------------------------------------------------------------------------------------------------------

def test_a_numba_program_cannot_specialize_a_dispatcher_made_with_signatures(monkeypatch):
    from cubridge import _numba_diagnostics
    monkeypatch.setattr(_numba_diagnostics, "_numba_program", True)  # drop-in mode, as install_numba() sets it
    d = cubridge.jit("void(float32[::1])")(noop_kernel)
    with pytest.raises(RuntimeError, match=r"Dispatcher already specialized: kernel 'noop_kernel' was made with "
                                           r"signatures \(void\(float32\[::1\]\)\)"):
        d.specialize(cubridge.float32[::1])


def test_a_numba_program_specializes_into_a_dispatcher_made_with_the_signature(monkeypatch):
    numba = pytest.importorskip("numba")
    from cubridge import _numba_diagnostics
    monkeypatch.setattr(_numba_diagnostics, "_numba_program", True)
    d = cubridge.jit(noop_kernel)
    s = d.specialize(numba.float32[::1])
    assert isinstance(s, cubridge.Dispatcher) and s is not d and s.specialized
    assert list(s.overloads) == [cubridge.void(cubridge.float32[::1])]
    assert s.overloads[(cubridge.float32[::1],)] is d.overloads[(cubridge.float32[::1],)]  # compiled once
    assert d.specialize(cubridge.float32[::1]) is s and len(d.specializations) == 1
    t = d.specialize(numba.int32[::1])
    assert t is not s and len(d.specializations) == 2
    for specialized, given in ((s, numba.float32[::1]), (t, numba.float32[::1])):
        with pytest.raises(RuntimeError, match="Dispatcher already specialized: kernel 'noop_kernel'"):
            specialized.specialize(given)


def noop_kernel(x):
    pass
