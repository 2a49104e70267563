"""numba's ``jit(inline=<cost model>)``: a callable asked, at each call of the function, whether to inline it.

numba (``InlineInlinables``, its untyped pass) calls the model as ``model(expr, caller_ir, callee_ir)`` with its
own IR objects: the call expression (``ir.Expr``, op ``'call'``), the caller's ``FunctionIR`` and the callee's
``FunctionIR`` made by its front end (``run_frontend(callee.py_func)``); a truthy answer writes the callee's body
into the caller at that call (numba's IR-level inlining, cubridge's inline policy ``'ir'``), a falsy one leaves
the call (``'never'``). The rules:

1. The model is asked with numba's own IR objects, made by numba's own front end (``run_frontend`` of the
   ``numba.cuda.compiler`` module, numba-cuda's, else of ``numba.core.compiler``, numba's) for the caller and
   the callee, one call per call site of the callee in the caller, in the caller's block order. cubridge never
   imports numba: without one of those modules imported there are no such objects, and a call of the function
   is refused by name (use ``inline='always'`` or ``'never'``).
2. The caller's IR is the front end's (numba asks after a few rewrites of its own, e.g. closure inlining):
   the statements a model reads (the calls, their arguments, globals, constants) are the same.
3. A call site is an ``ir.Expr`` call whose callee is a global or closure variable holding the function, or
   an attribute of one (``mod.f``), as numba finds them; a call through anything else (a tuple's item, an
   argument) is not asked and not inlined, as in numba.
4. cubridge compiles a function once per kernel with one policy: answers that differ between the call sites
   (or, through ``_environment``, between callers) are refused naming the function, never one of them kept.
5. The model is asked once per call site of a caller: the answer is kept with the caller (weakly), so the
   caller compiled again (its IR and its PTX, another signature) is not asked again; numba asks again per
   signature it compiles, with the same IR, so a model reading the IR answers the same.
"""
from __future__ import annotations

import sys
import weakref

from ._core import CompileError

# numba-cuda's front end first (its IR is what a numba-cuda user's model reads), then numba's.
_FRONTEND_MODULES = ("numba.cuda.compiler", "numba.core.compiler")


def _run_frontend():
    for name in _FRONTEND_MODULES:
        run = getattr(sys.modules.get(name), "run_frontend", None)
        if callable(run):
            return run
    return None


_NOTHING = object()


def _definition_value(func_ir, var, depth: int = 0):
    """The object a call's callee variable holds where it is a global or closure variable, or an attribute of
    one (``mod.f``, ``pkg.mod.f``: numba resolves those through the module); else _NOTHING."""
    try:
        definition = func_ir.get_definition(var)
    except Exception:  # numba's own answer where it cannot find one: not a candidate
        return _NOTHING
    if type(definition).__name__ in ("Global", "FreeVar"):
        return definition.value
    if getattr(definition, "op", None) == "getattr" and depth < 8:
        owner = _definition_value(func_ir, definition.value, depth + 1)
        return _NOTHING if owner is _NOTHING else getattr(owner, definition.attr, _NOTHING)
    return _NOTHING


def _call_sites(func_ir, callee):
    """numba's call expressions in func_ir that call `callee` (rule 3), in block order."""
    sites = []
    for label in sorted(func_ir.blocks):
        for stmt in func_ir.blocks[label].body:
            expr = getattr(stmt, "value", None)
            if getattr(expr, "op", None) == "call" and _definition_value(func_ir, expr.func) is callee:
                sites.append(expr)
    return sites


# caller function -> [(model, callee, policy)]: rule 5 (identity compared: dispatchers need not be hashable)
_answered: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def policy(model, caller, callee) -> str:
    """policy_of, asked once per caller (rule 5)."""
    kept = _answered.setdefault(caller, [])
    for m, c, answer in kept:
        if m is model and c is callee:
            return answer
    answer = _policy_of(model, caller, callee)
    kept.append((model, callee, answer))
    return answer


def _policy_of(model, caller, callee) -> str:
    """'ir' (inline) or 'never' for the calls of `callee` (the object the caller's name holds: a dispatcher or
    device function, with ``py_func``) in the Python function `caller`, as `model` answers (rules 1-4)."""
    name = getattr(callee, "__qualname__", None) or getattr(callee, "__name__", repr(callee))
    run_frontend = _run_frontend()
    if run_frontend is None:
        raise CompileError(
            f"{name!r} has inline={model!r}, a cost model: numba calls it with numba's IR of the call, the caller and "
            f"the callee, and numba is not imported in this process (cubridge never imports it), so there is no IR "
            f"to ask it with; import numba.cuda (or numba) first, or use inline='always' or 'never'")
    caller_ir = run_frontend(caller)
    sites = _call_sites(caller_ir, callee)
    if not sites:
        return "never"  # numba's rule 3: not a call it inlines
    callee_ir = run_frontend(getattr(callee, "py_func", callee))
    answers = {bool(model(expr, caller_ir, callee_ir)) for expr in sites}
    if len(answers) > 1:
        raise CompileError(
            f"{caller.__code__.co_filename}:{caller.__code__.co_firstlineno}: the inline cost model of {name!r} "
            f"({model!r}) answers True at some of its calls in {caller.__qualname__!r} and False at others; "
            f"cubridge compiles a function once per kernel, inlined at every call or at none")
    return "ir" if answers.pop() else "never"
