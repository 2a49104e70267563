"""What one compilation collects from a function's world: the functions it calls (each compiled from its
own source), the modules it names, the numbers and NumPy arrays it sees in its globals and closure (folded
as constants), the exception classes it raises and numba.cuda.random's functions (cubridge.random's
stand-ins); ``_collect`` fills the compiler's options with them."""
from __future__ import annotations

import enum as _enum
import math as _math
import operator
import sys
import types as _pytypes
from typing import Any

from . import (_enums, _external_functions, _inline_cost_model, _intrinsics, _numba_extensions, _numba_lowering,
               _numba_struct_models, _overload_binding, _records, _scalar_types, bf16)
from ._core import CompileError
from ._raise_sites import _register_exception_class
from ._source import _source_of
from ._types import Type, as_signature

# ---- the function's environment: module functions, modules and constants it refers to ----

def _scalar_type_name(v: Any) -> str | None:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int64" if -2**63 <= v < 2**63 else ("uint64" if 0 <= v < 2**64 else None)
    if isinstance(v, float):
        return "float64"
    if isinstance(v, complex):
        return "complex128"
    mod = type(v).__module__
    if mod == "numpy":
        name = type(v).__name__
        if name == "bool_":
            return "bool"
        if name in _ARRAY_DTYPES:
            return name
    return None


def _constant(v: Any) -> tuple[str, str] | None:
    """(type name, text of the scalar leaves) or None when v is not a foldable constant."""
    if isinstance(v, tuple):
        parts = [_constant(e) for e in v]
        if not parts or any(p is None for p in parts):
            return None
        return "Tuple(" + ", ".join(p[0] for p in parts) + ")", " ".join(p[1] for p in parts)
    dtype = getattr(v, "dtype", None)
    if type(v).__module__ == "numpy" and type(v).__name__ in ("datetime64", "timedelta64"):
        name = _scalar_types.datetime_name(dtype.str)  # np.datetime64 / np.timedelta64: numba's NPDatetime
        return None if name is None else (name, str(int(v.astype("int64"))))
    name = _scalar_type_name(v)
    if name is None:
        return None
    if name == "bool":
        return name, "1" if v else "0"
    if name.startswith(("int", "uint")):
        return name, str(int(v))

    def f(x: float) -> str:
        x = float(x)
        return "nan" if x != x else ("inf" if x == _math.inf else ("-inf" if x == -_math.inf else x.hex()))
    if name.startswith("complex"):
        return name, f"{f(v.real)} {f(v.imag)}"
    return name, f(v)


_ARRAY_DTYPES = set(_scalar_types.NUMPY_NAMES)


def _constant_array(v):
    """(dtype name, shape, C-ordered native-endian bytes) of a NumPy array of numbers, datetime64/timedelta64
    (numba's NPDatetime/NPTimedelta, their int64 counts) or records (a 0-d one
    too, shape []), else None
    (or the reason, a str, for a structured array whose fields are not kernel types):
    such globals are frozen into the code as read-only constant-memory arrays, as numba-cuda does (a
    structured array's dtype is numba's Record of it; its fields must be native-endian kernel types)."""
    np = sys.modules.get("numpy")
    if np is None or not isinstance(v, np.ndarray):  # a 0-d array too: numba's array(T, 0d, C)
        return None
    if v.dtype.fields is not None:
        try:
            name = _records.record_name(v.dtype, "a constant array")
        except TypeError as e:  # refused where the code uses the name (bind: add_refused_function)
            return f"a structured NumPy array bound outside the kernel: {e}"
        clean = np.zeros(v.shape, v.dtype)  # padding bytes zeroed: the code (and its cache key) is deterministic
        for field in v.dtype.names:
            clean[field] = v[field]
        return name, list(v.shape), clean.tobytes()
    if v.dtype.kind in _scalar_types.DATETIME_NAMES:  # numba's NPDatetime/NPTimedelta: the int64 counts
        name = _scalar_types.datetime_name(v.dtype.newbyteorder("=").str)
    elif v.dtype.name in _ARRAY_DTYPES:
        name = v.dtype.name
    else:
        return None
    if name is None:  # a multiple of a unit ([10s]): no numba type of cubridge's
        return None
    native = np.ascontiguousarray(v).astype(v.dtype.newbyteorder("="), copy=False)
    return name, list(v.shape), native.tobytes()


def _constant_tuple(name: str, v):
    """The items of a tuple of NumPy arrays (and numbers) bound to `name`, each as ("array", (dtype, shape,
    bytes)) or ("constant", (type, text)), named "name[i]"; None when v is not such a tuple, or the reason
    (a str) one of its items cannot be frozen. numba-cuda freezes such a tuple into the code as it freezes
    each array: the kernel indexes it with constants and iterates it with literal_unroll."""
    np = sys.modules.get("numpy")
    if np is None or not isinstance(v, tuple) or not any(isinstance(e, np.ndarray) for e in v):
        return None
    items = []
    for i, e in enumerate(v):
        if (c := _constant(e)) is not None:
            items.append(("constant", c))
            continue
        a = _constant_array(e)
        if isinstance(a, str):
            return f"'{name}[{i}]': {a}"
        if a is None:
            return (f"'{name}[{i}]' is a {type(e).__module__}.{type(e).__qualname__} in the tuple '{name}'; a captured "
                    f"tuple of arrays holds NumPy arrays of numbers or records, and numbers")
        items.append(("array", a))
    return items


def _device_array(name: str, v):
    """(type spelling, address, shape, strides) of a GPU array (``__cuda_array_interface__``) bound to `name`,
    else None (or the reason, a str, where such an array cannot be captured): numba-cuda embeds such a global's device pointer, shape and strides in the code, so a kernel
    reads and writes that memory (typed as a kernel argument of it would be)."""
    if isinstance(v, type) or sys.modules.get("numpy") is None:
        return None
    try:
        iface = getattr(v, "__cuda_array_interface__", None)
    except Exception:  # a property that needs a GPU, or a broken one: not a device array here
        return None
    if not isinstance(iface, dict):
        return None
    import numpy as np
    from ._types import typeof
    shape = tuple(int(d) for d in iface.get("shape", ()))  # () for a 0-d array: numba's array(T, 0d, C)
    t = typeof(v)  # the reason is a refusal where the code uses the name (bind: add_refused_function)
    if not t.dtype.is_scalar:
        return (f"'{name}' is a GPU array of {t.dtype} ({type(v).__name__}); captured device arrays hold "
                f"numbers: pass an array of records as a kernel argument")
    itemsize = np.dtype(iface["typestr"]).itemsize
    strides = iface.get("strides")
    if strides is None:
        strides, step = [], itemsize
        for d in reversed(shape):
            strides.insert(0, step)
            step *= d
    return str(t), int(iface["data"][0]), list(shape), [int(s) for s in strides]


def _enum_class(options, name: str, cls) -> None:
    """An enum class bound to `name`. An Enum's or IntEnum's members are typed as numba-cuda types them, their
    class part of their type (_enums.py): each becomes the constant "name.member" (Cls.member, Cls["member"]).
    The members of an int subclass that is an enum without being an Enum (cuda-bindings' FastEnum) are
    integers: each is the int64 constant "name.member"."""
    if issubclass(cls, _enum.Enum):
        _enums.bind_class(options, name, cls)
        return
    for member, v in _int_members(cls).items():
        if (c := _constant(int(v))) is not None:
            options.add_constant(f"{name}.{member}", c[0], c[1])


def _int_members(cls) -> dict:
    """The members of an int subclass that is an enum without being an Enum: cuda-bindings' FastEnum
    (cuda.bindings.runtime.cudaRoundMode, whose members numba-cuda's cuda_fp8 bindings take as IntEnum
    members): its own instances, from __members__ where it keeps one, else from the class's attributes.
    {} for any other value."""
    if not (isinstance(cls, type) and issubclass(cls, int) and not issubclass(cls, (_enum.Enum, bool))):
        return {}
    members = getattr(cls, "__members__", None)
    if not hasattr(members, "items"):
        members = {k: v for k, v in vars(cls).items() if not k.startswith("_")}
    return {k: v for k, v in members.items() if isinstance(v, cls)}


def _code_names(code: _pytypes.CodeType) -> set[str]:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, _pytypes.CodeType):
            names |= _code_names(c)
    return names


# Modules whose names the compiler resolves itself (math.sqrt, np.float32, cuda.grid); any other module
# is the user's: the functions and constants the code reaches through it are collected.
_KNOWN_MODULE_ROOTS = ("math", "cmath", "numpy", "numba", "cubridge")


def _is_user_module(m: _pytypes.ModuleType) -> bool:
    return m.__name__.partition(".")[0] not in _KNOWN_MODULE_ROOTS


# Modules of the callables bound as `from <math or numpy> import name`: math's functions, NumPy's scalar types
# and numba's number types (numba.core's, and numba-cuda's own since 0.30: numba.cuda.types.cuda_scalars).
_NUMBER_TYPE_MODULES = ("math", "numpy", "numba", "numba.core.types.scalars", "numba.cuda.types.scalars",
                        "numba.cuda.types.cuda_scalars")


def _def_name(fn) -> str:
    """The name fn's source defines it by: its code object's (a function renamed through __name__ after
    `exec` keeps `def fn` in its text, as numba-cuda's test_ufuncs makes them)."""
    return fn.__code__.co_name


def _compiled_from_body(v) -> bool:
    """Whether v is a Python function (or a dispatcher of one) whose body is what the GPU runs: not one of
    numba's stubs, nor a function numba implements through an @overload or @intrinsic (_numba_extensions)."""
    inner = getattr(v, "py_func", v)
    return isinstance(inner, _pytypes.FunctionType) and _numba_extensions.numba_path(inner) is None and \
        _numba_extensions.refusal(getattr(inner, "__name__", "?"), v) is None and not _overload_binding.overloaded(v)


def _inline_policy(v, caller) -> str | None:
    """A helper's inline policy (_jit_options.JitOptions.inline_policy): 'never', 'always' (alwaysinline), 'ir'
    (inline='always': the body written into each caller) or None (cubridge's default, alwaysinline); a cost
    model (inline=<callable>) is asked at the calls in `caller` (_inline_cost_model). Of numba-cuda's
    dispatchers only inline='always' is read: inline='never' is their default, so a written one cannot be told
    from it, and their other helpers keep cubridge's inlining."""
    own = getattr(v, "__cubridge_inline__", None)
    if callable(own):
        return _inline_cost_model.policy(own, caller, v)
    if own is not None:
        return own
    options = getattr(v, "targetoptions", None)
    return "ir" if isinstance(options, dict) and options.get("inline") == "always" else None


def _device_options(v, caller) -> tuple | None:
    """What a cubridge device function object (``cubridge.jit(device=True)``'s DeviceFunction) asks of the
    code that calls it: (inline policy, declared signatures, link items); a kernel dispatcher called as a
    device function (numba-cuda compiles it as one, with its options) asks only its inline policy; None for
    any other value."""
    if not getattr(v, "__cubridge_device__", False):
        policy = _inline_policy(v, caller)
        return None if policy is None else (policy, (), ())
    return (_inline_policy(v, caller), tuple(getattr(v, "__cubridge_signatures__", ())),
            tuple(getattr(v, "__cubridge_links__", ())))


# The name a lambda compiled as the entry function is given: numba-cuda's mangling of '<lambda>' ('<' and '>'
# escaped as _3c and _3e), which is also its C-ABI symbol when abi_info names none.
LAMBDA_NAME = "_3clambda_3e"

_PLAIN_OPTIONS = (None, (), ())  # what a plain function called as a helper is compiled with


def _describe(options: tuple) -> str:
    if options == _PLAIN_OPTIONS:
        return "a plain function (the default options)"
    inline, sigs, links = options
    return (f"a device function made with inline={inline!r}, signatures=({', '.join(map(str, sigs))}), "
            f"link=({', '.join(map(str, links))})")


class _Environment:
    """What one compilation collects from the functions' globals and closures: units (the source of each
    function reached), aliases (names a function is called by other than its own), constants and imports."""

    def __init__(self, options, entry, overloads=None):
        self.options = options
        self.overloads = overloads if overloads is not None else _overload_binding.Overloads()
        self.imports: list[str] = []
        self.entry = entry
        self.by_name: dict[str, Any] = {_def_name(entry): entry}  # functions compiled by their own name
        self.queue = [entry]
        self.bound: set[str] = set()
        self.deferred: list = []  # (function, alias) reached through modules: added after bind's own names
        self.signatures: dict = {}  # function -> the signatures a numba-cuda device dispatcher declared for it
        self.referenced: list = []  # GPU arrays whose address the code embeds: kept alive with the code
        self.externals: dict = {}  # name the code calls -> ExternalFunction (cuda.declare_device)
        self.links: list = []  # the link items of the external functions reached, each once
        self.helpers: dict = {}  # function -> the options it is compiled with (_device_options of what reached it)
        self.lambdas: dict = {}  # lambda called as a helper -> the name it is compiled by (_add_lambda)

    def external(self, name: str, f) -> None:
        """An external device function (declare_device) the code calls `name`: declared to the compiler, its
        link items kept for the kernel's link. One declared use_cooperative makes a kernel whose code calls it
        launch cooperatively (the compiler marks it where it emits the call)."""
        other = self.externals.get(name)
        if other is not None and (other.name, other.sig, other.abi, other.use_cooperative) != (
                f.name, f.sig, f.abi, f.use_cooperative):
            raise CompileError(f"two different external functions are called by the name {name!r} ({other.name}: "
                               f"{other.sig} and {f.name}: {f.sig}); bind them to different names")
        if other is None:
            self.externals[name] = f
            self.options.add_external_function(name, f.name, f.sig, f.abi, f.use_cooperative)
            for module in getattr(f, "nvvm_modules", ()):  # numba's lowering of an extension call (_numba_lowering)
                self.options.add_nvvm_module(module)
        self._link(f.link)

    def _link(self, items) -> None:
        for item in items:
            if not any(item is x or (isinstance(x, str) and x == item) for x in self.links):
                self.links.append(item)

    def helper(self, fn, v, caller) -> None:
        """fn is reached through v (itself, or a dispatcher of it) from the function `caller`: a cubridge device function object's options
        (inline policy, declared signatures, link items) are the ones fn is compiled with, a plain function's
        the defaults. fn reached with different options in one compilation (two decorations, or the function
        and a decoration) is refused naming both, rather than one's options silently kept."""
        if fn is self.entry:  # compiled with the options of whoever compiles it
            return
        options = _device_options(v, caller) or _PLAIN_OPTIONS
        seen = self.helpers.get(fn)
        if seen is not None and seen != options:
            raise CompileError(f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}: {fn.__qualname__!r} is called "
                               f"as {_describe(seen)} and as {_describe(options)}; a function is compiled once per "
                               f"kernel: call it one way")
        self.helpers[fn] = options
        self._link(options[2])

    def function(self, fn, alias: str | None, strict: bool = True) -> None:
        """Compiles fn too; `alias` is the name or path the code calls it by when not fn.__name__. Not
        strict (members of a module whose names the code merely mentions): a clash of names drops the alias
        instead of refusing, so a call through it is refused by the compiler rather than miscompiled; such
        functions are added after the names the function binds itself (bind), so its own win whatever
        order its names come in."""
        if not strict:
            self.deferred.append((fn, alias))
            return
        self._add(fn, alias, strict)

    def _add(self, fn, alias: str | None, strict: bool) -> None:
        if fn.__code__.co_name == "<lambda>":
            self._add_lambda(fn, alias)
            return
        name = _def_name(fn)
        other = self.by_name.get(name)
        if other is not None and other is not fn and not strict:
            return
        if other is None:
            self.by_name[name] = fn
            self.queue.append(fn)
            src, fname, line = _source_of(fn)
            self.options.add_unit(src, fname, line)
            self._unit_options(fn, name)
        elif other is not fn:
            raise CompileError(f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}: two different functions named "
                               f"{name!r} are called ({other.__module__}.{other.__qualname__} and "
                               f"{fn.__module__}.{fn.__qualname__}); cubridge compiles helpers by their name: rename one")
        if alias is not None and alias != name:
            self.options.add_function_alias(alias, name)

    def _unit_options(self, fn, name: str) -> None:
        """The options fn, compiled as the unit `name`, was reached with: inline='never' or 'ir', declared signatures."""
        inline, declared, _ = self.helpers.get(fn, _PLAIN_OPTIONS)
        if inline == "never":
            self.options.add_inline_never(name)
        elif inline == "ir":
            self.options.add_inline_ir(name)
        for sig in self.signatures.get(fn) or declared:  # jit(sigs, device=True)
            self.options.add_declared_signature(name, as_signature(sig))

    def _add_lambda(self, fn, alias: str | None) -> None:
        """A lambda called as a helper (d = jit(device=True)(lambda x: x + 1)): compiled as a def of a name of
        its own (LAMBDA_NAME and a number), which the name the code calls it by is an alias of."""
        name = self.lambdas.get(fn)
        if name is None:
            name = self.lambdas[fn] = f"{LAMBDA_NAME}{len(self.lambdas)}"
            src, fname, line = _source_of(fn)
            renamed, text = _overload_binding.renamed_unit(fn, name, src)
            self.by_name[name] = renamed
            self.queue.append(renamed)
            self.options.add_unit(text, fname, line)
            self._unit_options(fn, name)
        if alias is not None:
            self.options.add_function_alias(alias, name)

    def overloaded(self, name: str, f) -> None:
        """A function numba implements through an @overload, called `name`: the implementations resolved so far
        for its calls are compiled too (renamed: implementations are often all called `impl`)."""
        self.overloads.functions[name] = f
        self.options.add_overloaded_function(name)
        for r in self.overloads.resolutions:
            if r.function is not f:
                continue
            self.options.add_overload_resolution(name, list(r.arg_types), list(r.keywords), r.unit_name,
                                                 list(r.literals), list(r.functions))
            if r.unit_name not in self.by_name:
                src, fname, line = _source_of(r.implementation)
                fn, text = _overload_binding.renamed_unit(r.implementation, r.unit_name, src)
                self.by_name[r.unit_name] = fn
                self.queue.append(fn)
                self.options.add_unit(text, fname, line)

    def module_members(self, caller, module: _pytypes.ModuleType, names: set[str], path: str, depth: int = 0) -> None:
        """mod.fn, mod.CONST and pkg.sub.fn: the members of a user module that the code of `caller` names."""
        members = vars(module)
        for n in names:
            if n not in members:
                continue
            v = members[n]
            inner = getattr(v, "py_func", v)
            if _compiled_from_body(v):
                self.helper(inner, v, caller)
                self.function(inner, f"{path}.{n}", strict=False)
            elif isinstance(v, _pytypes.ModuleType) and _is_user_module(v) and depth < 8:
                self.module_members(caller, v, names, f"{path}.{n}", depth + 1)
            elif (c := _constant(v)) is not None:
                self.options.add_constant(f"{path}.{n}", c[0], c[1])

    def defaults(self, fn) -> None:
        """The default values Python computed for fn's parameters, by "<default fn.param>"."""
        values = fn.__defaults__ or ()
        params = fn.__code__.co_varnames[fn.__code__.co_argcount - len(values):fn.__code__.co_argcount]
        for p, v in zip(params, values):
            if (c := _constant(v)) is not None:
                self.options.add_constant(f"<default {_def_name(fn)}.{p}>", c[0], c[1])

    def bind(self, f) -> None:
        env: dict[str, Any] = {}
        if f.__closure__:
            env.update({n: c.cell_contents for n, c in zip(f.__code__.co_freevars, f.__closure__)
                        if _cell_ok(c)})
        names = _code_names(f.__code__)
        for n in names:
            if n not in env and n in f.__globals__:
                env[n] = f.__globals__[n]
        options, imports = self.options, self.imports
        for n, v in env.items():
            if (x := _external_functions.external_function(v)) is not None:
                self.external(n, x)  # cuda.declare_device: linked code called by its symbol (checked per function)
                self.bound.add(n)
                continue
            if n in self.bound or not n.isidentifier():  # pytest's assertion rewriting adds "@py_builtins"
                continue
            inner = _random_stand_in(getattr(v, "py_func", v))
            if isinstance(v, _pytypes.ModuleType):
                imports.append(f"import {v.__name__} as {n}")
                if _is_user_module(v):
                    self.module_members(f, v, names, v.__name__)
                for g in _random_functions_reached(v, names):  # cuda.random.X(...), rnd.X(...)
                    self.function(g, None, strict=False)  # a module's own rotl keeps its name (see docs)
            elif (getattr(inner, "__module__", None) == _numba_extensions.FP8_MODULE
                  and not isinstance(inner, _enum.Enum) and not (isinstance(inner, type) and issubclass(inner, _enum.Enum))):
                imports.append(f"import {_numba_extensions.FP8_MODULE}.{inner.__name__} as {n}")  # fp8_e4m3(x), cvt_*
            elif isinstance(inner, _pytypes.FunctionType) and inner.__module__ == "numba.cuda.cg":
                imports.append(f"import numba.cuda.cg.{inner.__name__} as {n}")  # from numba.cuda.cg import this_grid
            elif isinstance(inner, type) and (issubclass(inner, _enum.Enum) or _int_members(inner)):
                # before numba.cuda's classes below
                _enum_class(options, n, inner)
            elif isinstance(inner, type) and issubclass(inner, BaseException):
                options.add_exception_class(n, _register_exception_class(inner))
            elif _random_host_function(inner):  # refused by name where a kernel calls it
                imports.append(f"import {inner.__module__}.{inner.__name__} as {n}")
            elif isinstance(inner, _pytypes.FunctionType) and (path := _numba_extensions.numba_path(inner)):
                imports.append(f"import {path} as {n}")  # numba's stubs (cuda.ldcg, libdevice.sin): never their body
            elif _external_functions.is_cffi_ffi(v):
                imports.append(f"import cffi.ffi as {n}")  # ffi.from_buffer(array): the array's data pointer
            elif _numba_lowering.bridged(v):
                self.overloaded(n, v)  # @intrinsic, type_callable + lower_builtin: numba's lowering per call
            elif _overload_binding.overloaded(v):
                self.overloaded(n, getattr(v, "py_func", v))  # a user's @overload: its implementation per call
            elif (why := _numba_extensions.refusal(n, v)) is not None:
                options.add_refused_function(n, why)  # a user's @overload / @intrinsic: refused where called
            elif isinstance(inner, _pytypes.FunctionType):
                if sigs := _numba_extensions.declared_signatures(v):
                    self.signatures[inner] = sigs
                self.helper(inner, v, f)
                self.function(inner, n)  # from numba.cuda.random import X as Y: an alias of cubridge's X
            elif isinstance(v, tuple) and v and all(_compiled_from_body(e) for e in v):
                for i, e in enumerate(v):  # ops = (f, g); ops[0](x), ops[-1](x)
                    self.helper(getattr(e, "py_func", e), e, f)
                    self.function(getattr(e, "py_func", e), f"{n}[{i}]")
                    self.options.add_function_alias(f"{n}[{i - len(v)}]", _def_name(getattr(e, "py_func", e)))
            elif callable(v) and getattr(v, "__module__", None) == "_operator" and hasattr(operator, v.__name__):
                imports.append(f"import operator.{v.__name__} as {n}")  # op = operator.truediv: op(x, y) is x / y
            elif isinstance(v, _intrinsics.Intrinsic):  # from cubridge import grid
                imports.append(f"import cubridge.{v._name} as {n}")
            elif isinstance(inner, type) and inner.__module__.startswith("numba.cuda"):  # from numba.cuda import grid
                imports.append(f"import numba.cuda.{inner.__name__} as {n}")
            elif (_numba_extensions.is_bfloat16_type(v) or isinstance(v, bf16.BFloat16Type)
                  or _scalar_types.is_ml_dtypes_bfloat16_class(v)):  # ml_dtypes.bfloat16: numba's NumberClass
                imports.append(f"import numba.cuda.bfloat16 as {n}")  # bfloat16(x): the compiler's constructor
            elif isinstance(v, bf16.Binding):  # from cubridge.bf16 import hadd: CUDA's __hadd
                imports.append(f"import numba.cuda._internal.cuda_bf16.{v._binding} as {n}")
            elif isinstance(v, Type) and v.is_scalar:
                imports.append(f"from numpy import {v.name} as {n}")  # cubridge.float32(x) casts
            elif callable(v) and getattr(v, "__module__", None) in _NUMBER_TYPE_MODULES:
                mod = "math" if v.__module__ == "math" else "numpy"
                # numba's type objects are instances: their name is .name (nbtype = numba.cuda.float32)
                imports.append(f"from {mod} import {getattr(v, '__name__', None) or getattr(v, 'name', n)} as {n}")
            elif (d := _records.dtype_name(v)) is not None:  # cuda.local.array(n, dtype=rec)
                options.add_dtype(n, d)
            elif (held := _numba_struct_models.foreign_dtype(v)) is not None:  # dtype=an extension type
                options.add_foreign_dtype(n, held)
            elif (c := _constant(v)) is not None:
                options.add_constant(n, c[0], c[1])
            elif v is None:  # numba reads a global or closure None as the constant None (`if cond:` on it is pruned)
                options.add_constant(n, "none", "")
            elif (items := _constant_tuple(n, v)) is not None:
                if isinstance(items, str):
                    options.add_refused_function(n, items)
                else:
                    for i, (kind, item) in enumerate(items):
                        (options.add_constant_array if kind == "array" else options.add_constant)(f"{n}[{i}]", *item)
                    options.add_constant_tuple(n, [f"{n}[{i}]" for i in range(len(items))])
            elif (a := _constant_array(v)) is not None:
                if isinstance(a, str):
                    options.add_refused_function(n, a)
                else:
                    options.add_constant_array(n, *a)
            elif (g := _device_array(n, v)) is not None:
                if isinstance(g, str):
                    options.add_refused_function(n, g)
                else:
                    options.add_device_array(n, *g)
                    self.referenced.append(v)
            elif callable(v) and not isinstance(v, type):  # gufunc_copy(A, b): numba's words, refused where called
                kind = f"{type(v).__module__}.{type(v).__qualname__}"
                options.add_refused_function(n, f"Untyped global name {n!r}: a {kind} object cannot be called from "
                                                f"compiled code (it calls Python functions, cuda.jit device functions, "
                                                f"math and NumPy functions, and numba's CUDA intrinsics)")
            else:
                continue
            self.bound.add(n)
        deferred, self.deferred = self.deferred, []
        for fn, alias in deferred:
            self._add(fn, alias, strict=False)


def _collect(pyfunc, options, referenced: list | None = None, links: list | None = None,
             overloads=None) -> tuple[str, str]:
    """Fills options with constants, imports, extra units and function aliases; returns (source, function name).
    `referenced` gets the objects the code refers to by address (captured GPU arrays): whoever keeps the code
    keeps them alive, as numba-cuda's code library does. `links` gets the link items of the external device
    functions (declare_device) the code calls; `overloads` (an _overload_binding.Overloads) gives the @overload
    implementations resolved so far and gets the functions bound to overloaded names."""
    fn = _random_stand_in(getattr(pyfunc, "py_func", pyfunc))  # numba dispatchers; numba.cuda.random's are ours
    if not isinstance(fn, _pytypes.FunctionType):
        raise TypeError(f"pyfunc must be a Python function, got {type(pyfunc).__name__}")
    source, filename, first = _source_of(fn)
    if fn.__code__.co_name == "<lambda>":  # compiled as `def <its escaped name>(params): return body`
        fn, source = _overload_binding.renamed_unit(fn, LAMBDA_NAME, source)
    options.filename = filename
    options.first_line = first
    options.module_name = fn.__module__ or "__main__"
    env = _Environment(options, fn, overloads)
    env.overloads.units = env.by_name  # the functions an @overload call may be passed, by unit name
    for attr, f in _overload_binding.array_methods().items():  # overload_method(types.Array, attr)
        env.overloaded(_overload_binding.ARRAY_METHOD_PREFIX + attr, f)
    from ._numba_lowering import AttributeGetter  # imported here: it imports _overload_binding
    for name, f in list(env.overloads.functions.items()):  # numba's attributes of extension types met so far
        if isinstance(f, AttributeGetter):
            env.overloaded(name, f)
    while env.queue:
        f = env.queue.pop()
        env.bind(f)
        if f.__defaults__:
            env.defaults(f)
    if env.imports:
        options.add_unit("\n".join(env.imports) + "\n", "<imports>", 1)
    if referenced is not None:
        referenced.extend(env.referenced)
    if links is not None:
        links.extend(env.links)
    return source, _def_name(fn)


# numba.cuda.random's device functions are numba CPU-jit dispatchers; kernels get cubridge.random's
# functions of the same names instead (same arithmetic, written in our subset), so numba's source is never
# compiled. The typer resolves the dotted spellings (numba.cuda.random.X, cubridge.random.X) to them.
_RANDOM_MODULES = ("numba.cuda.random", "cubridge.random")


def _random_device_functions() -> dict:
    from . import random  # imported on first use: it imports NumPy
    return random._DEVICE_FUNCTIONS


def _random_stand_in(f):
    """cubridge.random's device function for numba.cuda.random's f of that name; else f itself."""
    if isinstance(f, _pytypes.FunctionType) and f.__module__ == _RANDOM_MODULES[0]:
        return _random_device_functions().get(f.__name__, f)
    return f


def _random_host_function(f) -> bool:
    """create_xoroshiro128p_states and the other host functions of numba.cuda.random or cubridge.random."""
    return isinstance(f, _pytypes.FunctionType) and f.__module__ in _RANDOM_MODULES and \
        not f.__name__.startswith("_") and f.__name__ not in _random_device_functions()


def _random_functions_reached(module, names: set) -> list:
    """The random device functions a function reaches through a module: cuda.random.X, rnd.X."""
    through_parent = module.__name__ in ("numba", "numba.cuda", "cubridge") and "random" in names
    if module.__name__ not in _RANDOM_MODULES and not through_parent:
        return []
    functions = _random_device_functions()
    return [functions[n] for n in sorted(names & functions.keys())]


def _cell_ok(cell) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:  # an empty cell
        return False
