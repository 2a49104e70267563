"""numba-cuda's ``cuda.jit`` options as ``cubridge.jit`` takes them, each with its meaning here.

============== =========================================================================================
option         meaning in cubridge
============== =========================================================================================
device         True: a device function, compiled into the kernels that call it
inline         'always' (or True): inlined (alwaysinline, cubridge's default for helpers); 'never' (or
               False; numba-cuda's default, written out here): no forced inlining, NVVM's inliner decides;
               a callable: numba's cost model, asked with numba's IR at each call whether to inline there
               (``cubridge._inline_cost_model``)
forceinline    True: alwaysinline (cubridge's default for helpers); False written out: no forced inlining
               (numba-cuda's default, as inline='never')
debug, opt,    as numba-cuda: NVVM debug info, -opt=3/0, line info
lineinfo
fastmath       True, or numba's set of LLVM flags ({'nsz', 'arcp', ...}; non-empty means True): NVVM's
               fast math (ftz, approximate division and square root, fma)
max_registers  kernels: ``.maxnreg N`` in the entry's PTX, written by the compiler (numba-cuda asks the
               linker for the same limit)
launch_bounds  kernels: ``.maxntid``, ``.minnctapersm``, ``.maxclusterrank`` (numba-cuda's 1 to 3 items),
               written by the compiler; the third needs compute capability 9.0 (clusters)
link           files (PTX, LTO-IR, cubin, fatbin, object, library, or CUDA C++ ``.cu`` compiled with NVRTC)
               linked with the kernel by nvJitLink when it is loaded; a device function's are linked with
               every kernel that calls it
lto            with ``link``: link-time optimisation by nvJitLink (default: when an LTO-IR input is linked)
cache          the on-disk code cache (cubridge's default: on). Written out as True in a numba-cuda program
               served by cubridge (drop-in mode), numba-cuda's file cache as well: its index and data files
               beside the source, its hit and miss counts (``cubridge._file_cache``)
extensions     numba-cuda's launch-argument extensions: objects with prepare_args(ty, val, stream=, retr=),
               applied to each argument before a launch, last first (``cubridge._launch_extensions``); the
               kernel's ``extensions`` list takes more after jit
boundscheck    False/None only: True is refused, as numba-cuda refuses it
_dbg_optnone   numba-cuda's debugging flag: every function not forced inline is marked optnone noinline, so
               libNVVM neither optimises nor inlines it (a kernel entry, which NVVM requires to be inlinable,
               is left unmarked)
shared_memory_ kernels: the preferred share of the unified L1/shared memory used as shared memory, set on the
carveout       loaded function: 'MaxL1' (0), 'MaxShared' (100), 'default' (-1, the driver's) or a percentage
               0 to 100, as numba-cuda takes it
============== =========================================================================================

Anything else is refused by name, listing these.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ._launch_extensions import checked as checked_extensions

ACCEPTED = ("device", "inline", "forceinline", "link", "debug", "opt", "lineinfo", "cache", "fastmath",
            "max_registers", "launch_bounds", "lto", "extensions", "boundscheck", "shared_memory_carveout", "_dbg_optnone")
# numba-cuda's names of shared_memory_carveout values (any case), as percentages of shared memory.
CARVEOUT_NAMES = {"default": -1, "maxl1": 0, "maxshared": 100}
# numba's FastMathOptions flags (LLVM's fast-math flags).
FASTMATH_FLAGS = frozenset({"fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"})


@dataclass(frozen=True)
class JitOptions:
    device: bool = False
    inline: Any = None  # 'always', 'never', a cost model (callable) or None: not given (cubridge inlines helpers)
    forceinline: bool | None = None  # None: not given
    debug: bool = False
    opt: bool = True
    dbg_optnone: bool = False  # numba-cuda's _dbg_optnone
    lineinfo: bool = False
    fastmath: bool = False
    cache: bool | None = None  # None: not given (cubridge's code cache is on; numba's file cache is not)
    max_registers: int | None = None
    launch_bounds: tuple[int, ...] = ()
    link: tuple[str, ...] = ()
    lto: bool | None = None
    extensions: tuple = ()  # numba-cuda's launch-argument extensions (objects with prepare_args)
    shared_memory_carveout: int | None = None  # percent of the unified L1/shared memory; -1: the driver's default

    def compiler(self) -> dict:
        """The options ``cubridge.compile`` takes."""
        return dict(debug=self.debug, lineinfo=self.lineinfo, fastmath=self.fastmath, opt=self.opt,
                    cache=self.cache is not False)

    @property
    def inline_policy(self):
        """'always', 'never' (written inline='never' or False), a cost model (asked per call) or None (not
        given: inlined, cubridge's default), as the compiler reads it from a helper (``__cubridge_inline__``)."""
        if self.inline == "always":  # numba-cuda inlines at its IR level: no call left, no alwaysinline
            return "ir"
        if self.forceinline:
            return "always"
        if self.forceinline is False:  # written out: numba-cuda's meaning, no alwaysinline
            return "never"
        return self.inline


def _flag(name: str, value, default: bool) -> bool:
    if value is None:
        return default
    if not isinstance(value, (bool, int)) or isinstance(value, int) and value not in (0, 1):
        raise TypeError(f"jit: {name}={value!r} is not a bool")
    return bool(value)


def _forceinline(value) -> bool | None:
    return None if value is None else _flag("forceinline", value, False)


def _fastmath(value) -> bool:
    if isinstance(value, (set, frozenset, list, tuple)):
        bad = [f for f in value if f not in FASTMATH_FLAGS]
        if bad:
            raise ValueError(f"jit: fastmath flag(s) {', '.join(map(repr, bad))} unknown; numba's flags are "
                             + ", ".join(sorted(FASTMATH_FLAGS)))
        return bool(value)
    return _flag("fastmath", value, False)


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"jit: {name} must be a positive int, got {value!r}")
    return value


def _launch_bounds(value) -> tuple[int, ...]:
    if value is None:
        return ()
    items = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(items) <= 3:
        raise ValueError(f"jit: Got {len(items)} launch bounds: {value!r}; launch_bounds takes 1 to 3 items (max "
                         "threads per block, min blocks per SM, max blocks per cluster)")
    return tuple(_positive_int("launch_bounds item", v) for v in items)


def _carveout(value, device: bool) -> int | None:
    if value is None:
        return None
    if device:
        raise ValueError("jit: shared_memory_carveout is a kernel option (set on the loaded function); a device "
                         "function is compiled into the kernels that call it")
    if isinstance(value, str):
        if value.lower() not in CARVEOUT_NAMES:
            raise ValueError(f"jit: Invalid carveout value: {value}; shared_memory_carveout takes 'MaxL1', "
                             "'MaxShared', 'default' or a percentage 0 to 100 (-1: the driver's default)")
        return CARVEOUT_NAMES[value.lower()]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"jit: Invalid carveout value: {value!r}; shared_memory_carveout takes 'MaxL1', "
                         "'MaxShared', 'default' or a percentage 0 to 100 (-1: the driver's default)")
    if not -1 <= value <= 100:
        raise ValueError(f"jit: shared_memory_carveout {value}: Carveout must be between -1 and 100 (a percentage of "
                         "the unified L1/shared memory; -1: the driver's default)")
    return value


def _link(value) -> tuple[str, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, (str, os.PathLike)) else list(value)
    paths = []
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"jit: link items are file paths, got {item!r}")
        path = os.fspath(item)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"jit: link file {path!r} does not exist")
        paths.append(path)
    return tuple(paths)


def jit_options(**kws) -> JitOptions:
    """The options checked: unknown names refused listing the accepted ones, each value checked."""
    unknown = [k for k in kws if k not in ACCEPTED]
    if unknown:
        raise TypeError(f"jit: unknown option(s) {', '.join(map(repr, unknown))}; cubridge.jit accepts "
                        + ", ".join(ACCEPTED))
    if kws.get("boundscheck"):
        raise NotImplementedError("jit: bounds checking is not supported for CUDA (boundscheck=True), as in numba-cuda")
    inline = kws.get("inline")
    if isinstance(inline, bool):
        inline = "always" if inline else "never"
    if inline not in (None, "always", "never") and (isinstance(inline, str) or not callable(inline)):
        raise ValueError(f"jit: inline={inline!r}: kwarg 'inline' must be one of the strings 'always' or 'never', "
                         "or it can be a callable that returns True/False (a cost model)")
    device = _flag("device", kws.get("device"), False)
    max_registers = kws.get("max_registers")
    lto = kws.get("lto")
    return JitOptions(
        device=device, inline=inline, forceinline=_forceinline(kws.get("forceinline")),
        debug=_flag("debug", kws.get("debug"), False), opt=_flag("opt", kws.get("opt"), True),
        dbg_optnone=_flag("_dbg_optnone", kws.get("_dbg_optnone"), False),
        lineinfo=_flag("lineinfo", kws.get("lineinfo"), False), fastmath=_fastmath(kws.get("fastmath")),
        cache=None if kws.get("cache") is None else _flag("cache", kws.get("cache"), True),
        max_registers=None if max_registers is None else _positive_int("max_registers", max_registers),
        launch_bounds=_launch_bounds(kws.get("launch_bounds")), link=_link(kws.get("link")),
        lto=None if lto is None else _flag("lto", lto, False), extensions=checked_extensions(kws.get("extensions")),
        shared_memory_carveout=_carveout(kws.get("shared_memory_carveout"), device))


def link_image(ptx: str, options: JitOptions, arch, extra: tuple = ()) -> bytes:
    """The kernel's PTX linked by nvJitLink into a cubin for `arch` with options.link and `extra` (the link
    items of the external functions the kernel calls: paths or code objects, _external_functions)."""
    from ._external_functions import link_inputs
    from ._linker import Linker
    items = (*options.link, *extra)
    inputs = link_inputs(items, arch, debug=options.debug, lineinfo=options.lineinfo)
    lto = options.lto if options.lto is not None else any(i[0] == "ltoir" for i in inputs if isinstance(i, tuple)) \
        or any(isinstance(i, str) and i.endswith(".ltoir") for i in inputs)
    linker = Linker(arch, lto=lto, debug=options.debug, lineinfo=options.lineinfo, fastmath=options.fastmath)
    linker.add_ptx(ptx, "kernel.ptx")
    for item in inputs:
        linker.add(item)
    return linker.link().cubin
