"""Calls of functions numba implements through ``@overload`` (numba's high-level extension API, numba-cuda's
``numba.cuda.extending.overload``): numba types such a call by calling the overload function with the
Numba types of the arguments and compiles the Python implementation it returns. The front end stops at a
call whose argument types have no implementation yet (``_core.OverloadNeeded``); ``resolve`` calls the
overload function as numba does, and the compilation starts again with the implementation added as a
device function (renamed, so that implementations of different overloads, all often called ``impl``,
stay apart). What cannot be compiled faithfully is refused by name: an overload only for other targets,
one that asks for literal types, one returning a (signature, implementation) pair, an implementation that
is not a plain Python function.
"""
from __future__ import annotations

import re
import sys
import types as _pytypes
from dataclasses import dataclass

from ._core import CompileError

# Targets whose overloads numba-cuda uses for CUDA code, most specific first: a 'cuda' overload wins over
# a 'generic' one of the same function.
_CUDA_TARGETS = ("cuda", "generic")


@dataclass(frozen=True)
class Resolution:
    """One call's resolution: `function` (the overloaded Python function), the argument types and keyword
    names the front end reported, and the implementation compiled for them, under `unit_name`."""
    function: object
    arg_types: tuple
    keywords: tuple
    implementation: _pytypes.FunctionType
    unit_name: str


def templates(f) -> list:
    """The @overload templates registered for f (numba's typing registries), each once."""
    from ._numba_extensions import _registered
    seen, out = set(), []
    for typ in _registered(f):
        for t in getattr(typ, "templates", None) or (getattr(typ, "template", None),):
            ol = getattr(t, "_overload_func", None)
            if ol is None or ol in seen or "register_jitable" in getattr(ol, "__qualname__", ""):
                continue
            seen.add(ol)
            out.append(t)
    return out


def _target(template) -> str:
    return (getattr(template, "metadata", None) or {}).get("target", "generic")


def cuda_templates(f) -> list:
    """f's overload templates numba-cuda uses for CUDA code, in the order it tries them."""
    ts = templates(f)
    return [t for target in _CUDA_TARGETS for t in ts if _target(t) == target]


def refusal(name: str, f) -> str | None:
    """Why calls of the @overload'ed f cannot be compiled at all, or None."""
    ts = templates(f)
    if ts and not cuda_templates(f):
        targets = ", ".join(sorted({repr(_target(t)) for t in ts}))
        return (f"'{name}' ({f.__module__}.{f.__qualname__}) has numba @overload implementations only for "
                f"target(s) {targets}, none for CUDA ('cuda' or 'generic'), as numba-cuda would find none")
    return None


def _numba_types():
    """numba-cuda's own types module where it has one (0.30+: the types its overloads test against), else
    numba's."""
    try:
        from numba.cuda import types
        if hasattr(types, "Array"):
            return types
    except ImportError:
        pass
    from numba.core import types
    return types


def to_numba(t, where: str):
    """The Numba type object of cubridge Type `t`, as numba-cuda types the same value."""
    types = _numba_types()
    kind = t.kind
    if t.is_scalar:
        return types.boolean if t.name == "bool" else getattr(types, t.name)
    if kind == "array":
        return types.Array(to_numba(t.dtype, where), t.ndim, t.layout, readonly=t.readonly)
    if kind == "tuple":
        elements = [to_numba(e, where) for e in t.elements]
        if elements and all(e == elements[0] for e in elements):
            return types.UniTuple(elements[0], len(elements))
        return types.Tuple(elements)
    if kind == "none":
        return types.none
    raise CompileError(f"{where}: an argument of type {t} cannot be given to a numba @overload function "
                       f"(cubridge passes numbers, arrays, tuples and None to it)")


def resolve(function, name: str, arg_types, keywords, index: int) -> Resolution:
    """Calls f's overload functions with the Numba types of the arguments, as numba-cuda does (the CUDA
    ones first, then the generic ones; the first that returns an implementation wins)."""
    arg_types, keywords = tuple(arg_types), tuple(keywords)
    npositional = len(arg_types) - len(keywords)
    shown = ", ".join([str(t) for t in arg_types[:npositional]] +
                      [f"{k}={t}" for k, t in zip(keywords, arg_types[npositional:])])
    where = f"'{name}({shown})'"
    nb_args = [to_numba(t, where) for t in arg_types]
    failed = None  # the first exception an overload function raised: numba tries the next, then reports it
    for template in cuda_templates(function):
        if getattr(template, "prefer_literal", False):
            raise CompileError(f"{where}: the numba @overload {template._overload_func.__qualname__} asks for literal "
                               f"argument types (prefer_literal=True), which cubridge does not give it; its "
                               f"implementation could depend on the literal values, so the call is refused")
        try:
            result = template._overload_func(*nb_args[:npositional], **dict(zip(keywords, nb_args[npositional:])))
        except Exception as e:  # numba's typing errors (NumbaTypeError, ...) among them
            failed = failed or e
            continue
        if result is None:
            continue
        if isinstance(result, tuple):
            raise CompileError(f"{where}: the numba @overload {template._overload_func.__qualname__} returned a "
                               f"(signature, implementation) pair, which cubridge does not compile; return the "
                               f"implementation alone")
        impl = getattr(result, "py_func", result)
        if not isinstance(impl, _pytypes.FunctionType):
            raise CompileError(f"{where}: the numba @overload {template._overload_func.__qualname__} returned "
                               f"{result!r}, not a Python function cubridge can compile")
        _check_strict(template, impl, where)
        base = "lambda" if impl.__name__ == "<lambda>" else impl.__code__.co_name
        return Resolution(function, arg_types, keywords, impl, f"{base}__overload_{name}_{index}")
    if failed is not None:
        raise failed  # the overload function's own error (numba's TypingError subclasses reach the caller as such)
    raise CompileError(f"{where}: no implementation of the numba @overload'ed function "
                       f"{function.__module__}.{function.__qualname__} for these argument types (each overload "
                       f"function numba-cuda would use returned None)")


def _check_strict(template, impl, where: str) -> None:
    """numba's strict overloads (the default): the implementation takes the overload function's parameters,
    of the same kinds, with the same default values, and neither uses **kwargs."""
    import inspect
    ol = inspect.signature(template._overload_func)
    im = inspect.signature(impl)
    for what, sig in (("typing", ol), ("implementation", im)):
        for p in sig.parameters.values():
            if p.kind is p.VAR_KEYWORD and (getattr(template, "_strict", True) or what == "implementation"):
                raise CompileError(f"{where}: use of VAR_KEYWORD (e.g. **kwargs) is unsupported in the {what} "
                                   f"function of a numba @overload; offending argument name is '**{p.name}'")
    if not getattr(template, "_strict", True):
        return
    ops, ips = list(ol.parameters.values()), list(im.parameters.values())
    differs = None
    if [p.name for p in ops] != [p.name for p in ips]:
        differs = "argument names"
    elif [p.kind for p in ops] != [p.kind for p in ips]:
        differs = "argument kinds"
    elif [p.default for p in ops] != [p.default for p in ips]:
        differs = "keyword argument default values"
    if differs:
        shown = lambda ps: ", ".join(f'<Parameter "{p}">' for p in ps)  # noqa: E731  (numba's spelling)
        raise CompileError(f"{where}: Typing and implementation arguments differ in {differs}: the overload "
                           f"function takes {shown(ops)}, its implementation {impl.__qualname__} takes "
                           f"{shown(ips)}; numba's strict overloads require the same parameters")


_DEF = re.compile(r"^(\s*)def\s+([A-Za-z_]\w*)\s*\(", re.MULTILINE)


def renamed_unit(impl, unit_name: str, source: str) -> tuple[_pytypes.FunctionType, str]:
    """The implementation as a function named `unit_name` and its source with the def renamed to it (a
    lambda, as numba's tests often return, becomes `def unit_name(params): return body`)."""
    if impl.__name__ == "<lambda>":
        text = _lambda_as_def(impl, unit_name, source)
    else:
        m = _DEF.search(source)
        if m is None or m.group(2) != impl.__code__.co_name:
            raise CompileError(f"cannot find 'def {impl.__code__.co_name}' in the source of the @overload "
                               f"implementation {impl.__qualname__}")
        text = source[:m.start(2)] + unit_name + source[m.end(2):]
    fn = _pytypes.FunctionType(impl.__code__.replace(co_name=unit_name), impl.__globals__, unit_name,
                               impl.__defaults__, impl.__closure__)
    fn.__kwdefaults__ = impl.__kwdefaults__
    fn.__module__ = impl.__module__
    return fn, text


def _lambda_as_def(impl, unit_name: str, source: str) -> str:
    """`lambda a, b=1: body` found in `source` (the lines the lambda is on) as a def named unit_name; the one
    lambda there whose parameters are the implementation's (two alike on one line are refused: which one
    Python made cannot be told from the text)."""
    import ast
    tree = None
    for text in (source, source.strip()):
        try:
            tree = ast.parse(text)
            source = text
            break
        except SyntaxError:
            continue
    code = impl.__code__
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    found = [] if tree is None else [
        n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and
        [a.arg for a in (*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs)] == params]
    if len(found) != 1:
        raise CompileError(f"{code.co_filename}:{code.co_firstlineno}: {impl.__qualname__} is a lambda that cannot "
                           f"be told apart in its source line ({len(found)} lambdas there take the parameters "
                           f"{tuple(params)}); define it with def")
    node = found[0]
    return f"def {unit_name}({ast.unparse(node.args)}):\n    return {ast.get_source_segment(source, node.body)}\n"


def overloaded(v) -> bool:
    """Whether calls of v are numba @overload calls that cubridge resolves (resolve)."""
    f = getattr(v, "py_func", v)
    return "numba" in sys.modules and isinstance(f, _pytypes.FunctionType) and bool(cuda_templates(f))


class Overloads:
    """The @overload calls of one compilation: the functions bound to overloaded names (filled while the
    environment is collected) and the resolutions found so far (kept across its attempts)."""

    MAX_RESOLUTIONS = 256

    def __init__(self):
        self.functions: dict = {}
        self.resolutions: list[Resolution] = []

    def add(self, needed) -> None:
        """Resolves what the front end reported (_core.OverloadNeeded)."""
        f = self.functions.get(needed.function)
        if f is None:
            raise CompileError(str(needed))
        if len(self.resolutions) >= self.MAX_RESOLUTIONS:
            raise CompileError(f"{needed}: more than {self.MAX_RESOLUTIONS} @overload resolutions in one compilation")
        self.resolutions.append(resolve(f, needed.function, needed.arg_types, needed.keywords, len(self.resolutions)))
