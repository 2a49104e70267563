"""The decompiler's proof: the rebuilt text, compiled by this CPython, must give the function's own code
object back (instructions, constants, names, variables); anything else is refused, never compiled."""
from __future__ import annotations

import dis
import types


def _code_of(text: str, name: str, freevars: tuple, imported: tuple = ()) -> types.CodeType | None:
    if freevars:  # a closure's variables are free only inside a function that binds them
        inner = "".join("    " + line + "\n" if line else "\n" for line in text.splitlines())
        text = "def __cubridge_outer__():\n    " + " = ".join(freevars) + " = None\n" + inner
    # CPython 3.11+ calls a method of an imported name through LOAD_ATTR, not LOAD_METHOD: the check text
    # imports the module names the function reads as its module did (compiled only, never run)
    text = "".join(f"import _ as {n}\n" for n in imported) + text
    module = compile(text, "<cubridge bytecode check>", "exec", dont_inherit=True)
    for c in module.co_consts:
        if isinstance(c, types.CodeType) and freevars and c.co_name == "__cubridge_outer__":
            c = next((d for d in c.co_consts if isinstance(d, types.CodeType) and d.co_name == name), None)
        if isinstance(c, types.CodeType) and c.co_name == name:
            return c
    return None


_FIELDS = ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_argcount",
           "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals", "co_flags")


def _same(a: types.CodeType, b: types.CodeType) -> bool:
    if any(getattr(a, f) != getattr(b, f) for f in _FIELDS):
        return False
    if len(a.co_consts) != len(b.co_consts):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if isinstance(x, types.CodeType) and isinstance(y, types.CodeType):
            if not _same(x, y):
                return False
        elif type(x) is not type(y) or repr(x) != repr(y):  # 0.0 vs -0.0, 1 vs True
            return False
    return True


def first_difference(fn, text: str) -> int | None:
    """None when text compiles to fn's code; else the source line of the first instruction that differs (or
    the function's first line)."""
    code = fn.__code__
    # Which globals the module imported is not in the code object: try every global name, then the ones
    # that hold modules now, then none.
    names = tuple(n for n in code.co_names if n in fn.__globals__)
    modules = tuple(n for n in names if isinstance(fn.__globals__[n], types.ModuleType))
    rebuilt = None
    for imported in dict.fromkeys((names, modules, ())):
        try:
            rebuilt = _code_of(text, code.co_name, code.co_freevars, imported)
        except SyntaxError:
            return code.co_firstlineno
        if rebuilt is not None and _same(code, rebuilt):
            return None
    if rebuilt is None:
        return code.co_firstlineno
    line = code.co_firstlineno
    for a, b in zip(dis.get_instructions(code), dis.get_instructions(rebuilt)):
        pos = getattr(a, "positions", None)
        if pos is not None and pos.lineno:
            line = pos.lineno
        if (a.opname, a.argrepr) != (b.opname, b.argrepr):
            return line
    return line
