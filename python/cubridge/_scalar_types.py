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
    "S": "numba-cuda types them as CharSeq (fixed-width byte strings, assignable from bytes constants); "
         "cubridge's kernels do not take string data: pass the bytes as a uint8 array (a.view(np.uint8))",
    "U": "numba-cuda types them as UnicodeCharSeq (fixed-width UTF-32 strings, assignable from str constants); "
         "cubridge's kernels do not take string data: pass the code points as a uint32 array (a.view(np.uint32))",
    "M": "numba-cuda types them as NPDatetime (int64 counts of the unit, with datetime arithmetic and NaT); "
         "cubridge does not have datetime types: pass a.view(np.int64) and do the arithmetic on the counts",
    "m": "numba-cuda types them as NPTimedelta (int64 counts of the unit, with NaT); cubridge does not have "
         "timedelta types: pass a.view(np.int64) and do the arithmetic on the counts",
}
