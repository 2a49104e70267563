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

_INTEGERS = {"int8": "char", "uint8": "uchar", "int16": "short", "uint16": "ushort", "int32": "int",
             "uint32": "uint", "int64": "ll", "uint64": "ull"}
_MODES = ("rn", "rz", "rd", "ru")


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


def _bindings() -> dict[str, str]:
    """numba.cuda.bf16's public names -> cuda_bf16.h's."""
    names = {n: "__" + n for n in (
        "habs", "hadd", "hsub", "hmul", "hadd_rn", "hsub_rn", "hmul_rn", "hdiv", "hadd_sat", "hsub_sat", "hmul_sat",
        "hfma", "hfma_sat", "hneg", "hfma_relu", "heq", "hne", "hge", "hgt", "hle", "hlt", "hmax", "hmin",
        "hmax_nan", "hmin_nan", "hisinf", "hisnan", "hequ", "hneu", "hgeu", "hgtu", "hleu", "hltu")}
    names.update({n: n for n in ("htrunc", "hceil", "hfloor", "hrint", "hsqrt", "hrsqrt", "hrcp", "hlog", "hlog2",
                                 "hlog10", "hcos", "hsin", "hexp", "hexp2", "hexp10", "htanh", "htanh_approx")})
    names.update({"float32_to_bfloat16": "__float2bfloat16", "float64_to_bfloat16": "__double2bfloat16",
                  "bfloat16_to_float32": "__bfloat162float", "bfloat16_to_int8_rz": "__bfloat162char_rz",
                  "bfloat16_to_uint8_rz": "__bfloat162uchar_rz", "bfloat16_as_int16": "__bfloat16_as_short",
                  "bfloat16_as_uint16": "__bfloat16_as_ushort", "int16_as_bfloat16": "__short_as_bfloat16",
                  "uint16_as_bfloat16": "__ushort_as_bfloat16"})
    for m in _MODES:
        names[f"float32_to_bfloat16_{m}"] = f"__float2bfloat16_{m}"
        for t, c in _INTEGERS.items():
            if t not in ("int8", "uint8"):
                names[f"{t}_to_bfloat16_{m}"] = f"__{c}2bfloat16_{m}"
                names[f"bfloat16_to_{t}_{m}"] = f"__bfloat162{c}_{m}"
    # numba.cuda.bf16 also exports cuda_bf16's own spellings without the underscores (float2bfloat16, ...)
    names.update({b[2:]: b for b in list(names.values()) if b.startswith("__") and "2" in b or "_as_" in b})
    return names


bfloat16 = BFloat16Type()
_BINDINGS = _bindings()
globals().update({n: Binding(n, b) for n, b in _BINDINGS.items()})
__all__ = ["bfloat16", *sorted(_BINDINGS)]
