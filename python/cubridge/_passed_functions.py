"""A function passed to a numba @overload'ed function (``apply(x, mul10)``): the numba type numba gives it.

numba types a function passed as a value as a ``Dispatcher`` of a jitted function: a nested ``def`` is turned
into one by its ``MakeFunctionToJitFunction`` pass (the nested code made a Python function, then
``cuda.jit()`` of it), a global or closure device function is one already. The overload function is called
with that type, so ``isinstance(func, types.Dispatcher)`` and ``func.dispatcher.py_func`` read what they read
under numba. The rules:

1. The front end reports the function by its unit name: a module function's own name, or, for a nested
   ``def`` the compiler lifted, ``"<encloser>$<name>$<line>"`` (``nested_functions.cpp``; encloser itself
   possibly lifted). The unit's Python function is the one the compilation collected under that name; a
   lifted one is made from its code object, found among its encloser's constants by name and first line.
2. The type is numba's ``types.Dispatcher`` (numba-cuda's types module where it has one, else numba's) of a
   ``cubridge.jit`` dispatcher of that function, as numba wraps it in ``cuda.jit()``. A nested function's
   free variables are folded as constants by the compiler (numba's rule too), so the function made here has
   empty closure cells: calling it from Python (which no overload function does to type) raises NameError.
3. numba's Dispatcher type holds its dispatcher weakly: each function's dispatcher is kept as long as the
   function it comes from (the module function, or the encloser of a nested def) lives, one per function or
   nested code object, so the type an overload function was given stays usable after the compilation, and
   passing the same function again gives the same type (numba keeps its jitted closure with the code too).
   A module function's dispatcher refers to the function itself, so it lives as long as the process, as
   numba's dispatchers do in its typing caches.
"""
from __future__ import annotations

import types as _pytypes
import weakref

from ._core import CompileError

# the function a dispatcher comes from (module function, or a nested def's encloser) ->
# {code object: (the function made, its dispatcher)} (rule 3)
_made: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _nested_code(code: _pytypes.CodeType, name: str, line: int) -> _pytypes.CodeType | None:
    for c in code.co_consts:
        if isinstance(c, _pytypes.CodeType) and c.co_name == name and c.co_firstlineno == line:
            return c
    return None


def _owner_and_function(unit: str, units: dict):
    """(the long-lived function it comes from, the Python function) of the unit named `unit` (rules 1, 3)."""
    fn = units.get(unit)
    if fn is not None:
        return fn, fn
    encloser, sep, rest = unit.rpartition("$")
    encloser, sep2, name = encloser.rpartition("$")
    if not (sep and sep2 and rest.isdigit()):
        raise CompileError(f"the function {unit!r} passed to a numba @overload'ed function is not among the "
                           f"functions this compilation collected")
    owner, outer = _owner_and_function(encloser, units)
    code = _nested_code(outer.__code__, name, int(rest))
    if code is None:
        raise CompileError(f"the nested function {name!r} (line {rest}) passed to a numba @overload'ed function "
                           f"is not defined in {outer.__qualname__!r}")
    kept = _made.setdefault(owner, {}).get(code)
    if kept is not None:
        return owner, kept[0]
    cells = tuple(_pytypes.CellType() for _ in code.co_freevars)
    made = _pytypes.FunctionType(code, outer.__globals__, name, None, cells or None)
    made.__qualname__ = f"{outer.__qualname__}.<locals>.{name}"
    made.__module__ = outer.__module__
    _made[owner][code] = (made, None)
    return owner, made


def numba_type(unit: str, units: dict, types_module):
    """(numba's Dispatcher type of the unit's function jitted, the dispatcher) (rules 1-3)."""
    from ._kernels import jit
    owner, fn = _owner_and_function(unit, units)
    kept = _made.setdefault(owner, {})
    _, dispatcher = kept.get(fn.__code__, (fn, None))
    if dispatcher is None:
        dispatcher = jit()(fn)
        kept[fn.__code__] = (fn, dispatcher)
    return types_module.Dispatcher(dispatcher), dispatcher
