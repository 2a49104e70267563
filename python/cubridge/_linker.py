"""Toolkit discovery (libNVVM, libdevice, nvJitLink, NVRTC, ptxas), libNVVM and NVRTC compilation,
nvJitLink linking and the on-disk code cache, re-exported by cubridge.

Everything here runs without a GPU; only a missing ``arch`` falls back to the current device's.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from . import _core
from ._core import CodeCache, LinkError, NvrtcError, NvvmError, PtxasResult, ToolkitError

__all__ = [
    "toolkit_info", "toolkit_component", "toolkit_homes", "ToolkitError", "NvvmError", "LinkError", "NvrtcError",
    "nvvm_compile", "nvvm_supported_archs", "nvrtc_compile", "NvrtcResult",
    "Linker", "LinkResult", "link", "CodeCache", "ptxas_check", "PtxasResult",
]

_INPUT_KINDS = ("ptx", "ltoir", "cubin", "fatbin", "object", "library")


def toolkit_info() -> list[dict[str, Any]]:
    """One dict per toolkit component: name, found, path, version, source ("variables", "wheels", "conda",
    "system" or "loader": where the file came from), origin (the same in words, e.g. "$CUDA_HOME"), searched
    (every place tried) and error."""
    return [_component_dict(c) for c in _core._toolkit_components()]


def _component_dict(c) -> dict[str, Any]:
    return {"name": c.name, "found": c.found, "path": c.path, "version": c.version, "source": c.source,
            "origin": c.origin, "searched": list(c.searched), "error": c.error}


def toolkit_component(name: str) -> dict[str, Any]:
    """One component of ``toolkit_info`` by name (libNVVM, libdevice, nvJitLink, NVRTC, ptxas; any case)."""
    return _component_dict(_core._toolkit_component(name))


def toolkit_homes() -> list[dict[str, str]]:
    """The directories searched for the toolkit, in order: path, source and origin (see ``toolkit_info``)."""
    return [{"path": h.path, "source": h.source, "origin": h.origin} for h in _core._toolkit_homes()]


def _cc(arch, what: str, name: str = "arch") -> tuple[int, int]:
    """(major, minor) from (9, 0), 90, "9.0", "9", "sm_90", "sm_90a", "compute_90" (one parser for every
    API that takes a compute capability); None means the current device's."""
    if arch is None:
        try:
            return tuple(_core.Device(0).compute_capability)
        except Exception as e:
            raise ValueError(f"{what}: arch is required on a machine without a usable GPU ({e}); "
                             "pass arch=(9, 0) or 'sm_90'") from None
    cc = None
    if isinstance(arch, tuple) and len(arch) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                          for x in arch):
        cc = arch
    elif isinstance(arch, int) and not isinstance(arch, bool) and arch >= 10:
        cc = divmod(arch, 10)
    elif isinstance(arch, str):
        cc = tuple(_core._parse_cc(arch))
    if cc is None:
        raise TypeError(f"{what}: {name} {arch!r} is not a compute capability; expected a (major, minor) tuple such as "
                        "(9, 0), an int such as 90, or a string such as '9.0', '9', '90' or 'sm_90'")
    if not (1 <= cc[0] <= 99 and 0 <= cc[1] <= 9):
        raise ValueError(f"{what}: {name} {arch!r} is out of range (major 1 to 99, minor 0 to 9)")
    return cc


def _as_bytes(data, what: str) -> bytes:
    if isinstance(data, str):
        return data.encode()
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"{what}: expected str or bytes, got {type(data).__name__}")


def _math_flags(fastmath: bool, ftz, prec_div, prec_sqrt, fma) -> tuple[bool, bool, bool, bool]:
    """fastmath means ftz=1, prec-div=0, prec-sqrt=0, fma=1; explicit flags win."""
    pick = lambda v, default: default if v is None else bool(v)  # noqa: E731
    return (pick(ftz, fastmath), pick(prec_div, not fastmath), pick(prec_sqrt, not fastmath), pick(fma, True))


def nvvm_supported_archs() -> list[tuple[int, int]]:
    """Compute capabilities this libNVVM accepts, ascending (CUDA 13: 7.5 and up)."""
    return [tuple(a) for a in _core._nvvm_supported_archs()]


def nvvm_compile(ir, arch=None, *, opt: int = 3, fastmath: bool = False, ftz=None, prec_div=None,
                 prec_sqrt=None, fma=None, debug: bool = False, lineinfo: bool = False,
                 output: str = "ptx", libdevice: bool = False, options: Sequence[str] = ()):
    """Compile NVVM IR (text or bitcode, one module or a list) to PTX (str) or LTO-IR (bytes).

    ``arch`` defaults to the lowest compute capability libNVVM accepts, raised to at least 5.0.
    """
    if output not in ("ptx", "ltoir"):
        raise ValueError(f"nvvm_compile: output {output!r} is not valid; expected 'ptx' or 'ltoir'")
    modules = [ir] if isinstance(ir, (str, bytes, bytearray, memoryview)) else list(ir)
    cc = max((5, 0), nvvm_supported_archs()[0]) if arch is None else _cc(arch, "nvvm_compile")
    ftz_, prec_div_, prec_sqrt_, fma_ = _math_flags(fastmath, ftz, prec_div, prec_sqrt, fma)
    return _core._nvvm_compile([_as_bytes(m, "nvvm_compile: module") for m in modules], cc, opt, ftz_,
                               prec_sqrt_, prec_div_, fma_, debug, lineinfo, output == "ltoir",
                               libdevice, list(options))


@dataclass
class NvrtcResult:
    """NVRTC's output: ``code`` (PTX str, or LTO-IR / cubin bytes), its ``log`` and ``lowered_names``."""
    code: str | bytes
    log: str
    output: str
    lowered_names: dict[str, str] = field(default_factory=dict)


def nvrtc_compile(source: str, name: str = "kernel.cu", arch=None, *, output: str = "ptx",
                  relocatable: bool = False, debug: bool = False, lineinfo: bool = False,
                  fastmath: bool = False, std: str = "c++17", include_dirs: Iterable[str] = (),
                  headers: dict[str, str] | None = None, name_expressions: Iterable[str] = (),
                  options: Sequence[str] = ()) -> NvrtcResult:
    """Compile CUDA C++ with NVRTC to 'ptx', 'ltoir' (-dlto) or 'cubin'. Errors carry NVRTC's log."""
    cc = _cc(arch, "nvrtc_compile")
    r = _core._nvrtc_compile(source, name, cc, output, relocatable, debug, lineinfo, fastmath, std,
                             list(include_dirs), list((headers or {}).items()), list(name_expressions),
                             list(options))
    code = r.code_text if output == "ptx" else r.code_bytes
    return NvrtcResult(code, r.log, output, dict(r.lowered_names))


@dataclass
class LinkResult:
    """What a link produced: the ``cubin`` (bytes), the linked ``ptx`` when asked for, nvJitLink's info log."""
    cubin: bytes
    ptx: str
    info_log: str


def _guess_kind(data) -> str:
    if not isinstance(data, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"link input {data!r} ({type(data).__name__}) is not code: expected bytes or str "
                        "(PTX, LTO-IR, cubin, fatbin), an NvrtcResult, a (kind, data[, name]) tuple or a path")
    head = bytes(data[:8]) if not isinstance(data, str) else data[:8].encode()
    if head.startswith(b"\xedCN\x7f"):
        return "ltoir"
    if head.startswith(b"\x7fELF"):
        return "cubin"
    if head.startswith(b"\x50\xed\x55\xba"):
        return "fatbin"
    if head.startswith(b"!<arch>\n"):
        return "library"
    text = data if isinstance(data, str) else bytes(data[:4096]).decode("latin-1")
    if ".version" in text or ".target" in text:
        return "ptx"
    raise ValueError(f"cannot tell what kind of link input {head!r}... is (not LTO-IR, ELF cubin, fatbin, "
                     "archive or PTX text); pass it as (kind, data) with kind one of "
                     + ", ".join(repr(k) for k in _INPUT_KINDS))


class Linker:
    """nvJitLink with LTO by default: add PTX, LTO-IR, cubin, fatbin or object inputs, then link().

    ``arch`` is the target (e.g. (9, 0) or 'sm_90'; default: the current device). ``fastmath`` sets
    ftz=1, prec-div=0, prec-sqrt=0, fma=1 for LTO code generation.
    """

    def __init__(self, arch=None, *, lto: bool = True, opt: int = 3, debug: bool = False,
                 lineinfo: bool = False, fastmath: bool = False, ftz=None, prec_div=None,
                 prec_sqrt=None, fma=None, options: Sequence[str] = ()):
        self.arch = _cc(arch, "Linker")
        ftz_, prec_div_, prec_sqrt_, fma_ = _math_flags(fastmath, ftz, prec_div, prec_sqrt, fma)
        self._linker = _core._Linker(self.arch, lto, opt, debug, lineinfo, ftz_, prec_div_, prec_sqrt_,
                                     fma_, list(options))

    def add(self, data, kind: str | None = None, name: str | None = None) -> "Linker":
        """Add one input. ``data``: bytes or str, an NvrtcResult, a (kind, data[, name]) tuple, or a
        path (str or os.PathLike) to a file; ``kind`` is guessed from the bytes or extension when None."""
        if isinstance(data, tuple):
            return self.add(data[1], data[0], data[2] if len(data) > 2 else name)
        if isinstance(data, NvrtcResult):
            return self.add(data.code, kind or data.output, name or f"nvrtc.{data.output}")
        if isinstance(data, os.PathLike) or (isinstance(data, str) and kind is None and "\n" not in data
                                             and os.path.isfile(data)):
            return self.add_file(os.fspath(data), kind)
        if kind is None:
            kind = _guess_kind(data)
        if kind not in _INPUT_KINDS:
            raise ValueError(f"Linker.add: kind {kind!r} is not valid; expected one of "
                             + ", ".join(repr(k) for k in _INPUT_KINDS))
        self._linker.add(kind, _as_bytes(data, "Linker.add"), name or f"input{self.input_count}.{kind}")
        return self

    def add_ptx(self, ptx, name: str | None = None) -> "Linker":
        return self.add(ptx, "ptx", name)

    def add_ltoir(self, ltoir, name: str | None = None) -> "Linker":
        return self.add(ltoir, "ltoir", name)

    def add_cubin(self, cubin, name: str | None = None) -> "Linker":
        return self.add(cubin, "cubin", name)

    def add_fatbin(self, fatbin, name: str | None = None) -> "Linker":
        return self.add(fatbin, "fatbin", name)

    def add_file(self, path, kind: str | None = None) -> "Linker":
        path = os.fspath(path)
        if kind is None:
            self._linker.add_file(path)
        else:
            self._linker.add_file(path, kind)
        return self

    def link(self, ptx: bool = False) -> LinkResult:
        """Link into a cubin; with ``ptx=True`` (LTO only) also return the linked PTX."""
        r = self._linker.link(ptx)
        return LinkResult(r.cubin, r.ptx, r.info_log)

    def link_ptx(self) -> str:
        """Link into PTX only (LTO only)."""
        return self._linker.link_ptx()

    @property
    def options(self) -> list[str]:
        """The nvJitLink options this linker passes."""
        return self._linker.option_strings()

    @property
    def input_count(self) -> int:
        return self._linker.input_count

    def __repr__(self) -> str:
        return f"<cubridge.Linker arch={self.arch[0]}.{self.arch[1]} inputs={self.input_count} {' '.join(self.options)}>"


def link(inputs: Iterable, arch=None, *, lto: bool = True, output: str = "cubin", **options):
    """Link ``inputs`` (see Linker.add) into a cubin (bytes), or with output='ptx' into linked PTX (str)."""
    if output not in ("cubin", "ptx"):
        raise ValueError(f"link: output {output!r} is not valid; expected 'cubin' or 'ptx'")
    linker = Linker(arch, lto=lto, **options)
    for item in inputs:
        linker.add(item)
    return linker.link_ptx() if output == "ptx" else linker.link().cubin


def ptxas_check(ptx: str, arch=None, options: Sequence[str] = ()) -> PtxasResult:
    """Assemble PTX with ptxas for sm_XY (no GPU needed); the result is truthy when it assembled."""
    return _core._ptxas_check(ptx, _cc(arch, "ptxas_check"), list(options))
