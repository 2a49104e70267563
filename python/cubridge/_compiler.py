"""The code face: compile Python functions to PTX or LTO-IR (C or Numba ABI), without a GPU.

``compile(pyfunc, sig, ...)`` reads the function's source (``inspect``; rebuilt from the bytecode where Python
keeps none: ``_bytecode``), the module functions it calls,
and the numbers it sees in its globals and closure; cubridge's own front end (C++) parses, types (with
Numba's rules), emits NVVM IR and hands it to libNVVM. CPython never executes the function.
"""
from __future__ import annotations

import math as _math
import operator
import os
import sys
import types as _pytypes
from typing import Any, Callable

from . import _core, _intrinsics, _jit_options, _linker, _logging, _numba_extensions, _records, _scalar_types
from ._core import CompileError

__all__ = [
    "compile", "compile_for_current_device", "compile_ptx", "compile_ptx_for_current_device", "CompileError",
    "compile_cache_stats",
    "NumberType", "TupleType", "ArrayType", "VoidType", "Signature", "UniTuple", "Tuple", "void",
    "boolean", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "intp", "uintp",
    "float16", "float32", "float64", "complex64", "complex128",
]


class NumberType:
    """A scalar type (Numba's names). Calling it with types builds a signature: ``float32(float32, float32)``."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args: Any) -> "Signature":
        return Signature(self, tuple(_as_type(a) for a in args))

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __getitem__(self, dims) -> "ArrayType":
        """``float32[:]``, ``float32[:, ::1]`` (C), ``float32[::1, :]`` (F): an array type, as in Numba."""
        dims = dims if isinstance(dims, tuple) else (dims,)
        ok = all(isinstance(d, slice) and d.start is None and d.stop is None and d.step in (None, 1) for d in dims)
        if not ok or not dims or isinstance(self, (TupleType, ArrayType, VoidType)):
            raise TypeError(f"{self.name}[{dims!r}]: array types are spelt with ':' and '::1' only, e.g. "
                            f"{self.name}[:], {self.name}[:, ::1] (C order) or {self.name}[::1, :] (F order)")
        contiguous = [i for i, d in enumerate(dims) if d.step == 1]
        n = len(dims)
        layout = "A" if not contiguous else "C" if contiguous == [n - 1] else "F" if contiguous == [0] else None
        if layout is None:
            raise TypeError(f"{self.name}[...]: '::1' must mark the last dimension (C order) or the first (F order)")
        return ArrayType(f"array({self.name}, {n}d, {'C' if n == 1 and layout == 'F' else layout})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NumberType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


class TupleType(NumberType):
    """A tuple of scalars: ``UniTuple(int64, 2)`` or ``Tuple(int64, float64)``; ``elements`` lists them."""

    __slots__ = ("elements",)

    def __init__(self, elements: tuple):
        self.elements = tuple(elements)
        if self.elements and all(e == self.elements[0] for e in self.elements):
            name = f"UniTuple({self.elements[0].name} x {len(self.elements)})"
        else:
            name = "Tuple(" + ", ".join(e.name for e in self.elements) + ")"
        super().__init__(name)


class ArrayType(NumberType):
    """An array parameter type, named as Numba names it: ``array(float32, 2d, C)`` (``readonly array(...)``)."""

    __slots__ = ()


class RecordType(NumberType):
    """A NumPy structured dtype, named as Numba names it: ``Record(x[type=float32;offset=0];4;False)``."""

    __slots__ = ()


class VoidType(NumberType):
    """The result type of a function that returns nothing (Numba's ``void``/``none``): ``void(float32[:])``."""

    __slots__ = ()


def UniTuple(dtype: NumberType, count: int) -> TupleType:
    return TupleType((dtype,) * count)


def Tuple(*elements: NumberType) -> TupleType:
    return TupleType(elements)


class Signature:
    """``return_type(args...)``; ``return_type`` is None when it is to be inferred."""

    __slots__ = ("return_type", "args")

    def __init__(self, return_type: NumberType | None, args: tuple):
        self.return_type = return_type
        self.args = tuple(args)

    def __str__(self) -> str:
        inner = ", ".join(a.name for a in self.args)
        return f"{self.return_type.name}({inner})" if self.return_type is not None else f"({inner})"

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Signature) and str(other) == str(self)

    def __hash__(self) -> int:
        return hash(str(self))


_BY_NAME = {name: NumberType(name) for name in _scalar_types.NUMPY_NAMES}  # the table's rows that NumPy has
boolean = bool_ = _BY_NAME["bool"]
int8, int16, int32, int64 = (_BY_NAME[f"int{b}"] for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (_BY_NAME[f"uint{b}"] for b in (8, 16, 32, 64))
intp, uintp = int64, uint64
float16, float32, float64 = (_BY_NAME[f"float{b}"] for b in (16, 32, 64))
complex64, complex128 = _BY_NAME["complex64"], _BY_NAME["complex128"]
void = none = VoidType("none")
_BY_NAME["none"] = None


def _type_from_name(name: str):
    """Our type object for a C++ type name ("int64", "UniTuple(int64 x 2)", "Tuple(int64, float32)")."""
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name.startswith(("array(", "readonly array(", "unaligned ")):
        return ArrayType(name)
    if name.startswith("Record("):
        return RecordType(name)
    if name.startswith("UniTuple(") and name.endswith(")"):
        inner, _, count = name[9:-1].rpartition(" x ")
        return UniTuple(_type_from_name(inner), int(count))
    if name.startswith("Tuple(") and name.endswith(")"):
        parts, depth, cur = [], 0, ""
        for ch in name[6:-1]:
            depth += ch == "("
            depth -= ch == ")"
            if ch == "," and depth == 0:
                parts.append(cur.strip())
                cur = ""
            else:
                cur += ch
        parts.append(cur.strip())
        return Tuple(*(_type_from_name(p) for p in parts))
    raise ValueError(f"unknown type name {name!r}")


def _numba_array(t) -> ArrayType:
    """numba.types.Array (and its subclasses, e.g. numba-cuda's CUDAArray): dtype, ndim, layout, mutable."""
    dtype = _as_type(t.dtype)
    if isinstance(dtype, (TupleType, ArrayType)) or dtype is void:
        raise TypeError(f"{t!r}: arrays hold numbers; got elements of type {dtype}")
    ro = "" if getattr(t, "mutable", True) else "readonly "
    return ArrayType(f"{ro}array({dtype.name}, {int(t.ndim)}d, {t.layout})")


def _numba_unituple(t) -> TupleType:
    return UniTuple(_as_type(t.dtype), int(t.count))


def _numba_tuple(t) -> TupleType:
    return Tuple(*(_as_type(e) for e in t.types))


# Numba type classes converted by structure, found through the type's MRO (so a subclass such as
# numba-cuda's CUDAArray converts as its base). Scalars convert by name (_BY_NAME). A new kind of
# type (records) adds one entry here.
_NUMBA_TYPE_CONVERTERS: dict[str, Any] = {
    "Array": _numba_array,
    "UniTuple": _numba_unituple,
    "Tuple": _numba_tuple,
    "NoneType": lambda t: void,
}


def _numba_type(t) -> NumberType | None:
    """Our type for a Numba type object, or None when t is not one."""
    for klass in type(t).__mro__:
        convert = _NUMBA_TYPE_CONVERTERS.get(klass.__name__)
        if convert is not None and klass.__module__.startswith("numba"):
            return convert(t)
    return None


def _as_type(t: Any) -> NumberType:
    """A type object from ours, a string, a Numba type, a NumPy dtype/scalar type or Python's bool/int/float/complex."""
    if isinstance(t, NumberType):
        return t
    if t is bool:
        return boolean
    if t is int:
        return int64
    if t is float:
        return float64
    if t is complex:
        return complex128
    if t is None:
        return void
    if isinstance(t, tuple):
        return Tuple(*(_as_type(e) for e in t))
    if type(t).__module__.startswith("numba") and (converted := _numba_type(t)) is not None:
        return converted
    name = t if isinstance(t, str) else getattr(t, "name", None) or getattr(t, "__name__", None)
    if isinstance(name, str):
        if name == "bool_":
            name = "bool"
        if name in _BY_NAME:
            return _BY_NAME[name] or void
        try:
            result, args = _core._parse_signature(f"({name})")  # one type: "array(...)" is no signature
        except ValueError:
            pass
        else:
            if result is None and len(args) == 1:
                return _type_from_name(args[0])
    raise TypeError(f"{t!r} is not a type the compiler accepts; use cubridge.int32, ..., cubridge.complex128, "
                    f"cubridge.float32[:] (arrays), cubridge.UniTuple/Tuple, a Numba type (numba.float32, "
                    f"numba.float32[:, ::1], numba.types.Array(numba.float32, 2, 'C'), numba.types.UniTuple(...)), "
                    f"a NumPy scalar type or a type name such as 'float32'")


def _signature_parts(sig: Any) -> tuple[NumberType | None, tuple[NumberType, ...]]:
    """(return type or None, argument types) of a signature that is not text: ours (float32(float32)),
    Numba's (numba.void(numba.float32[::1])), one type (an argument), or a tuple/list of argument types."""
    if isinstance(sig, Signature):
        return sig.return_type, sig.args
    if isinstance(sig, (tuple, list)):
        return None, tuple(_as_type(a) for a in sig)
    args = getattr(sig, "args", None)  # numba.core.typing.templates.Signature
    if isinstance(args, tuple) and hasattr(sig, "return_type"):
        rt = sig.return_type
        return (None if rt is None else _as_type(rt)), tuple(_as_type(a) for a in args)
    try:
        return None, (_as_type(sig),)
    except TypeError:
        raise TypeError(f"sig must be a signature string such as 'float32(float32, float32)', a tuple of argument "
                        f"types or a signature object like float32(float32, float32) or "
                        f"numba.void(numba.float32[::1]); got {sig!r}") from None


def _signature_text(sig: Any) -> str:
    if isinstance(sig, str):
        return sig
    result, args = _signature_parts(sig)
    inner = ", ".join(a.name for a in args)
    return f"{result.name}({inner})" if result is not None else f"({inner})"


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
        if name in _BY_NAME:
            return name
    return None


def _constant(v: Any) -> tuple[str, str] | None:
    """(type name, text of the scalar leaves) or None when v is not a foldable constant."""
    if isinstance(v, tuple):
        parts = [_constant(e) for e in v]
        if not parts or any(p is None for p in parts):
            return None
        return "Tuple(" + ", ".join(p[0] for p in parts) + ")", " ".join(p[1] for p in parts)
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
    """(dtype name, shape, C-ordered native-endian bytes) of a NumPy array of numbers, else None: such
    globals are frozen into the code as read-only constant-memory arrays, as numba-cuda does."""
    np = sys.modules.get("numpy")
    if np is None or not isinstance(v, np.ndarray) or v.ndim == 0 or v.dtype.name not in _ARRAY_DTYPES:
        return None
    native = np.ascontiguousarray(v).astype(v.dtype.newbyteorder("="), copy=False)
    return v.dtype.name, list(v.shape), native.tobytes()


def _code_names(code: _pytypes.CodeType) -> set[str]:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, _pytypes.CodeType):
            names |= _code_names(c)
    return names


_SOURCES: dict = {}


def _source_of(fn) -> tuple[str, str, int]:
    # Keyed by the code object: a redefined function gets a new one, so the cache never goes stale; and by
    # its file, which code objects leave out of equality (the same text exec'd elsewhere has no file).
    key = (fn.__code__, fn.__code__.co_filename)
    hit = _SOURCES.get(key)
    if hit is not None:
        return hit
    hit = _read_source(fn)
    if len(_SOURCES) > 4096:
        _SOURCES.clear()
    _SOURCES[key] = hit
    return hit


def nfkc_identifiers(source: str) -> str:
    """`source` with each identifier normalised to NFKC, as Python reads identifiers (PEP 3131: `def 𝓍` defines
    `x`), so the compiler sees the names Python gives the function and its globals; ASCII text is returned
    as it is (the common case costs one check)."""
    if source.isascii():
        return source
    import io
    import tokenize
    import unicodedata
    lines = source.splitlines(keepends=True)
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type == tokenize.NAME and not t.string.isascii()]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return source  # the compiler reports the syntax error itself
    for t in reversed(tokens):  # from the end, so earlier positions stay valid
        (row, col), (_, end) = t.start, t.end
        line = lines[row - 1]
        lines[row - 1] = line[:col] + unicodedata.normalize("NFKC", t.string) + line[end:]
    return "".join(lines)


def _read_source(fn) -> tuple[str, str, int]:
    import inspect  # imported here: it costs ~10 ms at start-up, which the CLI never needs
    import textwrap
    try:
        lines, first = inspect.getsourcelines(fn)  # a file, or text registered in linecache (IPython cells)
    except (OSError, TypeError):
        return _rebuilt_source(fn)
    filename = inspect.getsourcefile(fn) or getattr(fn.__code__, "co_filename", "<unknown>")
    return nfkc_identifiers(textwrap.dedent("".join(lines))), filename, max(first, 1)


def _rebuilt_source(fn) -> tuple[str, str, int]:
    """The source of a function Python keeps no text for (`python -c`, stdin, `exec` of a string, the
    REPL), rebuilt from its bytecode (python/cubridge/_bytecode/)."""
    from . import _bytecode
    try:
        text, first = _bytecode.source_text(fn)
    except _bytecode.BytecodeError as e:
        raise CompileError(str(e)) from None
    return text, fn.__code__.co_filename, first


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
        _numba_extensions.refusal(getattr(inner, "__name__", "?"), v) is None


def _inline_policy(v) -> str | None:
    """'never' for a helper declared @cubridge.jit(device=True, inline='never'), else None (inlined).
    numba-cuda's dispatchers are not read: inline='never' is their default, so a written one cannot be
    told from it, and its helpers keep cubridge's inlining."""
    return getattr(v, "__cubridge_inline__", None)


class _Environment:
    """What one compilation collects from the functions' globals and closures: units (the source of each
    function reached), aliases (names a function is called by other than its own), constants and imports."""

    def __init__(self, options, entry):
        self.options = options
        self.imports: list[str] = []
        self.by_name: dict[str, Any] = {_def_name(entry): entry}  # functions compiled by their own name
        self.queue = [entry]
        self.bound: set[str] = set()
        self.deferred: list = []  # (function, alias) reached through modules: added after bind's own names
        self.signatures: dict = {}  # function -> the signatures a numba-cuda device dispatcher declared for it

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
        name = _def_name(fn)
        other = self.by_name.get(name)
        if other is not None and other is not fn and not strict:
            return
        if other is None:
            self.by_name[name] = fn
            self.queue.append(fn)
            src, fname, line = _source_of(fn)
            self.options.add_unit(src, fname, line)
            if _inline_policy(fn) == "never":
                self.options.add_inline_never(name)
            for sig in self.signatures.get(fn) or getattr(fn, "__cubridge_signatures__", ()):  # jit(sigs, device=True)
                self.options.add_declared_signature(name, _signature_text(sig))
        elif other is not fn:
            raise CompileError(f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}: two different functions named "
                               f"{name!r} are called ({other.__module__}.{other.__qualname__} and "
                               f"{fn.__module__}.{fn.__qualname__}); cubridge compiles helpers by their name: rename one")
        if alias is not None and alias != name:
            self.options.add_function_alias(alias, name)

    def module_members(self, module: _pytypes.ModuleType, names: set[str], path: str, depth: int = 0) -> None:
        """mod.fn, mod.CONST and pkg.sub.fn: the members of a user module that the code names."""
        members = vars(module)
        for n in names:
            if n not in members:
                continue
            v = members[n]
            inner = getattr(v, "py_func", v)
            if _compiled_from_body(v):
                self.function(inner, f"{path}.{n}", strict=False)
            elif isinstance(v, _pytypes.ModuleType) and _is_user_module(v) and depth < 8:
                self.module_members(v, names, f"{path}.{n}", depth + 1)
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
            if n in self.bound or not n.isidentifier():  # pytest's assertion rewriting adds "@py_builtins"
                continue
            inner = _random_stand_in(getattr(v, "py_func", v))
            if isinstance(v, _pytypes.ModuleType):
                imports.append(f"import {v.__name__} as {n}")
                if _is_user_module(v):
                    self.module_members(v, names, v.__name__)
                for g in _random_functions_reached(v, names):  # cuda.random.X(...), rnd.X(...)
                    self.function(g, None, strict=False)  # a module's own rotl keeps its name (see docs)
            elif isinstance(inner, _pytypes.FunctionType) and inner.__module__ == "numba.cuda.cg":
                imports.append(f"import numba.cuda.cg.{inner.__name__} as {n}")  # from numba.cuda.cg import this_grid
            elif isinstance(inner, type) and issubclass(inner, BaseException):
                options.add_exception_class(n, _register_exception_class(inner))
            elif _random_host_function(inner):  # refused by name where a kernel calls it
                imports.append(f"import {inner.__module__}.{inner.__name__} as {n}")
            elif isinstance(inner, _pytypes.FunctionType) and (path := _numba_extensions.numba_path(inner)):
                imports.append(f"import {path} as {n}")  # numba's stubs (cuda.ldcg, libdevice.sin): never their body
            elif (why := _numba_extensions.refusal(n, v)) is not None:
                options.add_refused_function(n, why)  # a user's @overload / @intrinsic: refused where called
            elif isinstance(inner, _pytypes.FunctionType):
                if sigs := _numba_extensions.declared_signatures(v):
                    self.signatures[inner] = sigs
                self.function(inner, n)  # from numba.cuda.random import X as Y: an alias of cubridge's X
            elif isinstance(v, tuple) and v and all(_compiled_from_body(e) for e in v):
                for i, e in enumerate(v):  # ops = (f, g); ops[0](x), ops[-1](x)
                    self.function(getattr(e, "py_func", e), f"{n}[{i}]")
                    self.options.add_function_alias(f"{n}[{i - len(v)}]", _def_name(getattr(e, "py_func", e)))
            elif callable(v) and getattr(v, "__module__", None) == "_operator" and hasattr(operator, v.__name__):
                imports.append(f"import operator.{v.__name__} as {n}")  # op = operator.truediv: op(x, y) is x / y
            elif isinstance(v, _intrinsics.Intrinsic):  # from cubridge import grid
                imports.append(f"import cubridge.{v._name} as {n}")
            elif isinstance(inner, type) and inner.__module__.startswith("numba.cuda"):  # from numba.cuda import grid
                imports.append(f"import numba.cuda.{inner.__name__} as {n}")
            elif isinstance(v, NumberType) and not isinstance(v, (TupleType, ArrayType, VoidType, RecordType)):
                imports.append(f"from numpy import {v.name} as {n}")  # cubridge.float32(x) casts
            elif callable(v) and getattr(v, "__module__", None) in _NUMBER_TYPE_MODULES:
                mod = "math" if v.__module__ == "math" else "numpy"
                # numba's type objects are instances: their name is .name (nbtype = numba.cuda.float32)
                imports.append(f"from {mod} import {getattr(v, '__name__', None) or getattr(v, 'name', n)} as {n}")
            elif (d := _records.dtype_name(v)) is not None:  # cuda.local.array(n, dtype=rec)
                options.add_dtype(n, d)
            elif (c := _constant(v)) is not None:
                options.add_constant(n, c[0], c[1])
            elif (a := _constant_array(v)) is not None:
                options.add_constant_array(n, *a)
            else:
                continue
            self.bound.add(n)
        deferred, self.deferred = self.deferred, []
        for fn, alias in deferred:
            self._add(fn, alias, strict=False)


def _collect(pyfunc, options) -> tuple[str, str]:
    """Fills options with constants, imports, extra units and function aliases; returns (source, function name)."""
    fn = _random_stand_in(getattr(pyfunc, "py_func", pyfunc))  # numba dispatchers; numba.cuda.random's are ours
    if not isinstance(fn, _pytypes.FunctionType):
        raise TypeError(f"pyfunc must be a Python function, got {type(pyfunc).__name__}")
    if fn.__name__ == "<lambda>":
        raise CompileError(f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}: a lambda cannot be compiled; "
                           f"define the function with def")
    source, filename, first = _source_of(fn)
    options.filename = filename
    options.first_line = first
    options.module_name = fn.__module__ or "__main__"
    env = _Environment(options, fn)
    while env.queue:
        f = env.queue.pop()
        env.bind(f)
        if f.__defaults__:
            env.defaults(f)
    if env.imports:
        options.add_unit("\n".join(env.imports) + "\n", "<imports>", 1)
    return source, _def_name(fn)


_EXCEPTION_CLASSES: dict = {}


def _register_exception_class(cls) -> str:
    """The name the compiler records for an exception class a kernel raises ("module.qualname"); the
    launcher of a debug=True kernel finds the class again through exception_class()."""
    name = f"{cls.__module__}.{cls.__qualname__}"
    _EXCEPTION_CLASSES[name] = cls
    return name


def exception_class(name: str) -> type:
    """The class of a raise site (RaiseSite::exception): a builtin or one registered by _collect."""
    if name.startswith("builtins."):
        import builtins
        cls = getattr(builtins, name[9:], None)
    else:
        cls = _EXCEPTION_CLASSES.get(name)
    return cls if isinstance(cls, type) and issubclass(cls, BaseException) else SystemError


def exception_args(encoded) -> tuple:
    """A raise site's constant arguments from the compiler's "<kind>:<text>" encoding (RaiseSite::args)."""
    def one(item: str):
        kind, _, text = item.partition(":")
        if kind == "s":
            return text
        if kind in ("i", "u"):
            return int(text)
        if kind == "f":
            return float.fromhex(text)
        if kind == "b":
            return text == "1"
        if kind == "c":
            re, im = text.split(" ")
            return complex(float.fromhex(re), float.fromhex(im))
        return None
    return tuple(one(a) for a in encoded)
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


def _options(debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, output):
    if abi not in ("c", "numba"):
        raise ValueError(f"abi must be 'c' or 'numba', got {abi!r}")
    if output not in ("ptx", "ltoir", "llvm"):
        raise ValueError(f"output must be 'ptx', 'ltoir' or 'llvm' (the NVVM IR text given to libNVVM), got "
                         f"{output!r}")
    o = _core._CompileOptions()
    o.debug, o.lineinfo, o.device, o.opt = bool(debug), bool(lineinfo), bool(device), bool(opt)
    o.fastmath = _jit_options._fastmath(fastmath)  # also numba's flag set ({'nsz', 'arcp', ...})
    o.set_abi(abi == "numba")
    o.set_ltoir(output == "ltoir")
    if abi_info is not None:
        if not isinstance(abi_info, dict) or set(abi_info) - {"abi_name"}:
            raise ValueError(f"abi_info must be a dict with the key 'abi_name' only, got {abi_info!r}")
        name = abi_info.get("abi_name")
        if name is not None:
            if not isinstance(name, str) or not name.isidentifier():
                raise ValueError(f"abi_info['abi_name'] must be an identifier, got {name!r}")
            o.abi_name = name
    if cc is not None:
        cc = _linker._cc(cc, "compile", "cc")
        o.set_cc(cc[0], cc[1])
    return o


def compile(pyfunc: Callable[..., Any], sig: Any, debug: bool = False, lineinfo: bool = False, device: bool = True,
            fastmath: bool | set[str] = False, cc: Any = None, opt: bool = True, abi: str = "c",
            abi_info: dict[str, str] | None = None, output: str = "ptx", cache: bool = False,
            forceinline: bool = False, launch_bounds: Any = None) -> tuple[str | bytes, Any]:
    """Compile ``pyfunc`` for ``sig``; returns ``(code, resty)``: PTX text (str) or LTO-IR (bytes), and the
    return type (declared, or inferred with Numba's rules). ``cache=True`` goes through the on-disk code
    cache (``CodeCache.default_directory()``, $CUBRIDGE_CACHE_DIR): a later process compiling the same
    source, signature and options for the same target with the same cubridge and libNVVM reads it back.
    ``forceinline`` (numba-cuda's option) is what cubridge does to the helpers a function calls anyway;
    ``launch_bounds`` (kernels, PTX) adds numba-cuda's ``.maxntid``/``.minnctapersm``/``.maxclusterrank``.
    ``output="llvm"`` returns the NVVM IR text the front end gives libNVVM instead (numba-cuda's spelling)."""
    bounds = _jit_options.jit_options(launch_bounds=launch_bounds, forceinline=forceinline)
    if bounds.launch_bounds and (device or output != "ptx"):
        raise ValueError("launch_bounds apply to kernels compiled to PTX (device=False, output='ptx')")
    r = _compile_result(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, output, cache)
    code = r.nvvm_ir if output == "llvm" else r.code
    if output == "ptx":
        code = _jit_options.kernel_directives(code.decode(), bounds)
    return code, _type_from_name(r.result_type)


def _compile_result(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, cc=None, opt=True,
                    abi="c", abi_info=None, output="ptx", cache=False):
    """compile()'s whole result, before numba-cuda's kernel directives: code, name, result_type, cooperative,
    raise_sites (for @cubridge.jit); for output="llvm", nvvm_ir in place of code."""
    o = _options(debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, output)
    source, name = _collect(pyfunc, o)
    if output == "llvm":  # the front end's NVVM IR, before libNVVM (numba-cuda's inspect_llvm)
        return _core._compile_source_to_ir(source, name, _signature_text(sig), o)
    compile_source = _core._compile_source_cached if cache else _core._compile_source
    r = compile_source(source, name, _signature_text(sig), o)
    log = _logging.debug_logger()
    if log is not None and not _toolkit_logged:
        _log_toolkit(log)
    if log is not None:
        t = r.timings
        log.debug("compiled %s for %s to %s%s: parse %.3f ms, type %.3f ms, emit %.3f ms, libNVVM %.3f ms",
                   name, _signature_text(sig), output, " (code cache hit)" if r.from_cache else
                   " (code cache miss)" if cache else "", t[0] * 1e3, t[1] * 1e3, t[2] * 1e3, t[3] * 1e3)
    return r


_toolkit_logged = False


def _log_toolkit(log) -> None:
    """Once per process, at the first compile logged: where libNVVM was found and where the toolkit was looked for."""
    global _toolkit_logged
    _toolkit_logged = True
    nvvm = _linker.toolkit_component("libNVVM")
    log.debug("toolkit: libNVVM %s from %s (%s); searched %s", nvvm["version"], nvvm["path"], nvvm["origin"],
               ", ".join(f"{h.path} ({h.origin})" for h in _core._toolkit_homes()) or "no CUDA home")


def compile_cache_stats() -> dict:
    """What the on-disk code cache did for this process's cached compilations (``@cubridge.jit``):
    ``{"hits": results read back, "misses": compilations, "stores": results written}``."""
    hits, misses, stores = _core._compile_cache_stats()
    return {"hits": hits, "misses": misses, "stores": stores}


def _current_cc():
    """Compute capability of the current context's device (device 0's primary context when none is current)."""
    return tuple(_core.current_context().device.compute_capability)


def compile_for_current_device(pyfunc: Callable[..., Any], sig: Any, debug: bool = False, lineinfo: bool = False,
                               device: bool = True, fastmath: bool | set[str] = False, opt: bool = True,
                               abi: str = "c", abi_info: dict[str, str] | None = None,
                               output: str = "ptx") -> tuple[str | bytes, Any]:
    """``compile`` with ``cc`` of the current device (needs a GPU)."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=_current_cc(),
                   opt=opt, abi=abi, abi_info=abi_info, output=output)


def compile_ptx(pyfunc: Callable[..., Any], sig: Any, debug: bool = False, lineinfo: bool = False,
                device: bool = False, fastmath: bool | set[str] = False, cc: Any = None, opt: bool = True,
                abi: str = "numba", abi_info: dict[str, str] | None = None, forceinline: bool = False,
                launch_bounds: Any = None) -> tuple[str | bytes, Any]:
    """PTX only, Numba ABI by default (``numba.cuda.compile_ptx``)."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc, opt=opt,
                   abi=abi, abi_info=abi_info, output="ptx", forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False,
                                   opt=True, abi="numba", abi_info=None):
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                       cc=_current_cc(), opt=opt, abi=abi, abi_info=abi_info)
