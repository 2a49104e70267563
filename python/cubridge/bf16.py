"""bfloat16 in kernels compiled by cubridge, under numba-cuda's names (``numba.cuda.bf16``).

``cubridge.bfloat16(x)`` makes a bfloat16 from a float16/32/64 or an integer (rounded to nearest even),
``float32(h)``, ``int32(h)``, ... convert one back (integers rounded toward zero, as CUDA's conversion
operators do), and ``+ - * /``, ``==`` ... ``>=``, unary ``-`` work on two bfloat16 values. The functions
here are CUDA's cuda_bf16.h intrinsics (``hadd`` is ``__hadd``, ``float32_to_bfloat16_rz`` is
``__float2bfloat16_rz``, ``bfloat16_as_int16`` is ``__bfloat16_as_short``, ...), each computing what the
CUDA header documents; numba-cuda's own ``numba.cuda.bf16`` names compile to the same code. bfloat16 needs
compute capability 8.0 or higher. Like cubridge's other intrinsics, these exist only inside compiled
kernels: CPython never calls them.
"""
from __future__ import annotations

from . import _core


class BFloat16Type:
    """The bfloat16 type as a kernel calls it: ``bfloat16(x)``."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        raise RuntimeError("cubridge.bfloat16() exists only inside kernels compiled by cubridge "
                           "(@cubridge.jit, cubridge.compile_ptx); Python cannot call it")

    def __repr__(self) -> str:
        return "cubridge.bfloat16"


class Binding:
    """One cuda_bf16.h function under its numba-cuda name (cubridge.bf16.hadd is CUDA's __hadd)."""

    __slots__ = ("_name", "_binding")

    def __init__(self, name: str, binding: str):
        self._name = name
        self._binding = binding

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"cubridge.bf16.{self._name}() (CUDA's {self._binding}) exists only inside kernels "
                           f"compiled by cubridge; Python cannot call it")

    def __repr__(self) -> str:
        return f"<cubridge.bf16.{self._name}: CUDA's {self._binding}>"


bfloat16 = BFloat16Type()
_BINDINGS = dict(_core._bf16_names())  # numba.cuda.bf16's names -> cuda_bf16.h's (the compiler's table)
globals().update({n: Binding(n, b) for n, b in _BINDINGS.items()})
__all__ = ["bfloat16", *sorted(_BINDINGS)]
