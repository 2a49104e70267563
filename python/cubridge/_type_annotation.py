"""numba-cuda's ``kernel.overloads[sig]._type_annotation``: the type cubridge's front end inferred for each variable
of a compiled kernel, read from the typed program itself (no text is parsed).

Rules (each a test in tests/python/kernels/test_type_annotation.py):

1. ``typemap`` maps each variable of the kernel's own body, as the source names it (parameters first), to its
   type: numba's type object where numba is imported and names the type (``numba.int32``, ``Array(int32, 1,
   'C')``), else cubridge's ``Type``. A local or shared array's entry is an array type whose ``dtype`` is the
   element type the front end chose (numba-cuda's tests read ``typemap["l"].dtype``).
2. Left out, as they are not variables of the kernel's code: parameters bound at compile time (a function or a
   type passed to a helper), names never given a type (only on a path that cannot run), and the front end's own
   version of a loop variable. Asking for one raises KeyError naming it, as for any name the kernel lacks.
3. It is computed the first time it is asked for (the front end types the kernel again, without libNVVM), so a
   kernel read from the on-disk code cache answers too and a launch never pays for it.
"""
from __future__ import annotations

from ._resolution import numba_type


class TypeAnnotation:
    """The typed variables of one compiled kernel (numba-cuda's ``_type_annotation``; cubridge keeps ``typemap``)."""

    __slots__ = ("typemap", "signature", "func_name")

    def __init__(self, func_name: str, signature, variables):
        self.func_name = func_name
        self.signature = signature
        self.typemap = _TypeMap((name, numba_type(t)) for name, t in variables)

    def __repr__(self) -> str:
        return f"<cubridge.TypeAnnotation {self.func_name} {len(self.typemap)} variables>"


class _TypeMap(dict):
    """A dict whose KeyError says which variables the kernel has."""

    def __missing__(self, name):
        raise KeyError(f"{name!r} is not a typed variable of this kernel; its variables are {sorted(self)}")
