"""Pickling kernels and device functions as numba-cuda does: by reference where the object is what its module
holds under its qualified name (the unpickling process imports the module), else by value: the Python function's
code, the globals it names, its closure's values, defaults and options, rebuilt into a new dispatcher that
compiles anew where it is loaded (numba-cuda's serialize module does the same with cloudpickle).

Rules:
- a kernel or device function found by ``getattr(module, qualname)`` pickles as that reference;
- any other (made inside a function, renamed, wrapped) pickles by value; modules among its globals go by name;
- the code object travels as ``marshal`` data, which one Python version reads: unpickling with another version
  is refused by CPython ("bad marshal data"), as pickles of functions by value always are;
- GPU arrays among its globals or closure values are refused (pickle.PicklingError, numba-cuda's words): a
  device pointer means nothing in another process.
"""
from __future__ import annotations

import builtins
import importlib
import inspect
import marshal
import sys
import types

__all__ = ["reduce_function_object", "function_state", "rebuild_function"]


class _ModuleByName:
    """A module among a function's globals: unpickled by importing it."""

    def __init__(self, name: str):
        self.name = name

    def __reduce__(self):
        return importlib.import_module, (self.name,)


def _names(code: types.CodeType, out: set) -> set:
    """Every global name the code (and the code of functions nested in it) may read."""
    out.update(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _names(const, out)
    return out


def _picklable(value, what: str):
    if getattr(value, "__cuda_array_interface__", None) is not None:
        from ._file_cache import DEVICE_ARRAY_MESSAGE
        import pickle  # ~1-2 ms at start-up, for an error only
        raise pickle.PicklingError(f"{DEVICE_ARRAY_MESSAGE} ({what} is a GPU array)")
    return _ModuleByName(value.__name__) if inspect.ismodule(value) else value


def function_state(func: types.FunctionType) -> tuple:
    """What rebuild_function needs to make `func` again in another process."""
    g = func.__globals__
    names = sorted(n for n in _names(func.__code__, set()) if n in g)
    used = {n: _picklable(g[n], f"global {n!r}") for n in names}
    closure = tuple(_picklable(c.cell_contents, f"closure variable {v!r}")
                    for v, c in zip(func.__code__.co_freevars, func.__closure__ or ()))
    return (marshal.dumps(func.__code__), func.__module__, used, func.__name__, func.__qualname__,
            func.__defaults__, func.__kwdefaults__, closure if func.__closure__ is not None else None)


def rebuild_function(code: bytes, module: str, used: dict, name: str, qualname: str, defaults, kwdefaults,
                     closure) -> types.FunctionType:
    """The function function_state described (its globals: the names it reads, in a dict of their own)."""
    g = dict(used)
    g.setdefault("__builtins__", builtins)
    g["__name__"] = module
    cells = None if closure is None else tuple(types.CellType(v) for v in closure)
    func = types.FunctionType(marshal.loads(code), g, name, defaults, cells)
    func.__qualname__ = qualname
    func.__kwdefaults__ = kwdefaults
    func.__module__ = module
    return func


def _by_reference(obj) -> bool:
    """Whether `obj` is what its module holds under its qualified name (pickle can then name it)."""
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    found = module
    for part in (getattr(obj, "__qualname__", "") or "").split("."):
        found = getattr(found, part, None)
        if found is None:
            return False
    return found is obj


def reduce_function_object(obj, rebuild, *state):
    """The __reduce__ value of a kernel or device function `obj` (whose Python function is obj.py_func):
    its qualified name when pickle can find it there, else rebuild(function_state, *state)."""
    if _by_reference(obj):
        return obj.__qualname__
    return rebuild, (function_state(obj.py_func), *state)
