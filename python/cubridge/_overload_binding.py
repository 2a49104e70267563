"""Calls of functions numba implements through ``@overload`` (numba's high-level extension API, numba-cuda's
``numba.cuda.extending.overload``): numba types such a call by calling the overload function with the
Numba types of the arguments and compiles the Python implementation it returns. The front end stops at a
call whose argument types have no implementation yet (``_core.OverloadNeeded``); ``resolve`` calls the
overload function as numba does, and the compilation starts again with the implementation added as a
device function (renamed, so that implementations of different overloads, all often called ``impl``,
stay apart). Integer literal arguments are passed as numba's IntegerLiteral types in numba's order (first for
prefer_literal=True overloads, after the plain types otherwise), and an implementation chosen for literal
values is used only for calls with those values. What cannot be compiled faithfully is refused by name: an
overload only for other targets, one returning a (signature, implementation) pair, an implementation that
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
    #: () when the implementation holds for any values of these types; else the call's literal values (an int
    #: or None per argument), the only calls it holds for (numba tried IntegerLiteral types for them).
    literals: tuple = ()
    #: per argument, the unit name of the function passed there ("" for a value): resolved for those functions
    functions: tuple = ()
    #: the dispatchers numba's Dispatcher types of the passed functions hold weakly (_passed_functions)
    keep: tuple = ()


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
    if kind == "pointer":  # numba-cuda's CPointer(T), and voidptr for void*
        return types.voidptr if t.dtype is None or t.dtype.kind == "none" else types.CPointer(to_numba(t.dtype, where))
    if kind == "foreign":  # a value of a numba extension type (_numba_struct_models.py): numba's type object
        from ._numba_struct_models import numba_type_of
        return numba_type_of(t)
    raise CompileError(f"{where}: an argument of type {t} cannot be given to a numba @overload function "
                       f"(cubridge passes numbers, arrays, tuples, C pointers and None to it)")


def _literal_args(nb_args: list, literals) -> list | None:
    """The arguments with numba's IntegerLiteral type where the call passes an integer literal; None when
    it passes none."""
    if not any(v is not None for v in literals):
        return None
    types = _numba_types()
    return [a if v is None else types.literal(v) for a, v in zip(nb_args, literals)]


def _attempts(template, nb_args: list, literal_args: list | None):
    """(argument types, whether literal) in numba's order for one template: literal types first when it
    prefers them (prefer_literal=True), else the plain types first and literal ones if those fail."""
    if literal_args is None:
        return [(nb_args, False)]
    if getattr(template, "prefer_literal", False):
        return [(literal_args, True), (nb_args, False)]
    return [(nb_args, False), (literal_args, True)]


def resolve(function, name: str, arg_types, keywords, index: int, literals=(), unknown_literals=(),
            functions=(), units=None) -> Resolution:
    """Calls f's overload functions with the Numba types of the arguments, as numba-cuda does (the CUDA
    ones first, then the generic ones; the first that returns an implementation wins). `literals` holds the
    value of each argument written as an integer literal (None for the others): numba types those as
    IntegerLiteral, first or after the plain types (prefer_literal). `unknown_literals` lists the arguments
    numba may type as literals whose values the compiler does not give (a bool constant, a local variable
    holding a constant): a prefer_literal overload could then be given other types than numba gives it, so
    the call is refused. `functions` names, per argument, the function (unit) passed there ("" for a value):
    numba types it as a Dispatcher (_passed_functions; `units` maps unit names to the collected functions)."""
    arg_types, keywords = tuple(arg_types), tuple(keywords)
    literals = tuple(literals) or (None,) * len(arg_types)
    functions = tuple(functions) or ("",) * len(arg_types)
    npositional = len(arg_types) - len(keywords)
    named = [f"function {f}" if f else str(t) for t, f in zip(arg_types, functions)]
    shown = ", ".join(named[:npositional] + [f"{k}={t}" for k, t in zip(keywords, named[npositional:])])
    where = f"'{name}({shown})'"
    keep = []

    def numba_arg(t, f):
        if not f:
            return to_numba(t, where)
        from ._passed_functions import numba_type
        nb, dispatcher = numba_type(f, units or {}, _numba_types())
        keep.append(dispatcher)
        return nb
    nb_args = [numba_arg(t, f) for t, f in zip(arg_types, functions)]
    literal_args = _literal_args(nb_args, literals)
    failed = None  # the first exception an overload function raised: numba tries the next, then reports it
    for template in cuda_templates(function):
        if getattr(template, "prefer_literal", False) and unknown_literals:
            shown_args = ", ".join(str(i + 1) for i in unknown_literals)
            raise CompileError(f"{where}: the numba @overload {template._overload_func.__qualname__} asks for literal "
                               f"argument types (prefer_literal=True), and numba may type argument(s) {shown_args} "
                               f"as literals (a bool constant, or a variable holding a constant) whose values "
                               f"cubridge does not pass; pass an integer written as such, or a parameter")
        result = None
        for args, literal in _attempts(template, nb_args, literal_args):
            try:
                result = template._overload_func(*args[:npositional], **dict(zip(keywords, args[npositional:])))
            except Exception as e:  # numba's typing errors (NumbaTypeError, ...) among them
                failed = failed or e
                continue
            if result is not None:
                break
        if result is None:
            continue
        # The implementation holds for any values only when the plain types were tried first and chosen; a
        # prefer_literal overload's choice is kept for these literal values (or for calls without any) only.
        depends = literal or getattr(template, "prefer_literal", False)
        kept = literals if depends else ()
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
        unit = f"{base}__overload_{name.replace('.', '_')}_{index}"  # Array.foo: a method
        return Resolution(function, arg_types, keywords, impl, unit, tuple(kept), functions, tuple(keep))
    if failed is not None:
        raise failed  # the overload function's own error (numba's TypingError subclasses reach the caller as such)
    raise CompileError(f"{where}: no implementation of the numba @overload'ed function "
                       f"{function.__module__}.{function.__qualname__} for these argument types (each overload "
                       f"function numba-cuda would use returned None)")


def _check_strict(template, impl, where: str) -> None:
    """numba's strict overloads (the default), by its documented rules: the parameters without a default
    (positional ones and *args) match exactly, in name, kind and order; those with a default match in name
    and default value; *args in the overload function must be in the implementation too, while *args in
    the implementation may take the place of the overload function's trailing positional parameters;
    **kwargs is used by neither."""
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
    _check_same_parameters(ol, im, impl, where)


def _split_parameters(sig):
    """(parameters without a default, those with one, the *args parameter or None): numba's grouping."""
    plain = [p for p in sig.parameters.values() if p.default is p.empty]
    defaulted = [p for p in sig.parameters.values() if p.default is not p.empty]
    star = next((p for p in plain if p.kind is p.VAR_POSITIONAL), None)
    return plain, defaulted, star


def _check_same_parameters(ol, im, impl, where: str) -> None:
    ty_plain, ty_kws, ty_star = _split_parameters(ol)
    im_plain, im_kws, im_star = _split_parameters(im)
    both = f"the overload function's signature is {ol}, its implementation {impl.__qualname__}'s is {im}"

    def refuse(differs: str, detail: str):
        raise CompileError(f"{where}: Typing and implementation arguments differ in {differs}: {both}; "
                           f"{detail}; numba's strict overloads require the same parameters")

    def difference(typing, implementing) -> str:
        only = [p for p in typing if p not in implementing] + [p for p in implementing if p not in typing]
        return "difference: " + ", ".join(f'<Parameter "{p}">' for p in only)

    a, b = ty_plain, im_plain
    if ty_star is not None and im_star is None:
        raise CompileError(f"{where}: VAR_POSITIONAL (e.g. *args) argument kind (offending argument name is "
                           f"'{ty_star}') found in the typing function signature, but is not in the implementing "
                           f"function signature: {both}")
    if ty_star is None and im_star is not None:
        b = im_plain[:im_plain.index(im_star)]  # the implementation's *args takes what the typing has after b
        if b:
            if b[-1] not in ty_plain:
                refuse("argument names", f"First difference: '{b[-1]}'")
            a = ty_plain[:ty_plain.index(b[-1]) + 1]
        else:
            a = []
    if a != b:
        refuse("argument names", difference(a, b))
    if [p.name for p in ty_kws] != [p.name for p in im_kws]:
        refuse("keyword argument names", difference(ty_kws, im_kws))
    if [p.default for p in ty_kws] != [p.default for p in im_kws]:
        refuse("keyword argument default values", difference(ty_kws, im_kws))


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
    stripped = source.strip()
    # the lines alone, or (a lambda among a call's arguments over several lines: `f(\n lambda: None, x=1\n)`)
    # as the arguments of a call
    for text in (source, stripped, f"_({stripped})", f"_({stripped.rstrip(',')})"):
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


#: The prefix of the name a method numba implements through overload_method(types.Array, attr) has in the
#: compiler: "Array.foo" (no Python name has a dot, so it meets no function of the code).
ARRAY_METHOD_PREFIX = "Array."


def array_methods() -> dict:
    """{attr: overload function} for the methods a user gave numba's Array type with
    ``overload_method(types.Array, attr)`` (numba-cuda's registry and numba's; numba's own methods stay numba's
    business: the compiler implements or refuses those by name). numba types ``a.attr(x)`` by calling the
    overload function with (type of a, type of x), through the @overload it registers for that function, so
    the call is resolved as that function's call with the array first."""
    if "numba" not in sys.modules:
        return {}
    arrays = [getattr(sys.modules.get(m), "Array", None) for m in ("numba.cuda.types", "numba.core.types")]
    arrays = [a for a in arrays if isinstance(a, type)]
    registries = [getattr(getattr(sys.modules.get(m), "builtin_registry", None), "attributes", ())
                  for m in ("numba.cuda.typing.templates", "numba.core.typing.templates")]  # numba-cuda's, numba's
    key = tuple((id(r), len(r)) for r in registries)  # registries only grow: a key per compilation's state
    if _ARRAY_METHODS[0] == key:
        return _ARRAY_METHODS[1]
    templates = [t for r in registries for t in list(r)]
    found: dict = {}
    for template in templates:
        ol = getattr(template, "_overload_func", None)
        key = getattr(template, "key", None)
        if not getattr(template, "is_method", False) or not isinstance(ol, _pytypes.FunctionType):
            continue
        if not (isinstance(key, type) and any(issubclass(a, key) for a in arrays)):
            continue
        module_parts = (ol.__module__ or "").split(".")
        if module_parts[0] == "numba" and "tests" not in module_parts:
            continue
        attr = template._attr
        if _target(template) in _CUDA_TARGETS and (attr not in found or _target(template) == "cuda"):
            found[attr] = ol
    _ARRAY_METHODS[:] = [key, found]
    return found


_ARRAY_METHODS: list = [None, {}]  # [registries' key, array_methods()'s answer for it]


def overloaded(v) -> bool:
    """Whether calls of v are numba @overload calls that cubridge resolves (resolve)."""
    f = getattr(v, "py_func", v)
    return "numba" in sys.modules and isinstance(f, _pytypes.FunctionType) and bool(cuda_templates(f))


class Overloads:
    """The @overload calls of one compilation: the functions bound to overloaded names (filled while the
    environment is collected) and the resolutions found so far (kept across its attempts)."""

    MAX_RESOLUTIONS = 256

    def __init__(self, lowering_options: dict | None = None):
        self.functions: dict = {}
        self.resolutions: list[Resolution] = []
        self.units: dict = {}  # unit name -> Python function, of the last collection (functions passed by name)
        #: the compilation's debug / lineinfo / fastmath, for numba's lowering of low-level extension calls
        self.lowering_options = dict(lowering_options or {})

    def add(self, needed) -> None:
        """Resolves what the front end reported (_core.OverloadNeeded)."""
        from . import _numba_lowering  # imported here: it imports this module
        f = self.functions.get(needed.function)
        if f is None and needed.function.startswith(_numba_lowering.ATTRIBUTE_PREFIX):  # numba's attribute code
            f = self.functions[needed.function] = _numba_lowering.attribute_getter(needed.function)
        if f is None:
            raise CompileError(str(needed))
        if len(self.resolutions) >= self.MAX_RESOLUTIONS:
            raise CompileError(f"{needed}: more than {self.MAX_RESOLUTIONS} @overload resolutions in one compilation")
        args = (f, needed.function, needed.arg_types, needed.keywords, len(self.resolutions),
                getattr(needed, "literals", ()), getattr(needed, "unknown_literals", ()))
        if isinstance(f, _numba_lowering.AttributeGetter):
            self.resolutions.append(_numba_lowering.resolve_attribute(*args, **self.lowering_options))
        elif _numba_lowering.bridged(f):
            self.resolutions.append(_numba_lowering.resolve(*args, **self.lowering_options))
        else:
            self.resolutions.append(resolve(*args, getattr(needed, "functions", ()), self.units))
