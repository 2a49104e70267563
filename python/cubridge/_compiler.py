"""The code face: compile Python functions to PTX or LTO-IR (C or Numba ABI), without a GPU.

``compile(pyfunc, sig, ...)`` reads the function's source (``inspect``), the module functions it calls,
and the numbers it sees in its globals and closure; cubridge's own front end (C++) parses, types (with
Numba's rules), emits NVVM IR and hands it to libNVVM. CPython never executes the function.
"""
from __future__ import annotations

import math as _math
import os
import sys
import types as _pytypes
from typing import Any

from . import _core, _intrinsics, _records
from ._core import CompileError

__all__ = [
    "compile", "compile_for_current_device", "compile_ptx", "compile_ptx_for_current_device", "CompileError",
    "compile_cache_stats",
    "NumberType", "TupleType", "ArrayType", "Signature", "UniTuple", "Tuple",
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
        if not ok or not dims or isinstance(self, (TupleType, ArrayType)):
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


boolean = bool_ = NumberType("bool")
int8, int16, int32, int64 = (NumberType(f"int{b}") for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (NumberType(f"uint{b}") for b in (8, 16, 32, 64))
intp, uintp = int64, uint64
float16, float32, float64 = (NumberType(f"float{b}") for b in (16, 32, 64))
complex64, complex128 = NumberType("complex64"), NumberType("complex128")
_BY_NAME = {t.name: t for t in (boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                                float16, float32, float64, complex64, complex128)}
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
    if isinstance(t, tuple):
        return Tuple(*(_as_type(e) for e in t))
    name = t if isinstance(t, str) else getattr(t, "name", None) or getattr(t, "__name__", None)
    if isinstance(name, str):
        if name == "bool_":
            name = "bool"
        try:
            result, args = _core._parse_signature(f"({name})")  # one type: "array(...)" is no signature
        except ValueError:
            pass
        else:
            if result is None and len(args) == 1:
                return _type_from_name(args[0])
    raise TypeError(f"{t!r} is not a type the compiler accepts; use cubridge.int32, ..., cubridge.complex128, "
                    f"a Numba type, a NumPy scalar type or a type name such as 'float32'")


def _signature_text(sig: Any) -> str:
    if isinstance(sig, str):
        return sig
    if isinstance(sig, Signature):
        return str(sig)
    if isinstance(sig, NumberType):  # one argument type
        return f"({sig.name})"
    if isinstance(sig, (tuple, list)):
        return "(" + ", ".join(_as_type(a).name for a in sig) + ")"
    # A Numba Signature object (has .args and .return_type).
    args = getattr(sig, "args", None)
    if args is not None:
        rt = getattr(sig, "return_type", None)
        inner = ", ".join(_as_type(a).name for a in args)
        if rt is not None and str(rt) in ("none", "void"):  # numba.void(...): a kernel's signature
            return f"void({inner})"
        return (f"{_as_type(rt).name}({inner})" if rt is not None else f"({inner})")
    raise TypeError(f"sig must be a signature string such as 'float32(float32, float32)', a tuple of argument "
                    f"types or a signature object like float32(float32, float32); got {sig!r}")


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


_ARRAY_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                 "float32", "float64", "complex64", "complex128"}


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
    # Keyed by the code object: a redefined function gets a new one, so the cache never goes stale.
    hit = _SOURCES.get(fn.__code__)
    if hit is not None:
        return hit
    hit = _read_source(fn)
    if len(_SOURCES) > 4096:
        _SOURCES.clear()
    _SOURCES[fn.__code__] = hit
    return hit


def _read_source(fn) -> tuple[str, str, int]:
    import inspect  # imported here: it costs ~10 ms at start-up, which the CLI never needs
    import textwrap
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise ValueError(f"cannot read the source of {getattr(fn, '__qualname__', fn)!r} ({e}); the compiler needs "
                         f"functions defined in a file (or use the C++ API / `cubridge compile` with the source)") from None
    filename = inspect.getsourcefile(fn) or getattr(fn.__code__, "co_filename", "<unknown>")
    return textwrap.dedent("".join(lines)), filename, max(first, 1)


def _collect(pyfunc, options) -> tuple[str, str]:
    """Fills options with constants, imports and extra units; returns (source, function name)."""
    fn = _random_stand_in(getattr(pyfunc, "py_func", pyfunc))  # numba dispatchers
    if not isinstance(fn, _pytypes.FunctionType):
        raise TypeError(f"pyfunc must be a Python function, got {type(pyfunc).__name__}")
    if fn.__name__ == "<lambda>":
        raise CompileError(f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}: a lambda cannot be compiled; "
                           f"define the function with def")
    source, filename, first = _source_of(fn)
    options.filename = filename
    options.first_line = first
    options.module_name = fn.__module__ or "__main__"
    seen: set = {fn}
    imports: list[str] = []
    queue = [fn]
    bound: set[str] = set()
    while queue:
        f = queue.pop()
        env: dict[str, Any] = {}
        if f.__closure__:
            env.update({n: c.cell_contents for n, c in zip(f.__code__.co_freevars, f.__closure__)
                        if _cell_ok(c)})
        names = _code_names(f.__code__)
        for n in names:
            if n not in env and n in f.__globals__:
                env[n] = f.__globals__[n]
        for n, v in env.items():
            if n in bound:
                continue
            inner = _random_stand_in(getattr(v, "py_func", v))
            if isinstance(v, _pytypes.ModuleType):
                imports.append(f"import {v.__name__} as {n}")
                for g in _random_functions_reached(v, names):  # cuda.random.X(...), rnd.X(...)
                    if g not in seen:
                        seen.add(g)
                        queue.append(g)
                        options.add_unit(*_source_of(g))
            elif _random_host_function(inner):  # refused by name where a kernel calls it
                imports.append(f"import {inner.__module__}.{inner.__name__} as {n}")
            elif isinstance(inner, _pytypes.FunctionType):
                random_name = _random_name(inner)
                if inner not in seen:
                    seen.add(inner)
                    queue.append(inner)
                    src, fname, line = _source_of(inner)
                    if inner.__name__ != n and random_name is None:
                        continue
                    options.add_unit(src, fname, line)
                if random_name is not None and random_name != n:  # from numba.cuda.random import X as Y
                    imports.append(f"import cubridge.random.{random_name} as {n}")
            elif isinstance(v, _intrinsics.Intrinsic):  # from cubridge import grid
                imports.append(f"import cubridge.{v._name} as {n}")
            elif isinstance(inner, type) and inner.__module__.startswith("numba.cuda"):  # from numba.cuda import grid
                imports.append(f"import numba.cuda.{inner.__name__} as {n}")
            elif isinstance(v, NumberType) and not isinstance(v, (TupleType, ArrayType)):
                imports.append(f"from numpy import {v.name} as {n}")  # cubridge.float32(x) casts
            elif callable(v) and getattr(v, "__module__", None) in ("math", "numpy", "numba", "numba.core.types.scalars"):
                mod = "math" if v.__module__ == "math" else "numpy"
                imports.append(f"from {mod} import {getattr(v, '__name__', n)} as {n}")
            elif (d := _records.dtype_name(v)) is not None:  # cuda.local.array(n, dtype=rec)
                options.add_dtype(n, d)
            elif (c := _constant(v)) is not None:
                options.add_constant(n, c[0], c[1])
            elif (a := _constant_array(v)) is not None:
                options.add_constant_array(n, *a)
            else:
                continue
            bound.add(n)
    if imports:
        options.add_unit("\n".join(imports) + "\n", "<imports>", 1)
    return source, fn.__name__


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


def _random_name(f) -> str | None:
    if f.__module__ != _RANDOM_MODULES[1]:
        return None
    return f.__name__ if _random_device_functions().get(f.__name__) is f else None


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
    if output not in ("ptx", "ltoir"):
        raise ValueError(f"output must be 'ptx' or 'ltoir', got {output!r}")
    o = _core._CompileOptions()
    o.debug, o.lineinfo, o.device, o.fastmath, o.opt = bool(debug), bool(lineinfo), bool(device), bool(fastmath), bool(opt)
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
        if isinstance(cc, str):
            parts = cc.replace("sm_", "").replace("compute_", "")
            cc = (int(parts.split(".")[0]), int(parts.split(".")[1])) if "." in parts else (int(parts[:-1]), int(parts[-1]))
        if not (isinstance(cc, tuple) and len(cc) == 2 and all(isinstance(x, int) for x in cc)):
            raise ValueError(f"cc must be a (major, minor) tuple such as (9, 0), got {cc!r}")
        o.set_cc(cc[0], cc[1])
    return o


def compile(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, cc=None, opt=True,
            abi="c", abi_info=None, output="ptx", cache=False):
    """Compile ``pyfunc`` for ``sig``; returns ``(code, resty)``: PTX text (str) or LTO-IR (bytes), and the
    return type (declared, or inferred with Numba's rules). ``cache=True`` goes through the on-disk code
    cache (``CodeCache.default_directory()``, $CUBRIDGE_CACHE_DIR): a later process compiling the same
    source, signature and options for the same target with the same cubridge and libNVVM reads it back."""
    o = _options(debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, output)
    source, name = _collect(pyfunc, o)
    compile_source = _core._compile_source_cached if cache else _core._compile_source
    r = compile_source(source, name, _signature_text(sig), o)
    code = r.code
    return (code.decode() if output == "ptx" else code), _type_from_name(r.result_type)


def compile_cache_stats() -> dict:
    """What the on-disk code cache did for this process's cached compilations (``@cubridge.jit``):
    ``{"hits": results read back, "misses": compilations, "stores": results written}``."""
    hits, misses, stores = _core._compile_cache_stats()
    return {"hits": hits, "misses": misses, "stores": stores}


def _current_cc():
    """Compute capability of the current context's device (device 0's primary context when none is current)."""
    return tuple(_core.current_context().device.compute_capability)


def compile_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, opt=True,
                               abi="c", abi_info=None, output="ptx"):
    """``compile`` with ``cc`` of the current device (needs a GPU)."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=_current_cc(),
                   opt=opt, abi=abi, abi_info=abi_info, output=output)


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, cc=None, opt=True,
                abi="numba", abi_info=None):
    """PTX only, Numba ABI by default (``numba.cuda.compile_ptx``)."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc, opt=opt,
                   abi=abi, abi_info=abi_info, output="ptx")


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False,
                                   opt=True, abi="numba", abi_info=None):
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                       cc=_current_cc(), opt=opt, abi=abi, abi_info=abi_info)


# ---- `cubridge compile FILE.py:FUNC --sig ... -o OUT` ----

def cli_compile(argv: list[str]) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="cubridge compile",
                                description="Compile a Python function to PTX or LTO-IR (no CPython execution, no GPU).")
    p.add_argument("target", help="FILE.py:FUNC")
    p.add_argument("--sig", required=True, help="e.g. 'float32(float32, float32)' or '(int32, int32)'")
    p.add_argument("--abi", choices=("c", "numba"), default="c")
    p.add_argument("--abi-name", default=None)
    p.add_argument("--output", choices=("ptx", "ltoir"), default="ptx")
    p.add_argument("--cc", default=None, help="compute capability, e.g. 9.0")
    p.add_argument("--fastmath", action="store_true")
    p.add_argument("--lineinfo", action="store_true")
    p.add_argument("--debug", action="store_true")
    p.add_argument("--kernel", action="store_true", help="compile a kernel (device=False)")
    p.add_argument("-O0", dest="O0", action="store_true", help="disable optimisation")
    p.add_argument("-o", dest="out", required=True, help="output file ('-' for stdout)")
    p.add_argument("--timings", action="store_true", help="print where the time went to stderr")
    a = p.parse_args(argv)
    path, sep, func = a.target.rpartition(":")
    if not sep or not path or not func:
        print(f"cubridge compile: expected FILE.py:FUNC, got {a.target!r}", file=sys.stderr)
        return 2
    try:
        with open(path, encoding="utf-8") as fh:
            source = fh.read()
    except OSError as e:
        print(f"cubridge compile: cannot read {path}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        o = _options(a.debug, a.lineinfo, not a.kernel, a.fastmath, a.cc, not a.O0, a.abi,
                     {"abi_name": a.abi_name} if a.abi_name else None, a.output)
        o.filename = path
        o.module_name = os.path.splitext(os.path.basename(path))[0]
        r = _core._compile_source(source, func, a.sig, o)
    except (ValueError, TypeError, RuntimeError) as e:
        print(f"cubridge compile: {e}", file=sys.stderr)
        return 1
    code = r.code
    if a.out == "-":
        sys.stdout.buffer.write(code)
    else:
        with open(a.out, "wb") as fh:
            fh.write(code)
    if a.timings:
        t = r.timings
        print(f"parse {t[0]*1e3:.3f} ms, type {t[1]*1e3:.3f} ms, emit {t[2]*1e3:.3f} ms, libNVVM {t[3]*1e3:.3f} ms; "
              f"{r.name} -> {r.result_type}", file=sys.stderr)
    return 0
