"""The code face: compile Python functions to PTX or LTO-IR (C or Numba ABI), without a GPU.

``compile(pyfunc, sig, ...)`` reads the function's source (``_source``; rebuilt from the bytecode where Python
keeps none: ``_bytecode``), the module functions it calls and the numbers it sees in its globals and closure
(``_environment``); cubridge's own front end (C++) parses, types (with Numba's rules), emits NVVM IR and hands
it to libNVVM. CPython never executes the function. Signatures are the types floor's objects (``_types``).
"""
from __future__ import annotations

import re
from typing import Any, Callable

from . import _core, _jit_options, _linker, _logging, _numba_diagnostics, _overload_binding
from ._numba_diagnostics import CompileWarning, numba_errors, warn_compiled
from ._core import CompileError
from ._environment import _collect  # noqa: F401  (tests and bench read the collected source)
from ._raise_sites import exception_args, exception_class  # noqa: F401  (the launcher of debug kernels)
from ._source import _read_source, nfkc_identifiers  # noqa: F401
from ._types import as_signature

__all__ = ["CompileWarning", "compile", "compile_for_current_device", "compile_ptx", "compile_ptx_for_current_device", "CompileError",
           "compile_cache_stats"]


_OUTPUTS = ("ptx", "ltoir", "llvm")


class UnsupportedCompileOption(ValueError, NotImplementedError):
    """An ABI, output or ABI/kernel pairing cubridge does not compile. numba-cuda raises NotImplementedError for
    these (its words open the message); it is a ValueError too, as cubridge raised before."""


def _options(debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, output):
    if abi not in ("c", "numba"):
        raise UnsupportedCompileOption(f"Unsupported ABI: {abi}; abi must be 'c' or 'numba', got {abi!r}")
    if output not in _OUTPUTS:
        raise UnsupportedCompileOption(f"Unsupported output type: {output}; output must be 'ptx', 'ltoir' or 'llvm' "
                                       f"(the NVVM IR text given to libNVVM), got {output!r}")
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
        cc, variant = _arch_variant(cc)
        cc = _linker._cc(cc, "compile", "cc")
        o.set_cc(cc[0], cc[1])
        o.arch_variant = variant
    return o


def _arch_variant(cc):
    """numba-cuda's architecture-specific targets: cc=(9, 0, 'a') (sm_90a, that GPU only) or (10, 0, 'f')
    (sm_100f, its family), also spelled 'sm_90a' / 'compute_100f'; returns (the compute capability, letter)."""
    if isinstance(cc, tuple) and len(cc) == 3 and isinstance(cc[2], str):
        if cc[2] not in ("a", "f"):
            raise ValueError(f"compile: cc {cc!r}: the third item is an architecture variant, 'a' (architecture-"
                             f"specific, e.g. (9, 0, 'a') for sm_90a) or 'f' (family-specific, e.g. (10, 0, 'f') "
                             f"for sm_100f); got {cc[2]!r}")
        return cc[:2], cc[2]
    if isinstance(cc, str):
        m = re.fullmatch(r"\s*((?:sm_|compute_|lto_)?\d+(?:\.\d)?)([af])\s*", cc)
        if m:
            return m.group(1), m.group(2)
    return cc, ""


def compile(pyfunc: Callable[..., Any], sig: Any, debug: bool = False, lineinfo: bool = False, device: bool = True,
            fastmath: bool | set[str] = False, cc: Any = None, opt: bool = True, abi: str = "c",
            abi_info: dict[str, str] | None = None, output: str = "ptx", cache: bool = False,
            forceinline: bool | None = None, launch_bounds: Any = None) -> tuple[str | bytes, Any]:
    """Compile ``pyfunc`` for ``sig``; returns ``(code, resty)``: PTX text (str) or LTO-IR (bytes), and the
    return type (declared, or inferred with Numba's rules). ``cache=True`` goes through the on-disk code
    cache (``CodeCache.default_directory()``, $CUBRIDGE_CACHE_DIR): a later process compiling the same
    source, signature and options for the same target with the same cubridge and libNVVM reads it back.
    ``forceinline`` (numba-cuda's option, LTO-IR of device functions only): True marks the function's body
    alwaysinline (what cubridge does to it when not given), False written out leaves inlining to NVVM;
    ``launch_bounds`` (kernels, PTX) adds numba-cuda's ``.maxntid``/``.minnctapersm``/``.maxclusterrank``.
    ``output="llvm"`` returns the NVVM IR text the front end gives libNVVM instead (numba-cuda's spelling)."""
    if abi == "c" and not device and output in _OUTPUTS:  # a bad output is reported first, as numba-cuda does
        raise UnsupportedCompileOption(
            f"The C ABI is not supported for kernels: {getattr(pyfunc, '__name__', pyfunc)!r} is compiled as a "
            "kernel (device=False), whose arguments take the Numba ABI; compile it with abi='numba', or compile a "
            "device function with device=True")
    if forceinline and output != "ltoir":  # numba-cuda's rules and messages, in its order
        raise ValueError(f"Can only designate forced inlining in LTO-IR (output='ltoir'), got output={output!r}")
    if forceinline and not device:
        raise ValueError("Cannot force-inline kernels (forceinline=True with device=False)")
    bounds = _jit_options.jit_options(launch_bounds=launch_bounds, forceinline=forceinline)
    if bounds.launch_bounds and (device or output != "ptx"):
        raise ValueError("launch_bounds apply to kernels compiled to PTX (device=False, output='ptx')")
    r = _compile_result(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, output, cache,
                        directives=bounds)
    code = r.nvvm_ir if output == "llvm" else r.code.decode() if output == "ptx" else r.code
    return code, (None if r.result_type.kind == "none" else r.result_type)


@numba_errors  # drop-in use: a CompileError is numba's TypingError too
def _compile_result(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, cc=None, opt=True,
                    abi="c", abi_info=None, output="ptx", cache=False, directives=None, referenced=None,
                    links=None):
    """compile()'s whole result: code, name (the entry's), result_type, cooperative, raise_sites (for
    @cubridge.jit). `directives` (a JitOptions) carries numba-cuda's max_registers and launch_bounds, which
    the compiler writes into the kernel's PTX itself. `referenced` (a list) gets the GPU arrays the code
    embeds by address, for the caller to keep alive with the code; `links` (a list) gets the link items of
    the external device functions the code calls (declare_device), which the kernel is linked with when loaded."""
    def options():
        o = _options(debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, output)
        if directives is not None:
            bounds = directives.launch_bounds + (0, 0, 0)
            o.max_registers = directives.max_registers or 0
            o.optnone = directives.dbg_optnone
            o.max_threads_per_block, o.min_blocks_per_sm, o.max_blocks_per_cluster = bounds[:3]
        return o
    attempt = options()
    signature = as_signature(sig)
    if output == "llvm":  # the front end's NVVM IR, before libNVVM (numba-cuda's inspect_llvm)
        compile_source = _core._compile_source_to_ir
    else:
        # a numba extension type (foreign) has no spelling the cache's key could name it by: not cached
        foreign = any(t.kind == "foreign" or (t.kind == "array" and t.dtype.kind == "foreign") for t in signature.args)
        compile_source = _core._compile_source_cached if cache and not foreign else _core._compile_source
    overloads = _overload_binding.Overloads({"debug": debug, "lineinfo": lineinfo, "fastmath": fastmath})
    while True:  # once more per @overload call resolved (the front end reports each: _overload_binding)
        found: list = []
        held: list = []
        source, name = _collect(pyfunc, attempt, held, found, overloads)
        if device and directives is not None and directives.forceinline is False:
            attempt.add_inline_never(name)  # numba-cuda's forceinline=False: the body is not marked alwaysinline
        try:
            r = compile_source(source, name, signature, attempt)
            break
        except _core.OverloadNeeded as needed:
            overloads.add(needed)
            attempt = options()
    warn_compiled(r.warnings)
    _numba_diagnostics.warn_uninitialized(r)  # numba's ALWAYS_WARN_UNINIT_VAR, where its config asks
    if links is not None:
        links.extend(found)
    if referenced is not None:
        referenced.extend(held)
    if output == "llvm":
        return r
    log = _logging.debug_logger()
    if log is not None and not _toolkit_logged:
        _log_toolkit(log)
    if log is not None:
        t = r.timings
        log.debug("compiled %s for %s to %s%s: parse %.3f ms, type %.3f ms, emit %.3f ms, libNVVM %.3f ms",
                  name, signature, output, " (code cache hit)" if r.from_cache else
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
                abi: str = "numba", abi_info: dict[str, str] | None = None, forceinline: bool | None = None,
                launch_bounds: Any = None) -> tuple[str | bytes, Any]:
    """PTX only, Numba ABI by default (``numba.cuda.compile_ptx``)."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc, opt=opt,
                   abi=abi, abi_info=abi_info, output="ptx", forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False,
                                   opt=True, abi="numba", abi_info=None):
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                       cc=_current_cc(), opt=opt, abi=abi, abi_info=abi_info)
