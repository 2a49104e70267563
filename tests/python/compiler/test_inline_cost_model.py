"""jit(inline=<cost model>) as numba-cuda's test_inline checks it, one test per rule of
``cubridge._inline_cost_model``: the model is asked with numba's own IR (the call expression, the caller's and
the callee's FunctionIR, made by numba's front end), once per call site; True writes the callee's body into the
caller (no call left, no alwaysinline), False keeps the call (no alwaysinline); answers differing between call
sites are refused naming the function; without numba imported the call is refused by name; jit itself takes
any callable and refuses anything else naming what it takes."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cubridge

SIG = "void(int32[::1])"


def set_zero(a):
    a[0] = 0


def _caller_ir(model, device=False):
    helper = cubridge.jit(device=device, inline=model, cache=False)(set_zero)

    def call_set_zero(a):
        helper(a)
    return cubridge.jit(SIG, cache=False)(call_set_zero).inspect_llvm(SIG)


@pytest.fixture
def numba_ir():
    """numba imported (its front end makes the IR the model is asked with) and its ir module."""
    pytest.importorskip("numba", reason="numba is not installed")
    import numba.core.compiler  # noqa: F401  (what an importing program has in sys.modules)
    try:  # numba-cuda's own front end and IR where numba-cuda is installed
        from numba.cuda.core import ir
    except ImportError:
        from numba.core import ir
    return ir


@pytest.mark.parametrize("device", [False, True])
def test_a_true_answer_writes_the_body_into_the_caller(numba_ir, device):
    ir = _caller_ir(lambda expr, caller, callee: True, device)
    assert not re.search(r"call [a-zA-Z0-9]* @", ir), ir  # numba-cuda's test_inline pattern
    assert "alwaysinline" not in ir, ir
    assert re.search(r"store i32 \S+, i32\* %t\d+", ir), ir  # a[0] = 0, in the kernel


@pytest.mark.parametrize("device", [False, True])
def test_a_false_answer_keeps_the_call(numba_ir, device):
    ir = _caller_ir(lambda expr, caller, callee: False, device)
    assert re.search(r"call [a-zA-Z0-9]* @", ir), ir
    assert "alwaysinline" not in ir, ir


def test_truthiness_decides_as_in_numba(numba_ir):
    assert not re.search(r"call [a-zA-Z0-9]* @", _caller_ir(lambda *a: 1))
    assert re.search(r"call [a-zA-Z0-9]* @", _caller_ir(lambda *a: None))


def test_the_model_is_asked_with_numbas_ir_once_per_call_site(numba_ir):
    asked = []

    def model(expr, caller_ir, callee_ir):
        asked.append((expr, caller_ir, callee_ir))
        return True
    helper = cubridge.jit(inline=model, cache=False)(set_zero)

    def call_twice(a):
        helper(a)
        helper(a[1:])
    cubridge.jit(SIG, cache=False)(call_twice).inspect_llvm(SIG)
    assert len(asked) == 2
    for expr, caller_ir, callee_ir in asked:
        assert isinstance(expr, numba_ir.Expr) and expr.op == "call"
        assert isinstance(caller_ir, numba_ir.FunctionIR) and isinstance(callee_ir, numba_ir.FunctionIR)
        assert caller_ir.func_id.func_name == "call_twice"
        assert callee_ir.func_id.func_name == "set_zero"
        assert caller_ir.get_definition(expr.func).value is helper  # the call of this function
    assert asked[0][0].loc.line < asked[1][0].loc.line  # in the caller's order


def test_a_call_through_a_tuple_item_is_not_asked_and_not_inlined(numba_ir):
    asked = []
    helper = cubridge.jit(inline=lambda *a: asked.append(a) or True, cache=False)(set_zero)
    ops = (helper,)

    def call_item(a):
        ops[0](a)
    ir = cubridge.jit(SIG, cache=False)(call_item).inspect_llvm(SIG)
    assert asked == []
    assert re.search(r"call [a-zA-Z0-9]* @", ir), ir


def test_answers_differing_between_call_sites_are_refused_by_name(numba_ir):
    answers = iter([True, False])
    helper = cubridge.jit(inline=lambda *a: next(answers), cache=False)(set_zero)

    def call_twice(a):
        helper(a)
        helper(a[1:])
    with pytest.raises(cubridge.CompileError, match=r"the inline cost model of 'set_zero' .* answers True at some of "
                                                    r"its calls in '.*call_twice' and False at others"):
        cubridge.jit(SIG, cache=False)(call_twice).inspect_llvm(SIG)


def test_an_error_in_the_model_is_the_users():
    def model(expr, caller, callee):
        raise KeyError("the model's own")
    pytest.importorskip("numba", reason="numba is not installed")
    import numba.core.compiler  # noqa: F401
    helper = cubridge.jit(inline=model, cache=False)(set_zero)

    def call_set_zero(a):
        helper(a)
    with pytest.raises(KeyError, match="the model's own"):
        cubridge.jit(SIG, cache=False)(call_set_zero).inspect_llvm(SIG)


def test_without_numba_imported_a_call_is_refused_by_name():
    # a fresh process: cubridge never imports numba, so there is no numba IR to ask the model with
    code = textwrap.dedent("""
        import sys
        import cubridge

        def set_zero(a):
            a[0] = 0
        helper = cubridge.jit(inline=lambda *a: True, cache=False)(set_zero)

        def call_set_zero(a):
            helper(a)
        try:
            cubridge.jit("void(int32[::1])", cache=False)(call_set_zero).inspect_llvm("void(int32[::1])")
        except cubridge.CompileError as e:
            print("refused:", e)
        assert "numba" not in sys.modules
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy(),
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert re.search(r"refused: .*'set_zero' has inline=<function <lambda> .*>, a cost model: numba calls it with "
                     r"numba's IR .* numba is not imported in this process .* or use inline='always' or 'never'",
                     out.stdout), out.stdout


def test_jit_takes_a_callable_and_refuses_other_values_by_name():
    def model(expr, caller, callee):
        return True
    assert cubridge.jit(inline=model)(set_zero).__cubridge_inline__ is model
    assert cubridge.jit(device=True, inline=model)(set_zero).targetoptions["inline"] is model
    with pytest.raises(ValueError, match=r"inline=3\.5: kwarg 'inline' must be one of the strings 'always' or "
                                         r"'never', or it can be a callable that returns True/False"):
        cubridge.jit(inline=3.5)


@pytest.mark.gpu
@pytest.mark.parametrize("answer", [True, False])
def test_values_match_numba_cuda(answer):
    # numba-cuda's test_inline kernel through both compilers, the same cost model
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    results = []
    for jit in (numba_cuda.jit, cubridge.jit):
        helper = jit(inline=lambda expr, caller, callee: answer)(set_zero)

        def call_set_zero(a):
            helper(a)
        a = np.ones(2, dtype=np.int32)
        jit(SIG)(call_set_zero)[1, 2](a)
        results.append(a)
    np.testing.assert_array_equal(results[1], results[0])
    np.testing.assert_array_equal(results[1], np.arange(2, dtype=np.int32))
