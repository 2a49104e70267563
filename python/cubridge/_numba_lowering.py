"""Calls of functions written with numba's low-level extension API, compiled by numba's own typing and
lowering: an ``@intrinsic`` (its typer returns a signature and a codegen function building LLVM IR), and a
function typed by a ``type_callable`` typer and implemented by ``lower_builtin`` (numba-cuda's
``numba.cuda.extending``). Their meaning is whatever numba's code does, so cubridge never guesses it: the call's
argument types go to numba-cuda's CUDA typing context, and numba-cuda's CUDA target context builds, with
llvmlite, one function per call signature whose body is numba's codegen for the call, in numba's own calling
convention (numbers and pointers in their in-memory form, the result through a pointer, a status returned).
Its NVVM IR modules (with any numba compiled for it, e.g. through ``context.compile_internal``) are compiled
in the same libNVVM program as the front end's code, which calls
the function by its symbol as an external device function; link files numba's code adds to its library are
linked with the kernel. The front end reaches a call of such a function as an overloaded call
(``_core.OverloadNeeded``, see ``_overload_binding``), resolved here by an implementation that is one call of
that external function. What numba's typing or lowering refuses, and what cubridge cannot pass across
(a type without a cubridge counterpart), is refused by name. numba is imported only by code that already uses
numba's extension API (the function objects are numba's).
"""
from __future__ import annotations

import contextlib
import linecache
import sys
import types as _pytypes
from dataclasses import dataclass

from ._core import CompileError
from ._external_functions import ExternalFunction

#: The symbol the wrapper is built under, then renamed to one naming its code (a hash of its IR), so that the
#: same call compiled twice (a cached compilation, two device functions linked together) has one definition.
_PENDING = "cubridge_numba_extension"


@dataclass(frozen=True, eq=False)
class LoweredFunction(ExternalFunction):
    """An external device function (Numba ABI) whose definition is NVVM IR numba's lowering built: the modules are
    compiled with the code that calls it."""
    nvvm_modules: tuple = ()


def _is_intrinsic(v) -> bool:
    return type(v).__name__ == "_Intrinsic" and type(v).__module__.startswith("numba")


def _low_level_template(typ) -> bool:
    """A typing registration of numba's low-level API: a template class that is not an @overload's."""
    templates = getattr(typ, "templates", None) or (getattr(typ, "template", None),)
    return any(t is not None and getattr(t, "_overload_func", None) is None for t in templates)


def bridged(v) -> bool:
    """Whether calls of v are compiled by numba's own typing and lowering (an @intrinsic, or a plain function or
    a user's class registered with a type_callable typer) and numba-cuda's CUDA target can be loaded to do it."""
    if "numba" not in sys.modules:
        return False
    if _is_intrinsic(v):
        return _cuda_target() is not None
    if not (isinstance(v, _pytypes.FunctionType) or _user_class(v)):
        return False
    from ._numba_extensions import _registered
    return any(_low_level_template(t) for t in _registered(v)) and _cuda_target() is not None


#: Modules whose classes numba types itself (numbers, NumPy's scalar types, builtins): never a user's extension.
_OWN_MODULES = ("builtins", "numba", "numba_cuda", "numpy", "math", "cmath", "operator", "llvmlite", "cuda")


def _user_class(v) -> bool:
    """A class of the user's that a type_callable typer may type as a constructor (numba's Interval(lo, hi));
    numba's test suites hold user code too."""
    if not isinstance(v, type):
        return False
    parts = (getattr(v, "__module__", None) or "builtins").split(".")
    return parts[0] not in _OWN_MODULES or "tests" in parts


def _cuda_target():
    """numba-cuda's CUDA target (its typing and target contexts), or None where it cannot be imported."""
    try:
        from numba.cuda.descriptor import cuda_target
    except Exception:  # noqa: BLE001 - numba without a usable CUDA target: the call stays refused by name
        return None
    return cuda_target


@contextlib.contextmanager
def _cuda_typing():
    """numba's current target set to CUDA, as numba-cuda's compiler sets it (its typing templates are chosen by
    the target)."""
    utils = sys.modules.get("numba.cuda.utils")
    override = getattr(utils, "numba_target_override", None)
    if override is not None:
        with override():
            yield
        return
    from numba.core.target_extension import target_override
    with target_override("cuda"):
        yield


def _what(function) -> str:
    if isinstance(function, AttributeGetter):
        return f"numba's attribute '{function.attribute}'"
    if _is_intrinsic(function):
        return f"the numba @intrinsic {getattr(function, '__name__', function)}"
    if isinstance(function, type):
        return f"the class {function.__module__}.{function.__qualname__} (numba's type_callable / lower_builtin)"
    return f"{function.__module__}.{function.__qualname__} (numba's type_callable / lower_builtin)"


def resolve(function, name: str, arg_types, keywords, index: int, literals=(), unknown_literals=(), *,
            debug=False, lineinfo=False, fastmath=False):
    """The resolution of a call of `function` (called `name`) with cubridge argument types `arg_types`: numba's
    signature for the numba types of the arguments, and an implementation calling the function numba's
    lowering builds for that signature. `debug`, `lineinfo` and `fastmath` are the calling compilation's:
    numba compiles what the lowering compiles (compile_internal) with its caller's flags."""
    from ._overload_binding import Resolution, _literal_args, _numba_types, to_numba
    arg_types, keywords = tuple(arg_types), tuple(keywords)
    where = f"'{name}({', '.join(str(t) for t in arg_types)})'"
    if keywords:
        raise CompileError(f"{where}: keyword arguments ({', '.join(keywords)}) to {_what(function)} are not "
                           f"supported by cubridge; pass the arguments by position")
    nb_args = tuple(to_numba(t, where) for t in arg_types)
    # An integer written as such is numba's IntegerLiteral: numba's typing tries the plain types and the literal
    # ones in the order the template asks for (prefer_literal), as it does here given the literal types.
    literal_args = _literal_args(list(nb_args), tuple(literals) or (None,) * len(nb_args))
    types = _numba_types()
    target = _cuda_target()
    with _cuda_typing():
        typing, context = target.typing_context, target.target_context
        typing.refresh()
        context.refresh()
        fnty = typing.resolve_value_type(function)
        if unknown_literals and _prefers_literals(fnty):
            raise CompileError(f"{where}: {_what(function)} asks for literal argument types (prefer_literal=True), "
                               f"and numba may type argument(s) {', '.join(str(i + 1) for i in unknown_literals)} as "
                               f"literals (a bool constant, or a variable holding a constant) whose values cubridge "
                               f"does not pass; pass an integer written as such, or a parameter")
        sig = typing.resolve_function_type(fnty, tuple(literal_args or nb_args), {})  # numba's errors reach the caller
        if sig is None:
            raise CompileError(f"{where}: numba's typing of {_what(function)} has no signature for argument types "
                               f"({', '.join(str(a) for a in literal_args or nb_args)})")
        if getattr(sig, "recvr", None) is not None or len(sig.args) != len(nb_args):
            raise CompileError(f"{where}: numba types {_what(function)} as {sig}, which does not take the call's "
                               f"{len(nb_args)} argument(s) one by one; cubridge compiles calls whose signature "
                               f"lists each argument")
        ours = _cubridge_signature(sig, where, function, types)
        with _caller_flags(debug, lineinfo, fastmath):
            symbol, modules, library = _lower(context, _call_lowering(fnty), sig, where, function)
    lowered = LoweredFunction(symbol, ours, tuple(sorted(library._linking_files, key=_link_key)), "numba",
                              bool(getattr(library, "use_cooperative", False)), modules)
    # typed (and lowered) for the literal values: the resolution holds for calls with those values only
    kept = tuple(literals) if any(isinstance(a, types.Literal) for a in sig.args) else ()
    unit = f"{_unit_base(function, name)}__numba_lowered_{index}"
    implementation = _calling_function(unit, lowered, len(nb_args))
    return Resolution(function, arg_types, keywords, implementation, unit, kept)


#: The name the front end calls an attribute of a numba extension type by when it is numba's code (not a
#: StructModel member): "getattr.width" (no Python name has a dot); see FunctionTyper::foreign_attribute.
ATTRIBUTE_PREFIX = "getattr."


@dataclass(frozen=True, eq=False)
class AttributeGetter:
    """What an attribute name of numba extension types stands for among a compilation's overloaded functions
    (one object per name, so its resolutions are found again by identity)."""
    attribute: str


_GETTERS: dict = {}


def attribute_getter(name: str) -> AttributeGetter:
    """The AttributeGetter of the front end's name for an attribute ("getattr.width")."""
    getter = _GETTERS.get(name)
    if getter is None:
        getter = _GETTERS[name] = AttributeGetter(name[len(ATTRIBUTE_PREFIX):])
    return getter


def resolve_attribute(getter: AttributeGetter, name: str, arg_types, keywords, index: int, *literals,
                      debug=False, lineinfo=False, fastmath=False):
    """The resolution of `value.attribute` for a value of a numba extension type (cubridge's foreign type): the
    type numba's typing gives the attribute (AttributeTemplate, overload_attribute, @property through it) and an
    implementation calling the function numba's getattr lowering (lower_attr / lower_getattr) builds for it."""
    from ._overload_binding import Resolution, _numba_types, to_numba
    (value_type,) = tuple(arg_types)
    attr = getter.attribute
    where = f"'{value_type}.{attr}'"
    nbtype = to_numba(value_type, where)
    overloaded = _overload_attribute(nbtype, attr, where)
    if overloaded is not None:  # overload_attribute: its Python implementation, compiled by cubridge
        unit = f"{overloaded.__code__.co_name}__overload_{_unit_base(getter, name)}_{index}"
        return Resolution(getter, tuple(arg_types), tuple(keywords), overloaded, unit, ())
    target = _cuda_target()
    with _cuda_typing():
        typing, context = target.typing_context, target.target_context
        typing.refresh()
        context.refresh()
        resty = typing.resolve_getattr(nbtype, attr)  # numba's errors reach the caller
        if resty is None:
            raise CompileError(f"{where}: numba's typing gives {nbtype} no attribute '{attr}' (numba-cuda refuses "
                               f"it too: Unknown attribute '{attr}' of type {nbtype})")
        sig = _signature(resty, nbtype)
        ours = _cubridge_signature(sig, where, getter, _numba_types())

        def lowering(context, sig):
            impl = context.get_getattr(nbtype, attr)
            if impl is None:
                raise NotImplementedError(f"no getattr lowering of '{attr}'")
            return lambda builder, args: impl(context, builder, nbtype, args[0], attr)
        with _caller_flags(debug, lineinfo, fastmath):
            symbol, modules, library = _lower(context, lowering, sig, where, getter)
    lowered = LoweredFunction(symbol, ours, tuple(sorted(library._linking_files, key=_link_key)), "numba",
                              bool(getattr(library, "use_cooperative", False)), modules)
    unit = f"{_unit_base(getter, name)}__numba_lowered_{index}"
    return Resolution(getter, tuple(arg_types), tuple(keywords), _calling_function(unit, lowered, 1), unit, ())


def _overload_attribute(nbtype, attr: str, where: str):
    """The Python implementation numba's overload_attribute(type, attr) functions give for `nbtype` (the CUDA
    ones first, then the generic ones, as numba-cuda tries them), or None where no such function exists."""
    from ._numba_struct_models import _attribute_registries
    from ._overload_binding import _CUDA_TARGETS, _check_strict, _target
    found = [t for r in _attribute_registries() for t in list(getattr(r, "attributes", ()))
             if getattr(t, "_attr", None) == attr and getattr(t, "_overload_func", None) is not None and
             isinstance(getattr(t, "key", None), type) and isinstance(nbtype, t.key)]
    ordered = [t for target in _CUDA_TARGETS for t in found if _target(t) == target]
    if found and not ordered:
        raise CompileError(f"{where}: the attribute '{attr}' of {nbtype} has numba overload_attribute "
                           f"implementations only for other targets than CUDA, as numba-cuda would find none")
    for template in ordered:
        result = template._overload_func(nbtype)
        if result is None:
            continue
        impl = getattr(result, "py_func", result)
        if not isinstance(impl, _pytypes.FunctionType):
            raise CompileError(f"{where}: numba's overload_attribute {template._overload_func.__qualname__} returned "
                               f"{result!r}, not a Python function cubridge can compile")
        _check_strict(template, impl, where)
        return impl
    return None


def _signature(return_type, *args):
    """numba's typing Signature (numba-cuda's where it has its own)."""
    try:
        from numba.cuda.typing.templates import signature
    except ImportError:
        from numba.core.typing.templates import signature
    return signature(return_type, *args)


def _prefers_literals(fnty) -> bool:
    """Whether a template of numba's function type asks for literal argument types first."""
    return any(getattr(t, "prefer_literal", False) for t in getattr(fnty, "templates", ()))


def _cubridge_signature(sig, where: str, function, types):
    """numba's signature as cubridge's, literal types as their plain ones (the value is passed all the same); a
    numba extension type whose StructModel holds integers and floats is cubridge's foreign type (by value: numba
    passes it member by member and returns it through its result pointer)."""
    from ._numba_struct_models import extension_type_refusal, foreign_type
    from ._types import Signature, as_type

    def ours(t):
        t = types.unliteral(t)
        held = foreign_type(t)
        return held if held is not None else as_type(t)
    try:
        result, args = ours(sig.return_type), [ours(a) for a in sig.args]
    except (TypeError, ValueError) as e:
        refusal = extension_type_refusal((sig.return_type, *sig.args), where, f"numba's typing of {_what(function)} "
                                         f"({sig})")
        if refusal is not None:
            raise CompileError(refusal) from None
        raise CompileError(f"{where}: numba types {_what(function)} as {sig}, and cubridge has no counterpart of a "
                           f"type in it ({e}); only numbers and C pointers pass to and from numba's lowering") from None
    for t in (*args, result):
        if not (t.kind in ("none", "pointer", "foreign") or (t.is_scalar and t.kind != "complex")):
            raise CompileError(f"{where}: numba types {_what(function)} as {sig}: {t} cannot pass to or from numba's "
                               f"lowering in cubridge (numbers other than complex, C pointers, numba extension types "
                               f"of integers and floats, and void can)")
    return Signature._make(result, args)


def _call_lowering(fnty):
    """numba's lowering of a call of `fnty`: (context, sig) -> (builder, args) -> value."""
    def lowering(context, sig):
        impl = context.get_function(fnty, sig)
        return lambda builder, args: impl(builder, args, None)
    return lowering


def _lower(context, lowering, sig, where: str, function):
    """(symbol, NVVM IR module texts, numba code library) of the wrapper: `symbol(result*, args...)` in numba's
    calling convention (a status comes back, which the caller propagates, as numba's callers do: code numba
    compiles for the call, e.g. through compile_internal, returns its status through it), whose body is
    numba's lowering for `sig` (`lowering(context, sig)` gives the codegen: _call_lowering, or an attribute's)."""
    from llvmlite import ir
    context, call_conv = _wrapper_context(context, sig)
    try:
        impl = lowering(context, sig)
    except NotImplementedError as e:
        raise CompileError(f"{where}: numba has no lowering of {_what(function)} for {sig} ({e}); numba-cuda "
                           f"refuses the call too") from None
    void = sig.return_type == _void()
    library = context.codegen().create_library(f"{_PENDING}_{getattr(function, '__name__', 'call')}")
    with context.push_code_library(library):
        module = context.create_module(_PENDING)
        fn = ir.Function(module, call_conv.get_function_type(sig.return_type, sig.args), _PENDING)
        fn.linkage = "linkonce_odr"  # one definition wherever the same call is compiled twice and linked
        fn.attributes.add("alwaysinline")  # numba lowers the call in place in its caller
        builder = ir.IRBuilder(fn.append_basic_block("entry"))
        args = call_conv.decode_arguments(builder, sig.args, fn)
        value = impl(builder, list(args))
        if value is None and not void:  # numba's lowering refuses the same codegen with this message
            raise _lowering_error(f"{where}: non-void function returns None from implementation "
                                  f"({_what(function)}, {sig})")
        if void:
            call_conv.return_native_none(builder)
        else:
            call_conv.return_value(builder, context.get_return_value(builder, sig.return_type, value))
        library.add_ir_module(module)
    library.finalize()
    texts = list(library.llvm_strs)
    import hashlib  # OpenSSL, ~2-3 ms at start-up, which a program without numba extensions never needs
    digest = hashlib.sha256("\0".join(texts).encode()).hexdigest()[:16]
    symbol = f"{_PENDING}_{digest}"
    quoted = f'@"{_PENDING}"'
    return symbol, tuple(t.replace(quoted, f'@"{symbol}"') for t in texts), library


@contextlib.contextmanager
def _caller_flags(debug, lineinfo, fastmath):
    """numba-cuda's compile flags of the calling function, as its compiler sets them (compile_cuda), on numba's
    flags stack, where compile_internal reads them (numba's built-in CUDA target has no such stack: its
    compile_internal uses its defaults)."""
    try:
        from numba.cuda.core.targetconfig import ConfigStack
        from numba.cuda.flags import CUDAFlags
    except ImportError:
        yield
        return
    flags = CUDAFlags()
    flags.no_compile = flags.no_cpython_wrapper = flags.no_cfunc_wrapper = True
    if debug or lineinfo:
        flags.debuginfo = True
    if lineinfo:
        flags.dbg_directives_only = True
    flags.error_model = "python" if debug else "numpy"
    if debug:
        flags.dbg_extend_lifetimes = True
    if fastmath:
        flags.fastmath = fastmath
    with ConfigStack().enter(flags):
        yield


def _wrapper_context(context, sig):
    """(the target context as numba's lowering of the wrapper sees it, its calling convention): numba's own,
    status = fn(result*, args...), which code lowered into it (compile_internal's calls) returns its status
    through. numba-cuda keeps the convention on the function descriptor of the function being lowered;
    numba's built-in CUDA target on the context."""
    try:
        from numba.cuda.core.callconv import CUDACallConv
        from numba.cuda.core.funcdesc import ExternalFunctionDescriptor
    except ImportError:  # numba's built-in CUDA target
        return context, context.call_conv
    call_conv = CUDACallConv(context)
    fndesc = ExternalFunctionDescriptor(_PENDING, sig.return_type, sig.args, call_conv)
    return context.subtarget(fndesc=fndesc), call_conv


def _void():
    from ._overload_binding import _numba_types
    return _numba_types().void


def _lowering_error(message: str) -> BaseException:
    """A CompileError that is numba's LoweringError too where numba is imported (numba raises that one)."""
    from ._numba_diagnostics import joined_class
    error = joined_class(CompileError, "LoweringError")(message)
    error.msg, error.loc = message, None
    return error


def _unit_base(function, name: str) -> str:
    base = f"getattr_{function.attribute}" if isinstance(function, AttributeGetter) else (
        getattr(function, "__name__", None) or name)
    return "".join(c if c.isalnum() or c == "_" else "_" for c in base)


def _calling_function(unit: str, lowered: LoweredFunction, nargs: int):
    """`def unit(a0, ...): return <lowered>(a0, ...)`, with source text Python can show (linecache), as the
    overload machinery compiles an implementation."""
    params = ", ".join(f"a{i}" for i in range(nargs))
    callee = f"{unit}__code"  # one name per resolution: a compilation's external functions are bound by name
    source = f"def {unit}({params}):\n    return {callee}({params})\n"
    filename = f"<cubridge: numba's lowering of {unit}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {callee: lowered, "__name__": __name__}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[unit]


def _link_key(item) -> str:
    return item if isinstance(item, str) else f"{getattr(item, 'name', '')}"
