"""Where a numba-cuda device array's import costs on the lazy launch path (issue 22's per-array figure): each
attribute the numba reader asks (py_numba_reader.hpp) timed alone, beside the CAI property, cubridge's
import of the array (as_cuda_array, one import) and the lazy launch of an empty kernel with 1 and 16 arrays.

    python bench/probe_numba_import.py
"""
from __future__ import annotations

import os
import sys

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still calls it; numpy 2.5 removed it
    np.row_stack = np.vstack
from numba import cuda  # noqa: E402

import cubridge  # noqa: E402
from cubridge import _core  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import interleaved_us  # noqa: E402
from probe_cupy_import import one, sixteen  # noqa: E402


def main() -> None:
    a = cuda.to_device(np.zeros(256, dtype=np.float32))
    arrs = [cuda.to_device(np.zeros(256, dtype=np.float32)) for _ in range(16)]
    g = a.gpu_data
    rows = {
        "a.shape": lambda: a.shape,
        "a.strides": lambda: a.strides,
        "a.dtype": lambda: a.dtype,
        "a.stream": lambda: a.stream,
        "a.gpu_data": lambda: a.gpu_data,
        "int(a.gpu_data.device_pointer)": lambda: int(g.device_pointer),
        "a.__cuda_array_interface__": lambda: a.__cuda_array_interface__,
        "cubridge.as_cuda_array(a)": lambda: cubridge.as_cuda_array(a),
        "one[1, 32](a)": lambda: one[1, 32](a),
        "sixteen[1, 32](*16 arrays)": lambda: sixteen[1, 32](*arrs),
        "lambda: None": lambda: None,
    }
    for fn in rows.values():
        fn()
    print("route:", _core._import_route(a), "gpu_data:", type(g).__name__, "memo:", _core._import_memo(), flush=True)
    for name, (median, least) in interleaved_us(rows, 5000, 15, cuda.synchronize).items():
        print(f"{median:8.3f} us (min {least:7.3f})  {name}", flush=True)
    print("memo:", _core._import_memo(), flush=True)


if __name__ == "__main__":
    main()
