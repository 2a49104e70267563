"""Python operators for CCCL's Python algorithms (``cuda.compute``), compiled by cubridge instead of numba::

    import numpy as np, cuda.compute, cubridge.cccl
    add = cubridge.cccl.op(lambda a, b: a + b, "float32(float32, float32)")
    cuda.compute.reduce_into(d_in=x, d_out=out, op=add, num_items=x.size, h_init=np.zeros(1, np.float32))

``op`` returns ``cuda.compute``'s ``RawOp``: LTO-IR with the C ABI its algorithms call, every operand and
the result passed by address (``void name(void* a, void* b, void* result)``; a stateful operator takes
``void* state`` first). The Python function is compiled by cubridge's front end (C ABI, by value) and a
CUDA C++ shim compiled by NVRTC adapts the addresses to it; nvJitLink inlines both into CCCL's kernels.
``state`` makes a stateful operator: NumPy scalars passed to the function before the operands, packed
into the RawOp's state bytes. The LTO-IR depends only on their types, so a new ``op`` with other values
reuses the compiled code (here, and in ``cuda.compute``'s build cache). Nothing here imports numba.
``compile_op`` gives the parts (an ``Operator``) without importing cuda.compute. Rules and figures:
docs/native-ops.md.
"""
from __future__ import annotations

import ast
import dataclasses
import hashlib
import inspect
import linecache
import re
import types

import numpy as np

from . import compile as _compile, current_context, nvrtc_compile

__all__ = ["Operator", "compile_op", "op"]

#: The scalar types an operator may take and return, with their CUDA C++ spelling.
C_TYPES = {"bool": "bool", "int8": "signed char", "int16": "short", "int32": "int", "int64": "long long",
           "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
           "uint64": "unsigned long long", "float32": "float", "float64": "double"}

_SIG = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*$")
_shims: dict[tuple[str, tuple], bytes] = {}  # (shim source, cc) -> LTO-IR


class _ValueType:
    """An operand or result type: a scalar, or a struct (a NumPy structured dtype, as cuda.compute's
    gpu_struct has) of scalar fields, which the Python function sees as a tuple of its fields in order.
    `spelling` is cubridge's ('float32', 'Tuple(float32, int32)'), `fields` the (C type, offset) pairs."""

    __slots__ = ("spelling", "fields", "names", "struct")

    def __init__(self, t, sig):
        dtype = None
        if isinstance(t, str):
            if t not in C_TYPES:
                raise TypeError(f"cccl.op: type {t!r} in signature {sig!r} is not an operator type; accepted: "
                                f"{', '.join(C_TYPES)}, or a NumPy structured dtype of them")
            dtype = np.dtype(t)
        else:
            try:
                dtype = getattr(t, "dtype", None) if not isinstance(t, np.dtype) else t
                dtype = np.dtype(t) if dtype is None else dtype
            except TypeError:
                dtype = None
        if not isinstance(dtype, np.dtype):
            raise TypeError(f"cccl.op: {t!r} in signature {sig!r} is neither a type name nor a NumPy dtype")
        self.struct = dtype.fields is not None
        parts = [(dtype.fields[n][0], dtype.fields[n][1]) for n in dtype.names] if self.struct else [(dtype, 0)]
        for d, _ in parts:
            if d.name not in C_TYPES or d.subdtype is not None:
                raise TypeError(f"cccl.op: {dtype} in signature {sig!r} holds {d}, which is not an operator type; "
                                f"accepted: {', '.join(C_TYPES)}")
        self.fields = [(C_TYPES[d.name], off) for d, off in parts]
        self.names = names = [d.name for d, _ in parts]
        self.spelling = f"Tuple({', '.join(names)})" if self.struct else names[0]


def _parse(sig) -> tuple[_ValueType, list[_ValueType]]:
    if isinstance(sig, str):
        m = _SIG.match(sig)
        if m is None:
            raise TypeError(f"cccl.op: signature {sig!r} is not text such as 'float32(float32, float32)' (the result "
                            "type, then the operand types)")
        result, args = m.group(1), [a.strip() for a in m.group(2).split(",") if a.strip()]
    elif isinstance(sig, tuple) and len(sig) == 2 and isinstance(sig[1], (tuple, list)):
        result, args = sig
    else:
        raise TypeError(f"cccl.op: signature {sig!r} is not text such as 'float32(float32, float32)' (the result "
                        "type, then the operand types) nor a pair (result, [operand types]) of names or dtypes")
    if not args:
        raise TypeError(f"cccl.op: signature {sig!r} has no operands; CCCL's operators take 1 or more")
    return _ValueType(result, sig), [_ValueType(a, sig) for a in args]


def _state_values(state) -> list[np.generic]:
    values = list(state) if isinstance(state, (tuple, list)) else [state]
    for v in values:
        if not isinstance(v, np.generic) or v.dtype.name not in C_TYPES:
            raise TypeError(f"cccl.op: state value {v!r} ({type(v).__name__}) is not a NumPy scalar of an operator "
                            f"type ({', '.join(C_TYPES)}), e.g. numpy.float32(2.0)")
    return values


def _layout(types: list[str]) -> tuple[list[int], int, int]:
    """(offsets, size, alignment) of the state fields packed in order, each at its natural alignment."""
    offsets, size, align = [], 0, 1
    for t in types:
        n = np.dtype(t).itemsize
        size = (size + n - 1) // n * n
        offsets.append(size)
        size += n
        align = max(align, n)
    return offsets, size, align


def _shim(name: str, result: _ValueType, state: list[str], offsets: list[int], args: list[_ValueType]) -> str:
    """CUDA C++ defining `name` with CCCL's ABI: each operand read through its address (a struct field by
    field, passed as that many scalars, as cubridge's C ABI passes a tuple), the Python function called by
    value and its result stored through `result`: a struct result field by field, from one function per field
    (`name`_impl<k>, see _field_source: a returned tuple's IR type is no C++ type, so NVRTC's declaration of it
    would not match and LTO would not inline the call)."""
    decl = ", ".join([C_TYPES[t] for t in state] + [c for a in args for c, _ in a.fields])
    params = (["void* state"] if state else []) + [f"void* a{i}" for i in range(len(args))] + ["void* result"]
    values = [f"*reinterpret_cast<const {C_TYPES[t]}*>(static_cast<const char*>(state) + {o})"
              for t, o in zip(state, offsets)]
    values += [f"*reinterpret_cast<const {c}*>(static_cast<const char*>(a{i}) + {o})"
               for i, a in enumerate(args) for c, o in a.fields]
    impls = [f"{name}_impl"] if not result.struct else [f"{name}_impl{k}" for k in range(len(result.fields))]
    lines = [f'extern "C" __device__ {c} {impl}({decl});' for impl, (c, _) in zip(impls, result.fields)]
    lines.append(f'extern "C" __device__ void {name}({", ".join(params)}) {{')
    lines += [f"  *reinterpret_cast<{c}*>(static_cast<char*>(result) + {o}) = {impl}({', '.join(values)});"
              for impl, (c, o) in zip(impls, result.fields)]
    return "\n".join(lines) + "\n}\n"


def _field_source(k: int, state: list[str], args: list[_ValueType]) -> str:
    """A def returning field `k` of what cccl_operator returns, taking the operands' fields as scalars."""
    params = [f"s{i}" for i in range(len(state))]
    call = list(params)
    for i, a in enumerate(args):
        fields = [f"a{i}_{j}" for j in range(len(a.fields))]
        params += fields
        call.append(f"({', '.join(fields)},)" if a.struct else fields[0])
    return f"def cccl_field_{k}({', '.join(params)}):\n    return cccl_operator({', '.join(call)})[{k}]\n"


def _impls(func, name: str, result: _ValueType, args: list[_ValueType], state: list[str], cc) -> list[bytes]:
    """The LTO-IR of the Python function (one per field of a struct result, each a def calling it)."""
    operator = _named(func)
    if not result.struct:
        sig = f"{result.spelling}({', '.join(state + [a.spelling for a in args])})"
        return [_compile(operator, sig, abi="c", abi_info={"abi_name": f"{name}_impl"}, output="ltoir", cc=cc,
                         cache=True)[0]]
    flat = ", ".join(state + [n for a in args for n in a.names])
    codes = []
    for k, field in enumerate(result.names):
        filename = f"<cubridge.cccl {name} field {k}>"
        text = _field_source(k, state, args)
        linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
        namespace = {"cccl_operator": operator, "__name__": getattr(func, "__module__", None) or "__main__"}
        exec(compile(text, filename, "exec"), namespace)
        codes.append(_compile(namespace[f"cccl_field_{k}"], f"{field}({flat})", abi="c",
                              abi_info={"abi_name": f"{name}_impl{k}"}, output="ltoir", cc=cc, cache=True)[0])
    return codes


def _module_tree(filename: str) -> ast.Module:
    """The parsed text of a file (a lambda's statement may span lines, so the whole module is read)."""
    lines = linecache.getlines(filename)
    if not lines:
        raise OSError(filename)
    return ast.parse("".join(lines), filename)


def _named(func):
    """A lambda as a def cubridge's front end takes (it compiles functions from their source text): the
    lambda's expression, read from its line, returned by a def registered in linecache, its closure's
    values bound as globals (cubridge folds both the same way)."""
    if func.__name__ != "<lambda>":
        return func
    code = func.__code__
    where = f"{code.co_filename}:{code.co_firstlineno}"
    try:
        tree = _module_tree(inspect.getsourcefile(func) or code.co_filename)
    except (OSError, TypeError, SyntaxError, ValueError):
        raise TypeError(f"cccl.op: the lambda at {where} has no source file to read it from; define the operator "
                        "with def") from None
    names = list(code.co_varnames[:code.co_argcount])
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno
             and [a.arg for a in n.args.args] == names and not n.args.kwonlyargs and not n.args.vararg]
    if len(found) > 1 and hasattr(code, "co_positions"):  # several on the line: the one holding the code's columns
        spans = [(p[0], p[2]) for p in code.co_positions() if p[0] is not None and p[2] is not None]
        found = [n for n in found if any((n.body.lineno, n.body.col_offset) <= sp
                                         <= (n.body.end_lineno, n.body.end_col_offset) for sp in spans)]
    if len(found) != 1:
        raise TypeError(f"cccl.op: {len(found)} lambdas of parameters ({', '.join(names)}) match the one at {where}; "
                        "define the operator with def")
    filename = f"<cubridge.cccl lambda {where}>"
    text = f"def cccl_operator({', '.join(names)}):\n    return {ast.unparse(found[0].body)}\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    namespace = dict(func.__globals__)
    namespace.update(zip(code.co_freevars, (c.cell_contents for c in func.__closure__ or ())))
    exec(compile(text, filename, "exec"), namespace)
    return namespace["cccl_operator"]


def _code(func, result: _ValueType, args: list[_ValueType], state: list[str], cc) -> tuple[str, list[bytes]]:
    """(symbol, [shim LTO-IR, operator LTO-IR]). The operator goes through cubridge's code cache, keyed by
    its source, the constants it folds and the signature; the shim is a function of its text alone."""
    code = func.__code__
    # The symbol differs with what the code folds (closure and global numbers), so two operators of the same
    # text and other constants can be linked into one program.
    folded = [c.cell_contents for c in func.__closure__ or ()]
    folded += [v for n in code.co_names if isinstance(v := func.__globals__.get(n), (int, float, complex, np.generic))]
    layout = [(t.spelling, t.fields) for t in (result, *args)]
    digest = hashlib.sha1(repr((code.co_code, code.co_consts, folded, layout, state)).encode()).hexdigest()[:16]
    name = f"cubridge_op_{digest}"
    impls = _impls(func, name, result, args, state, cc)
    source = _shim(name, result, state, _layout(state)[0], args)
    shim = _shims.get((source, cc))
    if shim is None:
        shim = _shims[(source, cc)] = nvrtc_compile(source, f"{name}.cu", cc, output="ltoir").code
    return name, [shim, *impls]


@dataclasses.dataclass(frozen=True)
class Operator:
    """A compiled operator: `name` is the symbol CCCL calls, `ltoir` the shim that defines it and
    `extra_ltoirs` the Python function's code; `state` the packed state bytes (empty: stateless)."""

    name: str
    ltoir: bytes
    extra_ltoirs: tuple[bytes, ...]
    state: bytes = b""
    state_alignment: int = 1

    def raw_op(self):
        """``cuda.compute.op.RawOp`` of this operator (needs cuda-cccl; its import needs a CUDA driver)."""
        from cuda.compute.op import RawOp  # cuda-cccl is optional: needed only here
        return RawOp(ltoir=self.ltoir, name=self.name, extra_ltoirs=list(self.extra_ltoirs), state=self.state,
                     state_alignment=self.state_alignment)


def compile_op(func, sig, *, state=(), cc=None) -> Operator:
    """Compiles `func` (a Python function or lambda cubridge's front end takes) for `sig` ('float32(float32,
    float32)': result type, then operand types; or a pair ``(result, [operands])`` whose types may be NumPy
    structured dtypes or cuda.compute gpu_structs, seen by `func` as tuples of their fields) with CCCL's
    operator ABI; needs no GPU when `cc` is given.
    `state`: NumPy scalars passed first to `func` (a stateful operator). `cc`: the target (default: the
    current device's compute capability)."""
    if not isinstance(func, types.FunctionType):
        raise TypeError(f"cccl.op: {func!r} ({type(func).__name__}) is not a Python function")
    result, args = _parse(sig)
    values = _state_values(state)
    kinds = [v.dtype.name for v in values]
    if cc is None:
        cc = current_context().device.compute_capability
    name, (shim, *impls) = _code(func, result, args, kinds, tuple(cc))
    offsets, size, align = _layout(kinds)
    packed = bytearray(size)
    for v, o in zip(values, offsets):
        packed[o:o + v.dtype.itemsize] = v.tobytes()
    return Operator(name, shim, tuple(impls), bytes(packed), align)


def op(func, sig, *, state=(), cc=None):
    """``cuda.compute.op.RawOp`` running `func` (e.g. ``lambda a, b: a + b``) for signature `sig`; see
    compile_op for the arguments. Hand it to cuda.compute's algorithms as their ``op``."""
    return compile_op(func, sig, state=state, cc=cc).raw_op()
