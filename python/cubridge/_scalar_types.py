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
