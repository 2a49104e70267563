"""Nested functions, closures and *args, with numba-cuda's semantics (its inline_closurecall and
MakeFunctionToJitFunction passes). The rules:

1. a nested `def` called where it is defined reads its encloser's variables as they are at the call
   (parameters and locals of any kind), also those of the functions around its encloser;
2. a nested function assigning a `nonlocal` variable assigns the encloser's (seen after the call);
3. a nested function passed as an argument to another function (a function value) is compiled with the
   constants it reads from its encloser folded in; a variable defined twice is numba's error 'Cannot capture a
   constant value for variable ...', one not defined by a constant 'Cannot capture the non-constant value
   associated with variable ... in a function that may escape.';
4. defaults and keywords of a nested function work as for any function;
5. `def f(a, *args)` takes the surplus positional arguments as a tuple; `g(*t)` spreads a tuple;
6. any other use of a nested function (stored, returned, read by a sibling) is refused by name;
7. a closure or global variable bound to None is the constant None, and None tests false (numba-cuda's
   test_functioncompiler_locals: `if cond:` on a closure's None is pruned).
Values against numba-cuda on the GPU: test_jit_nested_functions_gpu.py."""
import cmath
import re

import numpy as np
import pytest

import cubridge
import closure_kernels as ck


def _ptx(fn, sig):
    return cubridge.compile_ptx(fn, sig)[0]


def _device(fn, sig):
    return cubridge.compile_ptx(fn, sig, device=True)


def test_a_nested_function_passed_as_an_argument_is_compiled_for_the_call():
    assert re.search(r"mov\.u64\s+%rd\d+, 10;", _ptx(ck.escape, "void(int64[::1])"))
    assert re.search(r"mov\.u64\s+%rd\d+, 10;", _ptx(ck.nested_escape, "void(int64[::1])"))
    assert re.search(r"mov\.u64\s+%rd\d+, 10;", _ptx(ck.closure_in_escaper, "void(int64[::1])"))


def test_captured_constants_are_folded_into_a_function_passed_as_an_argument():
    ptx = _ptx(ck.close_over_consts, "void(int64[::1], int64)")
    # 10 + 6 + 123 = 139 and 10 + x + 123: x + 272 in all
    assert re.search(r"add\.s64\s+%rd\d+, %rd\d+, 272;", ptx)


def test_a_called_closure_reads_its_enclosers_arguments_at_the_call():
    ptx = _ptx(ck.called_closure_reads_arguments, "void(int64[::1], int64)")
    assert "mul.lo.s64" in ptx
    ptx = _ptx(ck.grandchild_reads_outer_argument, "void(int64[::1], int64)")
    assert re.search(r"add\.s64\s+%rd\d+, %rd\d+, 10;", ptx)


def test_defaults_and_keywords_of_a_nested_function():
    ptx = _ptx(ck.defaults_and_keywords, "void(int64[::1], int64)")
    for v in (168, 551, 601):  # 91+53+4+12+1+2+5; 73+456+4+12+6; 123+456+4+12+6
        assert re.search(rf"mov\.u64\s+%rd\d+, {v};", ptx), v
    assert re.search(r"add\.s64\s+%rd\d+, %rd\d+, 152;", ptx)  # 123+7+4+12+2+4 + a


def test_nonlocal_assignments_are_the_enclosers():
    ptx = _ptx(ck.nonlocal_constant, "void(float64[::1])")
    assert re.search(r"mov\.u64\s+%rd\d+, 4607182418800017408;", ptx)  # 1.0: the True branch only
    ptx = _ptx(ck.nonlocal_argument, "void(int64, float64[::1])")
    assert "setp.eq.s64" in ptx or "selp" in ptx  # decided at run time


def test_star_parameters_and_star_calls():
    ptx = _ptx(ck.star_call, "void(int64[::1], int64, int64)")
    assert "sub.s64" in ptx


def test_multiply_defined_capture_of_an_escaping_function_is_numbas_error():
    def impl(c):
        if c:
            x = 3

            def inner(y):
                return y + x

            r = ck.consumer(inner, 1)
        else:
            x = 6

            def inner(y):
                return y + x

            r = ck.consumer(inner, 2)
        return r

    with pytest.raises(cubridge.CompileError, match="Cannot capture a constant value for variable 'x' as there are "
                                                    "multiple definitions present."):
        cubridge.compile_ptx(impl, "int64(int64)", device=True)


def test_non_constant_capture_of_an_escaping_function_is_numbas_error():
    def impl(x):
        z = np.arange(x)

        def inner(val):
            return 1 + z + val

        return ck.consumer(inner, x)

    with pytest.raises(cubridge.CompileError, match="Cannot capture the non-constant value associated with variable "
                                                    "'z' in a function that may escape."):
        cubridge.compile_ptx(impl, "int64(int64)", device=True)


def test_other_uses_of_a_nested_function_are_refused_by_name():
    def stored(x):
        def inner(y):
            return y

        f = inner
        return f(x)

    with pytest.raises(cubridge.CompileError, match="the nested function 'inner' is used as a value here"):
        cubridge.compile_ptx(stored, "int64(int64)", device=True)

    def sibling(x):
        def one():
            return 1

        def two():
            return one() + 1

        return two()

    with pytest.raises(cubridge.CompileError, match="the nested function 'two' uses 'one', a nested function of"):
        cubridge.compile_ptx(sibling, "int64(int64)", device=True)

    def escaping_nonlocal(x):
        def inner(y):
            nonlocal x
            x = y
        ck.consumer(inner, 1)
        return x

    with pytest.raises(cubridge.CompileError, match="assigns the nonlocal 'x' and is passed as an argument"):
        cubridge.compile_ptx(escaping_nonlocal, "int64(int64)", device=True)

    def nonlocal_in_expression(x):
        def inner(y):
            nonlocal x
            x = y
        return inner(1) is None

    with pytest.raises(cubridge.CompileError, match="can only be called as a statement of its own"):
        cubridge.compile_ptx(nonlocal_in_expression, "int64(int64)", device=True)


def test_nonlocals_of_outer_functions_and_defaults_reading_variables_are_refused_by_name():
    def grand_nonlocal(x):
        def middle():
            def inner():
                nonlocal x
                x = 1
            inner()
        middle()
        return x

    with pytest.raises(cubridge.CompileError, match="'inner' declares 'x' nonlocal, which is not a variable of "
                                                    "'middle'"):
        cubridge.compile_ptx(grand_nonlocal, "int64(int64)", device=True)

    def default_reads_variable(x):
        y = x + 1

        def inner(a, k=y):
            return a + k
        return inner(1)

    with pytest.raises(cubridge.CompileError, match="a default value of the nested function 'inner' reads 'y'"):
        cubridge.compile_ptx(default_reads_variable, "int64(int64)", device=True)


def inner():  # a module function of the name a nested one has below: never called in its place
    return 99


def test_a_nested_function_used_before_its_definition_is_refused_by_name():
    def loop(x):
        r = 0
        for i in range(2):
            if i == 1:
                r = inner()

            def inner():
                return 1
        return r + x

    with pytest.raises(cubridge.CompileError, match="'inner' is used where the nested function 'inner' of 'loop' is "
                                                    "not"):
        cubridge.compile_ptx(loop, "int64(int64)", device=True)


def test_too_many_arguments_are_counted_as_python_counts_them():
    def impl(x):
        def inner():
            return x
        return inner(5)

    with pytest.raises(cubridge.CompileError, match=r"inner\(\) takes 0 positional arguments but 1 was given"):
        cubridge.compile_ptx(impl, "int64(int64)", device=True)


def test_star_unpacking_of_a_non_tuple_is_refused_by_name():
    def impl(x):
        return ck._sub(*x)

    with pytest.raises(cubridge.CompileError, match=r"argument unpacking \('\*value'\) needs a tuple, got a value "
                                                    r"of type int64"):
        cubridge.compile_ptx(impl, "int64(int64)", device=True)


def _polar_as_complex(x):
    return complex(*cmath.polar(x))


def test_a_tuple_a_call_returns_is_spread_as_the_first_argument():
    # numba-cuda's test_complex.test_polar: the unpacked value is computed once, before the call
    ptx, resty = cubridge.compile_ptx(_polar_as_complex, (cubridge.complex128,), device=True)
    assert resty == cubridge.complex128
    _, resty = cubridge.compile_ptx(_polar_as_complex, (cubridge.complex64,), device=True)
    assert resty == cubridge.complex64  # complex(float32, float32), as numba types it


def test_an_expression_unpacked_after_other_arguments_is_refused_by_name():
    def impl(x):
        return ck.consumer(ck._sub, *(x, x))

    with pytest.raises(cubridge.CompileError, match=r"argument unpacking \('\*value'\) of an expression is not "
                                                    r"supported: assign the tuple to a name first"):
        cubridge.compile_ptx(impl, "int64(int64)", device=True)


def _none_closure_kernels():
    cond = None

    def pruned(b_arg):
        b_smem = cubridge.shared.array(shape=(1,), dtype=cubridge.float32)
        if cond:
            b_smem[0] = b_arg[0]

    def tested(b):
        x = cond
        if x is None:
            b[0] = 5.0
        if cond is not None:
            b[0] = 7.0
        while cond:
            b[0] = 9.0

    return pruned, tested


def test_a_closure_bound_to_none_is_the_constant_none_and_tests_false():
    pruned, tested = _none_closure_kernels()
    ptx = _ptx(pruned, "void(float32[::1])")
    assert "ld.global" not in ptx and "st.shared" not in ptx
    ptx = _ptx(tested, "void(float32[::1])")
    stores = [line for line in ptx.splitlines() if "st.global" in line]
    assert len(stores) == 1 and "1084227584" in ptx  # only b[0] = 5.0


def test_none_tests_false_in_if_and_while():
    def f(b):
        x = None
        if x:
            b[0] = 2.0
        if None:
            b[0] = 1.0
        while x:
            b[0] = 3.0

    assert "st.global" not in _ptx(f, "void(float32[::1])")
