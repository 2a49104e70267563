"""Calls of functions with a numba @overload (numba's high-level extension API), without a GPU. The rules
(numba-cuda's test_overload and test_extending.TestHighLevelExtending):

1. The call compiles the implementation the overload function returns, called with the Numba types of the
   arguments (positional, then keyword ones by name), never the overloaded function's own body.
2. Target: a 'cuda' overload wins over a 'generic' one; 'generic' is used when no 'cuda' one exists; an
   overload only for 'cpu' is refused by name.
3. Implementations may call other overloaded functions and keep their defaults and keywords.
4. The overload function sees the argument types and may return different implementations for them;
   returning None for every overload is refused ("no implementation").
5. Refused by name: a (signature, impl) pair, a lambda, a strict signature mismatch.
6. Two implementations with the same name (`impl`) stay apart.
8. Integer literal arguments reach the overload function as IntegerLiteral types, first when it prefers
   literals (prefer_literal=True), after the plain types otherwise; an implementation chosen for literal
   values serves only calls with those values, whatever order the calls come in.
7. A method added with overload_method(types.Array, name): a.name(x) is the overload function's call with
   (a, x), keywords and defaults kept; a method nobody added is still refused by name.
"""
import re

import pytest

import cubridge

pytest.importorskip("numba.core.extending", reason="numba is not installed")


def _numba_cuda_extending():
    """numba-cuda's extension API where numba-cuda is installed (what its test_overload uses), else numba's."""
    try:
        import numba.cuda
        if hasattr(numba.cuda, "CUSource"):
            import numba.cuda.extending
            return numba.cuda.extending
    except ImportError:
        pass
    import numba.core.extending
    return numba.core.extending


overload = _numba_cuda_extending().overload
overload_method = _numba_cuda_extending().overload_method
from cubridge._overload_binding import _numba_types  # noqa: E402

types = _numba_types()  # the type objects the overload functions are called with

CC = (9, 0)


def generic_func(): pass  # noqa: E704  (stubs: numba compiles the overloads below instead)
def cuda_func(): pass  # noqa: E704
def target_overloaded(): pass  # noqa: E704
def calls_target_overloaded(): pass  # noqa: E704
def cpu_only(): pass  # noqa: E704
def by_type(): pass  # noqa: E704
def never(): pass  # noqa: E704
def with_defaults(): pass  # noqa: E704
def pair(): pass  # noqa: E704
def mismatch(): pass  # noqa: E704


@overload(generic_func, target="generic")
def _ol_generic(x):
    def impl(x):
        x[0] *= 2
    return impl


@overload(cuda_func, target="cuda")
def _ol_cuda(x):
    def impl(x):
        x[0] *= 3
    return impl


@overload(target_overloaded, target="generic")
def _ol_target_generic(x):
    def impl(x):
        x[0] *= 23
    return impl


@overload(target_overloaded, target="cuda")
def _ol_target_cuda(x):
    def impl(x):
        x[0] *= 29
    return impl


@overload(calls_target_overloaded, target="generic")
def _ol_calls(x):
    def impl(x):
        x[0] *= 31
        target_overloaded(x)
        generic_func(x)
    return impl


@overload(cpu_only, target="cpu")
def _ol_cpu(x):
    def impl(x):
        x[0] *= 5
    return impl


@overload(by_type)
def _ol_by_type(x):
    if isinstance(x, types.Float):
        def impl(x):
            return x * 7.0
        return impl
    if isinstance(x, types.Integer):
        def impl(x):
            return x * 11
        return impl
    return None


@overload(never)
def _ol_never(x):
    return None


@overload(with_defaults)
def _ol_with_defaults(out, x, y=5, z=6):
    def impl(out, x, y=5, z=6):
        out[0], out[1] = x + y, z
    return impl


@overload(pair)
def _ol_pair(x):
    def impl(x):
        return x
    return types.int64(types.int64), impl


@overload(mismatch)
def _ol_mismatch(x):
    def impl(x, y):
        return x
    return impl


def _ir(fn, sig="void(int32[::1])"):
    return cubridge.compile(fn, sig, device=False, abi="numba", cc=CC, output="llvm")[0]


def _multipliers(ir):
    """The constants the code multiplies by, less the element size (4) of the int32 address arithmetic."""
    return sorted(int(m) for m in re.findall(r"= mul i(?:32|64) %\w+, (\d+)", ir) if m != "4")


def k_generic(x):
    generic_func(x)


def k_cuda_and_generic(x):
    generic_func(x)
    cuda_func(x)


def k_target(x):
    target_overloaded(x)


def k_calls(x):
    calls_target_overloaded(x)


def test_the_implementation_is_compiled_not_the_stub():
    assert _multipliers(_ir(k_generic)) == [2]
    assert _multipliers(_ir(k_cuda_and_generic)) == [2, 3]


def test_a_cuda_overload_wins_over_a_generic_one():
    assert _multipliers(_ir(k_target)) == [29]


def test_implementations_call_other_overloads():
    assert _multipliers(_ir(k_calls)) == [2, 29, 31]


def test_an_overload_only_for_the_cpu_is_refused():
    def k(x):
        cpu_only(x)
    with pytest.raises(cubridge.CompileError, match=r"'cpu_only' .* has numba @overload implementations only for "
                                                    r"target\(s\) 'cpu', none for CUDA"):
        _ir(k)


def test_the_overload_function_sees_the_argument_types():
    def k(r, x, y):
        r[0] = by_type(x) + by_type(y)
    ir = _ir(k, "void(float64[::1], float64, int64)")
    assert "fmul double" in ir and "mul i64" in ir and re.search(r"mul i64 %\w+, 11", ir)


def test_no_implementation_for_the_types_is_refused():
    def k(x):
        never(x)
    with pytest.raises(cubridge.CompileError, match=r"'never\(array\(int32, 1d, C\)\)': no implementation of the "
                                                    r"numba @overload'ed function"):
        _ir(k)


def test_defaults_and_keywords_reach_the_implementation():
    def k(a, b, out):
        with_defaults(out, a, z=b)
    ir = _ir(k, "void(int64, int64, int64[::1])")
    assert "impl__overload_with_defaults_0" in ir and ir.count("add i64 %") == 1  # x + y (y: the default 5)


@pytest.mark.parametrize("fn, message", [
    (pair, r"returned a \(signature, implementation\) pair"),
    (mismatch, r"Typing and implementation arguments differ in argument names"),
])
def test_what_cannot_be_compiled_faithfully_is_refused_by_name(fn, message):
    def k(r, x):
        r[0] = fn(x)
    with pytest.raises(cubridge.CompileError, match=message):
        _ir(k, "void(int64[::1], int64)")


def test_implementations_named_alike_stay_apart():
    ir = _ir(k_cuda_and_generic)
    assert "impl__overload_generic_func_0" in ir and "impl__overload_cuda_func_1" in ir


def test_overloads_through_a_kernel_dispatcher():
    compiled = cubridge.jit(k_calls).compile("void(int32[::1])")
    assert ".entry" in compiled.ptx and "mul.lo.s32" in compiled.ptx


def test_a_lambda_implementation_calling_an_external_function():
    bar = cubridge.declare_device("bar", "int32(int32)")

    def bar_call(val):
        pass

    @overload(bar_call, target="cuda")
    def _ol_bar_call(a):
        return lambda a: bar(a)

    def k(r, x):
        r[0] = bar_call(x[0])
    ir = _ir(k, "void(int32[::1], int32[::1])")
    assert "lambda__overload_bar_call_0" in ir and "call i32 @bar(" in ir


def test_two_lambdas_alike_on_one_line_are_refused():
    def two(): pass  # noqa: E704

    @overload(two)
    def _ol_two(a):
        return [lambda a: a + 1, lambda a: a + 2][0]

    def k(r, x):
        r[0] = two(x[0])
    with pytest.raises(cubridge.CompileError, match="is a lambda that cannot be told apart"):
        _ir(k, "void(int32[::1], int32[::1])")


def test_strict_overloads_check_defaults_and_kwargs_as_numba_does():
    def f(): pass  # noqa: E704
    def g(): pass  # noqa: E704

    @overload(f)
    def _ol_f(a, kw=None):
        def impl(a, kw=12):
            return a
        return impl

    @overload(g)
    def _ol_g(a, **kws):
        def impl(a, kw=10):
            return a
        return impl

    def kf(r, x):
        r[0] = f(x[0], kw=1)

    def kg(r, x):
        r[0] = g(x[0], kw=1)
    with pytest.raises(cubridge.CompileError, match=r"Typing and implementation arguments differ in keyword "
                                                    r"argument default values: .*<Parameter \"kw=None\">.*"
                                                    r"<Parameter \"kw=12\">"):
        _ir(kf, "void(int32[::1], int32[::1])")
    with pytest.raises(cubridge.CompileError, match=r"use of VAR_KEYWORD \(e.g. \*\*kwargs\) is unsupported.*"
                                                    r"offending argument name is '\*\*kws'"):
        _ir(kg, "void(int32[::1], int32[::1])")


def _strict_mismatch(impl, call_kw=True):
    """The refusal message for an overload `(a, b, c, kw=None)` whose implementation is `impl`."""
    def myoverload(): pass  # noqa: E704

    @overload(myoverload)
    def _ol(a, b, c, kw=None):
        return impl

    def k(r, x):
        r[0] = myoverload(x[0], x[1], x[2], kw=x[3])
    with pytest.raises(cubridge.CompileError) as e:
        _ir(k, "void(int64[::1], int64[::1])")
    return str(e.value)


def _impl_kw_renamed(a, b, c, kwarg=None): return a  # noqa: E704
def _impl_arg_renamed(z, b, c, kw=None): return z  # noqa: E704
def _impl_star_unmatched(z, *args, kw=None): return z  # noqa: E704
def _impl_star_matched(z, b, *args, kw=None): return z  # noqa: E704
def _impl_too_many(a, b, c, d, e, kw=None): return a  # noqa: E704
def _impl_too_few(a, b, kw=None): return a  # noqa: E704
def _impl_extra_kw(a, b, c, kw=None, extra_kwarg=None): return a  # noqa: E704
def _impl_no_kw(a, b, c): return a  # noqa: E704


@pytest.mark.parametrize("impl, differs, shown, absent", [
    (_impl_kw_renamed, "keyword argument names", ['<Parameter "kwarg=None">', '<Parameter "kw=None">'], None),
    (_impl_arg_renamed, "argument names", ['<Parameter "a">', '<Parameter "z">'], "keyword"),
    (_impl_star_unmatched, "argument names", ["First difference: 'z'"], "keyword"),
    (_impl_star_matched, "argument names", ['<Parameter "a">', '<Parameter "z">'], "keyword"),
    (_impl_too_many, "argument names", ['<Parameter "d">', '<Parameter "e">'], "keyword"),
    (_impl_too_few, "argument names", ['<Parameter "c">'], "keyword"),
    (_impl_extra_kw, "keyword argument names", ['<Parameter "extra_kwarg=None">'], None),
    (_impl_no_kw, "keyword argument names", ['<Parameter "kw=None">'], None),
])
def test_strict_overloads_compare_parameters_by_numbas_rules(impl, differs, shown, absent):
    """Parameters without a default match exactly (an implementation's *args stands for the trailing
    ones); those with a default match by name, then by default value; the message names the difference."""
    msg = _strict_mismatch(impl)
    assert f"Typing and implementation arguments differ in {differs}" in msg
    for s in shown:
        assert s in msg
    if absent:
        assert absent not in msg


def test_an_implementation_taking_the_trailing_arguments_as_star_args_is_accepted():
    def f(): pass  # noqa: E704

    @overload(f)
    def _ol(a, b, kw=None):
        def impl(a, *rest, kw=None):
            return a
        return impl

    _check = cubridge._overload_binding._check_same_parameters
    import inspect
    impl = _ol(types.int64, types.int64)
    _check(inspect.signature(_ol), inspect.signature(impl), impl, "'f(int64, int64)'")  # no error


def test_star_args_in_the_overload_function_must_be_in_the_implementation():
    def myoverload(): pass  # noqa: E704

    @overload(myoverload)
    def _ol(a, *star_args_token, kw=None, kw1=12):
        def impl(a, b, f, kw=None, kw1=12):
            return a
        return impl

    def k(r, x):
        r[0] = myoverload(x[0], x[1], 9, kw=11)
    with pytest.raises(cubridge.CompileError, match=r"VAR_POSITIONAL \(e.g. \*args\) argument kind \(offending "
                                                    r"argument name is '\*star_args_token'\)"):
        _ir(k, "void(int64[::1], int64[::1])")


def test_an_error_raised_by_the_overload_function_reaches_the_caller():
    errors = pytest.importorskip("numba.core.errors")

    def mock_float(x): pass  # noqa: E704

    @overload(mock_float)
    def _ol(x):
        if isinstance(x, types.Integer):
            def impl(x):
                return float(x)
            return impl
        raise errors.NumbaTypeError(f"cannot type float({x})")

    def k(r, x):
        r[0] = mock_float(x)
    with pytest.raises(errors.TypingError, match=r"cannot type float\(complex128\)"):
        _ir(k, "void(float64[::1], complex128)")
    assert "sitofp" in _ir(k, "void(float64[::1], int64)")


@overload_method(types.Array, "cb_foo", target="generic")
def _ol_cb_foo(arr, a_kwarg=10):
    def impl(arr, a_kwarg=10):
        return a_kwarg
    return impl


@overload_method(types.Array, "cb_litfoo", target="generic")
def _ol_cb_litfoo(arr, val):
    if isinstance(val, types.Integer) and not isinstance(val, types.Literal):  # cubridge passes no literal
        def impl(arr, val):
            return val
        return impl


@overload_method(types.Array, "cb_never", target="generic")
def _ol_cb_never(arr):
    return None


def test_an_array_method_from_overload_method_keeps_defaults_and_keywords():
    def k(A, res):
        res[0] = A.cb_foo()
        res[1] = A.cb_foo(20)
        res[2] = A.cb_foo(a_kwarg=30)
    ir = _ir(k, "void(int64[::1], float64[::1])")
    assert "impl__overload_Array_cb_foo_0" in ir
    for v in (10, 20, 30):  # the default, the positional and the keyword value reach the implementation
        assert re.search(rf"\bi64 {v}\b", ir), v


def test_an_array_method_sees_the_array_and_argument_types():
    def k(A, res):
        res[0] = A.cb_litfoo(0xCAFE)
    ir = _ir(k, "void(float64[::1], float64[::1])")
    assert "impl__overload_Array_cb_litfoo_0" in ir and re.search(r"\bi64 51966\b", ir)


def test_an_array_method_without_an_implementation_is_refused():
    def k(A):
        A.cb_never()
    with pytest.raises(cubridge.CompileError, match=r"'Array\.cb_never\(array\(int32, 1d, C\)\)': no implementation"):
        _ir(k)


def test_a_method_nobody_added_is_still_refused():
    def k(A):
        A.cb_nosuch()
    with pytest.raises(cubridge.CompileError, match=r"method 'cb_nosuch' of an array \(array\(int32, 1d, C\)\) is "
                                                    r"not supported"):
        _ir(k)


def prefer_lit(): pass  # noqa: E704
def non_lit(): pass  # noqa: E704


def _ov_literal(x):
    if isinstance(x, types.IntegerLiteral):
        if x.literal_value == 1:
            def impl(x):
                return 0xCAFE
            return impl
        from numba.core import errors
        raise errors.TypingError("literal value")
    def impl(x):  # noqa: E306
        return x * 100
    return impl


overload(prefer_lit, prefer_literal=True)(_ov_literal)
overload(non_lit)(_ov_literal)


def test_prefer_literal_gives_literal_types_first():
    def k(x, res):
        res[0] = prefer_lit(1)
        res[1] = prefer_lit(2)  # the literal attempt raises: the plain int64 one is used
        res[2] = prefer_lit(x)
    ir = _ir(k, "void(int64, float64[::1])")
    assert re.search(r"\bi64 51966\b", ir)
    assert len(set(re.findall(r"define [^@]*@\S*?(impl__overload_prefer_lit_\d+)\(", ir))) == 3


def test_a_literal_choice_holds_whatever_the_order_of_the_calls():
    def k(x, res):
        res[2] = prefer_lit(x)
        res[0] = prefer_lit(1)
    ir = _ir(k, "void(int64, float64[::1])")
    assert re.search(r"\bi64 51966\b", ir)


def test_without_prefer_literal_the_plain_types_come_first():
    def k(x, res):
        res[0] = non_lit(1)
        res[1] = non_lit(2)
        res[2] = non_lit(x)
    ir = _ir(k, "void(int64, float64[::1])")
    assert "51966" not in ir
    assert set(re.findall(r"define [^@]*@\S*?(impl__overload_non_lit_\d+)\(", ir)) == {"impl__overload_non_lit_0"}


def test_prefer_literal_refuses_arguments_numba_may_type_as_unknown_literals():
    def k(res):
        n = 1  # numba types n as Literal[int](1); its value is not passed
        res[0] = prefer_lit(n)
    with pytest.raises(cubridge.CompileError, match=r"asks for literal argument types \(prefer_literal=True\), and "
                                                    r"numba may type argument\(s\) 1 as literals"):
        _ir(k, "void(float64[::1])")


GLOBAL_ONE = 1


def test_a_global_integer_constant_is_a_literal_and_a_parameter_is_not():
    def k(res):
        res[0] = prefer_lit(GLOBAL_ONE)
    assert re.search(r"\bi64 51966\b", _ir(k, "void(float64[::1])"))

    def k2(res):
        res[0] = helper_prefer_lit(1)  # numba compiles the helper for int64: prefer_lit(p) gives p * 100
    assert "51966" not in _ir(k2, "void(float64[::1])")


def helper_prefer_lit(p):
    return prefer_lit(p)
