"""External device functions: numba-cuda's ``cuda.declare_device(name, sig, link=..., abi=...)``.

A declared function is defined outside the compiled code (CUDA C++ compiled by NVRTC, PTX, LTO-IR, a cubin,
fatbin, object or library) and called by its symbol with the declared signature: under the Numba ABI as
``extern "C" __device__ int name(R* result, args...)`` returning a status, under the C ABI as
``extern "C" __device__ R name(args...)``. The ``link`` items are linked with every kernel that reaches a
call of it when the kernel is loaded. ``cubridge.declare_device`` makes one; numba-cuda's own declarations
(its ``ExternFunction``) are read too, with the link items and ABI numba-cuda registered for them.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from ._types import Signature, as_signature

__all__ = ["declare_device", "ExternalFunction"]

_ABIS = ("numba", "c")


@dataclass(frozen=True, eq=False)
class ExternalFunction:
    """What ``declare_device`` returns: call it from compiled code by the name it is bound to."""
    name: str                 # the symbol
    sig: Signature            # with its return type
    link: tuple = ()          # paths, or code objects (see link_inputs)
    abi: str = "numba"
    use_cooperative: bool = False

    def __call__(self, *args):
        raise TypeError(f"external device function {self.name!r} ({self.sig}) can only be called from code "
                        f"compiled by cubridge (a cubridge.jit kernel or device function)")


def _check_link_item(item, what: str):
    if isinstance(item, (str, os.PathLike)):
        path = os.fspath(item)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{what}: link file {path!r} does not exist")
        return path
    if _code_object(item) is not None:
        return item
    raise TypeError(f"{what}: link item {item!r} ({type(item).__name__}) is not a file path or a code object "
                    f"(numba.cuda.CUSource, PTXSource, LTOIR, Cubin, Fatbin, Archive, Object)")


def declare_device(name: str, sig, link=None, use_cooperative: bool = False, abi: str = "numba") -> ExternalFunction:
    """Declares the external device function `name` with signature `sig` (``int32(int32)``, ``'int32(int32)'``
    or numba's signature object; the return type is required), linked from `link` (one item or a list,
    tuple or set of them) where a kernel calls it; `abi` is 'numba' or 'c' (numba-cuda's meanings)."""
    what = f"declare_device({name!r})"
    if abi not in _ABIS:
        raise NotImplementedError(f"{what}: abi {abi!r} is not supported; expected 'numba' or 'c'")
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"{what}: the name must be the function's C symbol (an identifier)")
    signature = as_signature(sig)
    if signature.return_type is None:
        raise TypeError(f"{what}: Return type must be provided for device declarations (e.g. 'int32(int32)', "
                        f"'void(float64)'); got {sig!r}")
    items = () if link is None else tuple(link) if isinstance(link, (list, tuple, set)) else (link,)
    return ExternalFunction(name, signature, tuple(_check_link_item(i, what) for i in items), abi,
                            bool(use_cooperative))


def is_cffi_ffi(v) -> bool:
    """Whether v is a cffi FFI object (its from_buffer gives the pointers external functions take)."""
    return type(v).__name__ == "FFI" and type(v).__module__.partition(".")[0] == "cffi"


def external_function(v) -> ExternalFunction | None:
    """v as an ExternalFunction: cubridge's own, or numba-cuda's ExternFunction read from numba-cuda's
    registry (its link items and ABI); None for any other value."""
    if isinstance(v, ExternalFunction):
        return v
    if type(v).__name__ != "ExternFunction" or not type(v).__module__.startswith("numba"):
        return None
    link, abi, cooperative = _numba_registration(v)
    return ExternalFunction(v.name, as_signature(v.sig), link, abi, cooperative)


def _numba_registration(v) -> tuple[tuple, str, bool]:
    """(link items, abi, use_cooperative) numba-cuda's declare_device registered for v in its target
    context: the lowering it inserted holds the function descriptor (its calling convention says the ABI)
    and the code library whose linking files are the link items."""
    descriptor = sys.modules.get("numba.cuda.descriptor")
    context = getattr(getattr(descriptor, "cuda_target", None), "target_context", None)
    defns = getattr(context, "_defns", None)
    selector = defns.get(v) if isinstance(defns, dict) else None
    versions = getattr(selector, "versions", None) or ()
    for _, imp in versions:
        libs = getattr(imp, "libs", None)
        fndesc = next((d for d in _bound_values(imp) if type(d).__name__ == "ExternalFunctionDescriptor"), None)
        if fndesc is None or libs is None:
            continue
        # numba-cuda 0.2x+ keeps the calling convention on the descriptor; older numba has only numba's ABI
        abi = "c" if type(getattr(fndesc, "call_conv", None)).__name__ == "CUDACABICallConv" else "numba"
        link = tuple(f for lib in libs for f in sorted(getattr(lib, "_linking_files", ()), key=_link_sort_key))
        return link, abi, any(getattr(lib, "use_cooperative", False) for lib in libs)
    raise TypeError(f"numba-cuda's external function {v.name!r} has no registration cubridge can read (numba-cuda "
                    f"{getattr(sys.modules.get('numba.cuda'), '__version__', '?')}): declare it with "
                    f"cubridge.declare_device instead")


def _bound_values(f) -> list:
    """The values a lowering function closes over or takes as defaults (where numba keeps its descriptor)."""
    cells = []
    for c in getattr(f, "__closure__", None) or ():
        try:
            cells.append(c.cell_contents)
        except ValueError:  # an empty cell
            pass
    return [*(getattr(f, "__defaults__", None) or ()), *(getattr(f, "__kwdefaults__", None) or {}).values(), *cells]


def _link_sort_key(item) -> str:
    return item if isinstance(item, str) else f"{getattr(item, 'name', '')}"


# numba-cuda's in-memory code classes (numba.cuda.cudadrv.linkable_code; their `kind` is a driver enum
# except CUSource's "cu") -> cubridge.Linker kinds.
_KINDS = {"CUSource": "cu", "PTXSource": "ptx", "LTOIR": "ltoir", "Cubin": "cubin", "Fatbin": "fatbin",
          "Object": "object", "Archive": "library"}
_EXTENSIONS = {".ptx": "ptx", ".ltoir": "ltoir", ".cubin": "cubin", ".fatbin": "fatbin", ".o": "object",
               ".a": "library", ".lib": "library"}


def _code_object(item) -> tuple[str, bytes | str, str] | None:
    """(kind, data, name) of an in-memory code object (numba-cuda's LinkableCode subclasses: ``data``,
    ``name``), or None."""
    kind = next((_KINDS[c.__name__] for c in type(item).__mro__ if c.__name__ in _KINDS), None)
    data = getattr(item, "data", None) if kind is not None else None
    if not isinstance(data, (str, bytes, bytearray)):
        return None
    return kind, data, str(getattr(item, "name", "") or f"<{kind}>")


def link_inputs(items, arch, *, debug=False, lineinfo=False, ltoir=False) -> list:
    """The Linker inputs for link items (paths and code objects): CUDA C++ (.cu files and CUSource) compiled
    by NVRTC to relocatable PTX with the toolkit's headers on the include path, as numba-cuda does (to LTO-IR
    with `ltoir`, for a link-time-optimised link)."""
    from ._linker import nvrtc_compile
    out = []
    for item in items:
        if isinstance(item, (str, os.PathLike)):
            path = os.fspath(item)
            ext = os.path.splitext(path)[1].lower()
            if ext not in (".cu", ".cuh"):
                out.append((_EXTENSIONS[ext], open(path, "rb").read(), os.path.basename(path))
                           if ext in _EXTENSIONS else path)
                continue
            with open(path, encoding="utf-8") as fh:
                kind, data, name = "cu", fh.read(), os.path.basename(path)
        else:
            kind, data, name = _code_object(item)
        if kind == "cu":
            source = data if isinstance(data, str) else bytes(data).decode()
            kind = "ltoir" if ltoir else "ptx"
            code = nvrtc_compile(source, name if name.endswith(".cu") else name + ".cu", arch, output=kind,
                                 relocatable=True, debug=debug, lineinfo=lineinfo, include_dirs=_toolkit_includes())
            out.append((kind, code.code, f"{name}.{kind}"))
        else:
            out.append((kind, data, name))
    return out


def _toolkit_includes() -> list[str]:
    """The include directories NVRTC gets for linked CUDA C++, as numba-cuda gives them: the extra search
    paths numba-cuda is configured with (numba.cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS where numba.cuda is
    imported and has a non-empty value there, else
    $NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS; ':'-separated), then the toolkit's (cuda_runtime.h, curand_kernel.h) and
    its CCCL headers' (cuda/std/..., which curand_kernel.h includes: CUDA 13 keeps them in include/cccl)."""
    from ._linker import toolkit_homes
    config = getattr(sys.modules.get("numba.cuda"), "config", None)  # numba.cuda.core.config in numba-cuda 0.30
    extra = getattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", None) if config is not None else None
    if not isinstance(extra, str) or not extra:  # numba's config is read at its import: an empty one defers
        extra = os.environ.get("NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS", "")
    dirs = [d for d in extra.split(":") if d]
    for home in toolkit_homes():
        for sub in ("include", os.path.join("targets", "x86_64-linux", "include")):
            d = os.path.join(home["path"], sub)
            if os.path.isfile(os.path.join(d, "cuda_runtime.h")) and d not in dirs:
                cccl = os.path.join(d, "cccl")
                return [*dirs, d, *([cccl] if os.path.isdir(os.path.join(cccl, "cuda", "std")) else [])]
    return dirs
