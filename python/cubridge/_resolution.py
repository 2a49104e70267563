"""Which of a kernel's declared signatures a launch runs (``jit([sig1, sig2, ...])``), as numba-cuda's dispatcher
chooses.

Rules (each a test in tests/python/kernels/test_dispatcher_resolution.py):

1. Each argument is typed (``cubridge.typeof``) and rated against each signature of as many parameters:
   exact, promote (int32 -> int64, float32 -> float64), safe (int32 -> float64, an array to a layout 'A' or
   read-only parameter), unsafe (float64 -> float32, float64 -> int64) or no conversion (complex -> float, an
   array of another dtype or rank): numba's conversion kinds, from the compiler's rules.
2. A signature some argument cannot convert to is out. Among the rest the best has the fewest unsafe, then
   safe, then promoting conversions.
3. None left: TypeError "No matching definition for argument type(s) ..." (numba's words).
4. Two or more best with equal ratings: TypeError "Ambiguous overloading for <function ...> (types):" and the
   tied signatures, one a line (numba's words; with numba imported, in numba's spelling of types), never a
   silent pick.
5. The chosen signature is cached per tuple of argument types; a launch then converts the arguments as the
   signature says (the kernel layer refuses what it cannot pass, e.g. a float for an int64 parameter, as
   numba-cuda's argument preparation does).
"""
from __future__ import annotations

import sys

from . import _core
from ._types import Signature, Type, typeof

_NONE = 4  # the compiler's Conversion::None; 0 exact, 1 promote, 2 safe, 3 unsafe


def conversion(actual: Type, formal: Type) -> int:
    """numba's conversion kind of an argument of type `actual` to a parameter of type `formal`."""
    if actual == formal:
        return 0
    if actual.kind == "array" or formal.kind == "array":
        return 2 if actual.kind == formal.kind and formal.accepts(actual) else _NONE
    return _core._can_convert(actual, formal)


def _rating(params, sig: Signature):
    if len(sig.args) != len(params):
        return None
    counts = [0, 0, 0]  # unsafe, safe, promote: numba's Rating.astuple()
    for actual, formal in zip(params, sig.args):
        kind = conversion(actual, formal)
        if kind == _NONE:
            return None
        if kind:
            counts[3 - kind] += 1
    return tuple(counts)


class Resolver:
    """A kernel's declared signatures and the choice made per tuple of argument types."""

    __slots__ = ("_py_func", "_signatures", "_chosen")

    def __init__(self, py_func, signatures):
        self._py_func = py_func
        self._signatures = list(dict.fromkeys(signatures))  # a signature declared twice is one candidate
        self._chosen: dict[tuple, Signature] = {}

    def __call__(self, args) -> Signature:
        """The signature a launch with these arguments runs."""
        return self.for_types(tuple(typeof(a) for a in args))

    def for_types(self, params: tuple) -> Signature:
        """The signature a launch with arguments of these types runs."""
        sig = self._chosen.get(params)
        if sig is None:
            sig = self._chosen[params] = self._resolve(params)
        return sig

    def _resolve(self, params) -> Signature:
        rated = [(r, s) for s in self._signatures if (r := _rating(params, s)) is not None]
        if not rated:
            raise TypeError(f"No matching definition for argument type(s) {', '.join(map(str, params))}: kernel "
                            f"{self._py_func.__name__!r} was declared with "
                            f"{', '.join(str(_core.KernelSignature(s)) for s in self._signatures)}")
        rated.sort(key=lambda r: r[0])  # stable: declaration order among equals
        tied = [s for r, s in rated if r == rated[0][0]]
        if len(tied) > 1:
            raise TypeError(_ambiguous(self._py_func, params, tied))
        return rated[0][1]


def _ambiguous(py_func, params, tied) -> str:
    spelled = _numba_spelling(params, tied)
    if spelled is None:  # cubridge's spelling
        spelled = "(" + ", ".join(map(str, params)) + ")", [str(s) for s in tied]
    args, sigs = spelled
    return (f"Ambiguous overloading for {py_func!r} {args}:\n" + "\n".join(sigs) +
            "\n(give the arguments the exact types of one signature, e.g. numpy.float32(x))")


def _numba_types():
    """numba-cuda's own types module, or numba's where numba.cuda is the one numba ships (CUDA types only);
    None when neither is imported."""
    found = [m for m in map(sys.modules.get, ("numba.cuda.types", "numba.core.types")) if hasattr(m, "Array")]
    return found[0] if found else None


def _numba_spelling(params, tied):
    """numba's text of the argument types and tied signatures, where numba's types module is imported."""
    types = _numba_types()
    if types is None:
        return None
    try:
        args = tuple(_numba_type(types, t) for t in params)
        sigs = [str(types.none(*(_numba_type(types, t) for t in s.args))) for s in tied]
    except (AttributeError, TypeError):  # a type numba has no name for: cubridge's spelling
        return None
    return str(args), sigs


def numba_type(t: Type):
    """numba's type object for `t` where numba is imported and names it; else `t` itself."""
    types = _numba_types()
    if types is None:
        return t
    try:
        return _numba_type(types, t)
    except (AttributeError, TypeError):
        return t


def _numba_type(types, t: Type):
    if t.kind == "array":
        return types.Array(_numba_type(types, t.dtype), t.ndim, t.layout, readonly=t.readonly)
    if t.kind == "tuple":  # numba's Tuple of equal element types is its UniTuple
        return types.Tuple([_numba_type(types, e) for e in t.elements])
    if t.kind == "none":
        return types.none
    if t.kind == "foreign":  # a numba extension type: numba's own type object (_numba_struct_models.py)
        from ._numba_struct_models import numba_type_of
        return numba_type_of(t)
    found = getattr(types, t.name)
    if not isinstance(found, types.Type):
        raise TypeError(t.name)
    return found
