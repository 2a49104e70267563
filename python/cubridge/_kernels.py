"""Loading compiled kernels (PTX, cubin, fatbin) and launching them on any GPU array, re-exported by cubridge.

Kernel parameters follow the Numba ABI (an N-d array is meminfo, parent, nitems, itemsize, data,
shape[N], strides[N]), so PTX from numba-cuda's ``compile_ptx`` runs here unchanged::

    k = cubridge.load_kernel(ptx, signature="void(float32[:], float32[:], float32[:])")
    k[blocks, threads](a, b, out)              # CuPy, PyTorch, Numba, JAX, cubridge or NumPy arrays
    k[blocks, threads, stream, sharedmem](a, b, out)
    k.forall(n)(a, b, out)
"""
from __future__ import annotations

from . import _core
from ._core import (Kernel, KernelLaunch, KernelSignature, PerformanceWarning,
                    clear_kernel_cache, kernel_cache_size, ptx_entry_names)

__all__ = ["Kernel", "KernelLaunch", "KernelSignature", "PerformanceWarning", "load_kernel",
           "ptx_entry_names", "clear_kernel_cache", "kernel_cache_size"]


def _signature_text(signature) -> "str | KernelSignature":
    """Accepts our spelling, a KernelSignature, a sequence of parameter strings, or a Numba
    signature / tuple of Numba types (their str() is Numba's spelling, which we parse)."""
    if isinstance(signature, (str, KernelSignature)):
        return signature
    args = getattr(signature, "args", None)  # numba.core.typing.templates.Signature
    if args is not None:
        return_type = getattr(signature, "return_type", None)
        if return_type is not None and str(return_type) not in ("none", "void"):
            raise ValueError(f"signature: a kernel returns void, but {signature!r} returns {return_type}")
        signature = args
    if isinstance(signature, (tuple, list)):
        return "void(" + ", ".join(str(p) for p in signature) + ")"
    raise TypeError(f"signature: {signature!r} ({type(signature).__name__}) is not a str such as "
                    "'void(float32[:], int64)', a KernelSignature, a sequence of parameter types, or a "
                    "Numba signature")


def load_kernel(code, name: str | None = None, signature=None, *, device: int | None = None,
                cache: bool = True) -> Kernel:
    """Loads `code` (PTX text as str/bytes, a cubin or a fatbin) and returns its kernel `name`.

    `name` may be left out when the PTX holds exactly one kernel (handy for numba-cuda's mangled
    names). `signature` lists the parameters in Numba's spelling: "void(float32[:], const f8[:, ::1],
    int64)"; "const" marks arrays the kernel does not write, so read-only arrays may be passed.
    Modules are cached per (code, context) unless cache=False; device None means the current device.
    """
    if signature is None:
        raise TypeError("load_kernel: signature is required, e.g. signature='void(float32[:], int64)'")
    return _core._load_kernel(code, name, _signature_text(signature), device, cache)
