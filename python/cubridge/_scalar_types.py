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
    "M": "numba-cuda types them as NPDatetime (int64 counts of the unit, with datetime arithmetic and NaT); "
         "cubridge does not have datetime types: pass a.view(np.int64) and do the arithmetic on the counts",
    "m": "numba-cuda types them as NPTimedelta (int64 counts of the unit, with NaT); cubridge does not have "
         "timedelta types: pass a.view(np.int64) and do the arithmetic on the counts",
}

#: NumPy's fixed-width string kinds and Numba's name of their element type (numba's CharSeq "[char x 12]" for
#: '|S12', UnicodeCharSeq "[unichr x 12]" for '<U12'; the typestr counts bytes for 'S', code points for 'U').
CHAR_SEQ_NAMES = {"S": "char", "U": "unichr"}


def char_seq_name(kind: str, count: int) -> str:
    """Numba's name of the element type of an array of typestr kind 'S' or 'U' and that count."""
    return f"[{CHAR_SEQ_NAMES[kind]} x {count}]"
