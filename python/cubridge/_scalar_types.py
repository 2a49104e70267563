"""The scalar types as the Python package reads them: views of cubridge's one scalar-type table
(include/cubridge/types/scalar_type.hpp), whose rows ``_core._scalar_types()`` hands over. No type is listed
here; each view says which columns it reads."""
from __future__ import annotations

from . import _core

#: Every row, in the table's order (XLA opaque shapes write a type as its position + 1).
ROWS = tuple(_core._scalar_types())

#: The rows of the types NumPy has (every one but bfloat16): what arrays hold, kernels take and the
#: compiler's numbers are.
NUMPY_ROWS = tuple(r for r in ROWS if r.kind is not None)

#: Numba's names of those types: 'bool', 'int8', ..., 'complex128'.
NUMPY_NAMES = tuple(r.name for r in NUMPY_ROWS)

#: (NumPy kind, itemsize) -> Numba name: ('f', 4) -> 'float32'.
NAME_OF_NUMPY = {(r.kind, r.itemsize): r.name for r in NUMPY_ROWS}

#: NumPy's kinds that have a row, each once: 'biufc'.
NUMPY_KINDS = "".join(dict.fromkeys(r.kind for r in NUMPY_ROWS))

#: NumPy kinds numba-cuda types that cubridge's kernels do not take, with numba-cuda's type and what it does:
#: said in the refusal, so that a user of numba-cuda knows what is missing rather than guessing.
UNSUPPORTED_KINDS = {
    "S": "numba-cuda types them as CharSeq; cubridge takes arrays of them in native byte order only",
    "U": "numba-cuda types them as UnicodeCharSeq; cubridge takes arrays of them in native byte order only "
         "(a.astype(a.dtype.newbyteorder('=')))",
    "M": "datetime64 arrays are taken in native byte order with one of NumPy's units (Y, M, W, D, h, m, s, "
         "ms, us, ns, ps, fs, as), not multiples of one ([10s])",
    "m": "timedelta64 arrays are taken in native byte order with one of NumPy's units (Y, M, W, D, h, m, s, "
         "ms, us, ns, ps, fs, as), not multiples of one ([10s])",
}

#: NumPy's datetime kinds and Numba's name of their types (NPDatetime "datetime64[D]", NPTimedelta).
DATETIME_NAMES = {"M": "datetime64", "m": "timedelta64"}


def datetime_name(typestr: str) -> str | None:
    """Numba's name of the type of a datetime64/timedelta64 typestr ('<M8[D]' -> 'datetime64[D]', '<m8' ->
    'timedelta64[]', the generic unit), or None when it is no such typestr in native order (Type.parse refuses a bad unit)."""
    import re
    import sys
    native = "=|" + ("<" if sys.byteorder == "little" else ">")
    m = re.fullmatch(r"([=|<>])([Mm])8(\[(?:Y|M|W|D|h|m|s|ms|us|ns|ps|fs|as)\])?", typestr)
    if m is None or m.group(1) not in native:
        return None
    return DATETIME_NAMES[m.group(2)] + (m.group(3) or "[]")

#: NumPy's fixed-width string kinds and Numba's name of their element type (numba's CharSeq "[char x 12]" for
#: '|S12', UnicodeCharSeq "[unichr x 12]" for '<U12'; the typestr counts bytes for 'S', code points for 'U').
CHAR_SEQ_NAMES = {"S": "char", "U": "unichr"}


def char_seq_name(kind: str, count: int) -> str:
    """Numba's name of the element type of an array of typestr kind 'S' or 'U' and that count."""
    return f"[{CHAR_SEQ_NAMES[kind]} x {count}]"


def is_ml_dtypes_bfloat16_class(v) -> bool:
    """Whether ``v`` is the class ``ml_dtypes.bfloat16`` (numba-cuda types it as NumberClass(bfloat16): calling it
    in a kernel casts to bfloat16)."""
    return isinstance(v, type) and getattr(v, "__module__", None) == "ml_dtypes" and \
        getattr(v, "__name__", None) == "bfloat16"


def is_ml_dtypes_bfloat16(dtype) -> bool:
    """Whether ``dtype`` (a NumPy dtype, or anything else) is ``np.dtype(ml_dtypes.bfloat16)``: the dtype NumPy
    and CuPy arrays of bfloat16 have, whose typestr '<V2' does not say so. numba-cuda types such arrays as
    bfloat16 (its FROM_DTYPE entry for ml_dtypes.bfloat16); a bare '<V2' is opaque bytes."""
    return is_ml_dtypes_bfloat16_class(getattr(dtype, "type", None))
