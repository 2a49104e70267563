"""XLA custom calls from Python: register a classic target once, call it inside ``jax.jit``.

A target is written once in the classic signature (CPU ``void(void* out, const void** in[, ...])``,
GPU ``void(CUstream, void** buffers, const char* opaque, size_t opaque_len[, status])``; see
``include/cubridge/xla/custom_call.h``). cubridge serves it through XLA's typed FFI (the default,
``via="ffi"``: failures reach Python, GPU calls can be captured in CUDA graphs) or, where the installed
jaxlib still allows, through XLA's classic custom-call path (``via="classic"``)::

    lib = cubridge.xla.examples_library()          # or your own .so, a ctypes.CDLL, or a PyCapsule
    cubridge.xla.register(lib, "cubridge_example_add_mod", "cpu")
    f = jax.jit(lambda b, c: cubridge.xla.custom_call(
        "cubridge_example_add_mod", jax.ShapeDtypeStruct(c.shape, c.dtype), b, c,
        opaque={"n": c.size, "m": b.size}))
"""
from __future__ import annotations

import ctypes
import os
import struct
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from . import _core, _scalar_types

__all__ = ["register", "custom_call", "encode_opaque", "decode_opaque", "validate_opaque", "OpaqueShape",
           "adapter_available", "examples_library", "registered"]

_JAX_PLATFORM = {"Host": "cpu", "CUDA": "CUDA"}
_OPAQUE_ATTR = "cubridge_opaque"
_LAYOUT_ATTR = "cubridge_layout"


class _Registration(NamedTuple):
    name: str
    platform: str  # "Host" or "CUDA"
    api_version: int
    via: str  # "ffi" or "classic"


_registered: dict[tuple[str, str], _Registration] = {}
_libraries: list[Any] = []  # keeps every library a target came from loaded for the life of the process


def adapter_available() -> bool:
    """True: every build has the typed-FFI adapter (cubridge declares XLA's FFI C ABI itself, so no jaxlib
    is needed at build time). Kept for code written when the adapter was optional."""
    return bool(_core._xla_adapter_available())


def examples_library() -> Path:
    """The library of seed example targets shipped with cubridge (used by the tests and bench)."""
    path = Path(__file__).with_name("libcubridge_xla_examples.so")
    if not path.exists():
        raise FileNotFoundError(f"cubridge's XLA example library is not installed at {path}")
    return path


def registered() -> list[tuple[str, str, int, str]]:
    """(name, platform, api_version, via) of every target registered through this module."""
    return [tuple(r) for r in _registered.values()]


def _require_jax():
    try:
        import jax
        import jax.ffi  # noqa: F401
    except ImportError as e:
        raise RuntimeError(f"cubridge.xla needs jax, which is not importable here ({e})") from e
    return jax


# --- opaque bytes ------------------------------------------------------------------------------------

class OpaqueShape(NamedTuple):
    """A shape entry of opaque bytes: a dtype name ("float32", "bf16", ...) and dimensions."""
    dtype: str
    dims: tuple[int, ...]


# An opaque shape's element type is its row of the scalar-type table + 1 (cubridge/xla/shape.hpp).
_ELEMENT_TYPES = [r.name for r in _scalar_types.ROWS]
_XLA_NAMES = [r.xla for r in _scalar_types.ROWS]


def _element_code(dtype) -> int:
    name = str(getattr(dtype, "name", dtype))
    for table in (_ELEMENT_TYPES, _XLA_NAMES):
        if name in table:
            return table.index(name) + 1
    raise ValueError(f"opaque shape dtype {name!r} is not one of {', '.join(_ELEMENT_TYPES)}")


def _encode_entry(name: str, value) -> bytes:
    key = name.encode("utf-8", "surrogateescape")  # the inverse of decode_opaque's names
    if not 1 <= len(key) <= 255:
        raise ValueError(f"opaque entry name {name!r} has {len(key)} bytes: names have 1 to 255 bytes")
    head = lambda kind: struct.pack("<BB", kind, len(key)) + key  # noqa: E731
    if isinstance(value, bool) or isinstance(value, int) or type(value).__name__.startswith(("int", "uint")):
        v = int(value)
        if not -2**63 <= v < 2**63:
            raise ValueError(f"opaque entry {name!r}: {v} does not fit in int64")
        return head(1) + struct.pack("<q", v)
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        return head(2) + struct.pack("<d", float(value))
    if isinstance(value, str):
        value = value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        value = bytes(value)
        return head(3) + struct.pack("<I", len(value)) + value
    if isinstance(value, OpaqueShape) or (hasattr(value, "shape") and hasattr(value, "dtype")):
        dtype, dims = (value.dtype, value.dims) if isinstance(value, OpaqueShape) else (value.dtype, value.shape)
        dims = tuple(int(d) for d in dims)
        if len(dims) > 64 or any(d < 0 for d in dims):
            raise ValueError(f"opaque entry {name!r}: shape {dims} needs rank ≤ 64 and dimensions ≥ 0")
        return head(5) + struct.pack("<BB", _element_code(dtype), len(dims)) + struct.pack(f"<{len(dims)}q", *dims)
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return head(4) + struct.pack(f"<I{len(value)}q", len(value), *value)
    raise TypeError(f"opaque entry {name!r}: a {type(value).__name__} cannot be encoded; use int, float, "
                    "bytes, str, a list of ints, or a shape (OpaqueShape or anything with .shape and .dtype)")


def encode_opaque(fields: Mapping[str, Any] | None = None, /, **more) -> bytes:
    """Encodes named attributes in cubridge's opaque format (v1; read in C++ by cubridge::xla::OpaqueReader)."""
    items = {**(fields or {}), **more}
    if len(items) > 0xFFFF:
        raise ValueError(f"opaque: {len(items)} entries, at most 65535")
    body = b"".join(_encode_entry(k, v) for k, v in items.items())
    return b"CBXO" + struct.pack("<BBH", 1, 0, len(items)) + body


def validate_opaque(data: bytes) -> int:
    """Checks `data` with the C++ reader the targets use; returns the entry count or raises ValueError."""
    return int(_core._xla_opaque_validate(bytes(data)))


def decode_opaque(data: bytes) -> dict[str, Any]:
    """The entries of opaque bytes, read by the C++ reader the targets use (one parser, so errors read the
    same). Names that are not UTF-8 keep their bytes as surrogate escapes, so distinct names stay distinct
    keys (and encode_opaque writes them back unchanged)."""
    out: dict[str, Any] = {}
    for name, value in _core._xla_opaque_decode(bytes(data)):
        if isinstance(value, tuple):
            value = OpaqueShape(value[0], tuple(value[1]))
        out[name.decode("utf-8", "surrogateescape")] = value
    return out


# --- registration ------------------------------------------------------------------------------------

def _capsule_pointer(capsule) -> int:
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return int(get_pointer(capsule, get_name(capsule)))


def _symbol_address(lib, symbol: str) -> int | None:
    try:
        return ctypes.cast(getattr(lib, symbol), ctypes.c_void_p).value
    except AttributeError:
        return None


def _resolve(target, name: str, platform: str, api_version: int | None, graphs: bool | None):
    """(function address, api_version, command-buffer compatible) of `target` for (name, platform)."""
    if type(target).__name__ == "PyCapsule":
        if api_version is None:
            raise ValueError(f"register({name!r}): a PyCapsule does not say its signature: pass "
                             "api_version=1, 2 or 3 (see cubridge/xla/custom_call.h)")
        return _capsule_pointer(target), api_version, True if graphs is None else graphs
    if isinstance(target, ctypes._CFuncPtr):
        if api_version is None:
            raise ValueError(f"register({name!r}): a ctypes function does not say its signature: pass "
                             "api_version=1, 2 or 3")
        _libraries.append(target)
        return ctypes.cast(target, ctypes.c_void_p).value, api_version, True if graphs is None else graphs
    if isinstance(target, (str, os.PathLike)):
        target = ctypes.CDLL(os.fspath(target))
    if not isinstance(target, ctypes.CDLL):
        raise TypeError(f"register({name!r}): target must be a PyCapsule, a ctypes function, a ctypes.CDLL "
                        f"or a path to a shared library, not {type(target).__name__}")
    _libraries.append(target)
    descriptor = _symbol_address(target, f"cubridge_xla_target_{name}")
    if descriptor is not None:
        d_name, d_platform, d_api, fn, d_graphs = _core._xla_read_descriptor(descriptor)
        if d_platform != platform:
            raise ValueError(f"register({name!r}): the library registers this target for {d_platform!r}, "
                             f"not {platform!r}")
        if api_version is not None and api_version != d_api:
            raise ValueError(f"register({name!r}): api_version={api_version} but the library's descriptor "
                             f"says {d_api} (taken from the function's signature)")
        return fn, d_api, d_graphs if graphs is None else graphs
    fn = _symbol_address(target, name)
    if fn is None:
        raise ValueError(f"register({name!r}): {target._name} exports neither "
                         f"'cubridge_xla_target_{name}' nor '{name}'")
    if api_version is None:
        raise ValueError(f"register({name!r}): '{name}' has no cubridge descriptor "
                         "(CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET), so pass api_version=1, 2 or 3")
    return fn, api_version, True if graphs is None else graphs


def register(target, name: str, platform: str = "cpu", *, api_version: int | None = None,
             command_buffer_compatible: bool | None = None, via: str = "ffi") -> None:
    """Registers the classic target `name` for `platform` ("cpu"/"Host" or "cuda"/"CUDA") with XLA.

    `target` is a shared library (path or ctypes.CDLL) exporting the target's descriptor
    (CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET) or the bare function, a ctypes function, or a PyCapsule
    holding the function pointer; `api_version` (1, 2, 3) is needed only when no descriptor says it.
    ``via="ffi"`` (default) serves it through cubridge's typed-FFI adapter; ``via="classic"`` registers
    it on XLA's classic path (api_version=0), where jaxlib still accepts that and where failures
    cannot be reported. GPU targets are command-buffer compatible unless told otherwise.
    """
    jax = _require_jax()
    canonical = _core._xla_platform_name(platform)
    if via not in ("ffi", "classic"):
        raise ValueError(f"register({name!r}): via={via!r} is not 'ffi' or 'classic'")
    key = (name, canonical)
    if key in _registered:
        raise ValueError(f"xla target {name!r} is already registered for {canonical}: a (name, platform) "
                         "pair can be registered once")
    fn, api, graphs = _resolve(target, name, canonical, api_version, command_buffer_compatible)
    if api not in (1, 2, 3):
        raise ValueError(f"register({name!r}): api_version {api} is not one of 1, 2, 3")
    for (other, other_platform), r in _registered.items():
        if other == name and r.via != via:
            raise ValueError(f"xla target {name!r} is registered via {r.via!r} for {other_platform}; register "
                             f"it via {r.via!r} for {canonical} too (one name, one calling convention)")
    if via == "ffi":
        handler = _core._xla_register_adapted(name, canonical, api, fn, bool(graphs))
        jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(handler), platform=_JAX_PLATFORM[canonical],
                                    api_version=1)
    else:
        _core._xla_register_classic(name, canonical, api, fn)
        jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(fn), platform=_JAX_PLATFORM[canonical],
                                    api_version=0)
    _registered[key] = _Registration(name, canonical, api, via)


# --- calling -----------------------------------------------------------------------------------------

def _flatten(tree, leaves: list, codes: list) -> None:
    """Pre-order leaves of nested tuples/lists, and the layout codes (-1 leaf, k a k-tuple)."""
    if isinstance(tree, (tuple, list)):
        codes.append(len(tree))
        for t in tree:
            _flatten(t, leaves, codes)
    else:
        codes.append(-1)
        leaves.append(tree)


def _unflatten(tree, leaves):
    if isinstance(tree, (tuple, list)):
        return tuple(_unflatten(t, leaves) for t in tree)
    return next(leaves)


def custom_call(name: str, result_shape_dtypes, *args, opaque: bytes | Mapping[str, Any] = b"",
                vmap_method: str | None = None, has_side_effect: bool = False):
    """Calls the registered target `name` (usable inside ``jax.jit`` and ``jax.shard_map``).

    `result_shape_dtypes` is one ``jax.ShapeDtypeStruct`` (or anything with .shape/.dtype) for a single
    result, or a (nested) tuple of them for a tuple result, which is returned with the same structure.
    `args` may be nested tuples (the classic convention's tuple operands). `opaque` is bytes passed to
    the target unchanged, or a mapping encoded with encode_opaque().
    """
    jax = _require_jax()
    import numpy as np

    regs = [r for (n, _), r in _registered.items() if n == name]
    if not regs:
        known = ", ".join(sorted({n for n, _ in _registered})) or "none"
        raise ValueError(f"custom_call: {name!r} is not registered through cubridge.xla.register "
                         f"(registered: {known})")
    reg = regs[0]
    if isinstance(opaque, Mapping):
        opaque = encode_opaque(opaque)
    if not isinstance(opaque, (bytes, bytearray, memoryview)):
        raise TypeError(f"custom_call({name!r}): opaque must be bytes or a mapping, not {type(opaque).__name__}")
    opaque = bytes(opaque)

    operand_leaves, codes = [], [len(args)]
    for a in args:
        _flatten(a, operand_leaves, codes)
    result_leaves: list = []
    _flatten(result_shape_dtypes, result_leaves, codes)
    single = not isinstance(result_shape_dtypes, (tuple, list))
    # Without a layout attribute the adapter assumes plain operands and a single result or a flat
    # tuple of several; anything else (tuple operands, nested or 1-tuples of results) is spelled out.
    tuple_operand = any(isinstance(a, (tuple, list)) for a in args)
    flat_results = single or (all(not isinstance(r, (tuple, list)) for r in result_shape_dtypes)
                              and len(result_shape_dtypes) != 1)
    plain = not tuple_operand and flat_results
    out_types = [jax.ShapeDtypeStruct(r.shape, r.dtype) for r in result_leaves]
    kwargs = {}
    if vmap_method is not None:
        kwargs["vmap_method"] = vmap_method
    if reg.via == "classic":
        if tuple_operand:
            raise ValueError(f"custom_call({name!r}): tuple operands need via='ffi' (XLA's classic path "
                             "flattens CPU tuple operands instead of nesting them)")
        if any(b >= 0x80 for b in opaque):
            raise ValueError(f"custom_call({name!r}): the classic path passes opaque as text, so bytes "
                             "≥ 0x80 cannot pass unchanged; use via='ffi'")
        call = jax.ffi.ffi_call(name, out_types if not single else out_types[0], has_side_effect=has_side_effect,
                                custom_call_api_version=reg.api_version,
                                legacy_backend_config=opaque.decode("latin-1"), **kwargs)
        results = call(*operand_leaves)
    else:
        attrs = {}
        if opaque:
            attrs[_OPAQUE_ATTR] = np.frombuffer(opaque, dtype=np.uint8)
        if not plain:
            attrs[_LAYOUT_ATTR] = np.asarray(codes, dtype=np.int32)
        call = jax.ffi.ffi_call(name, out_types if not single else out_types[0], has_side_effect=has_side_effect,
                                **kwargs)
        results = call(*operand_leaves, **attrs)
    if single:
        return results
    return _unflatten(result_shape_dtypes, iter(results))
