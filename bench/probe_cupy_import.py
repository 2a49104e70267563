"""Where a CuPy array's import costs on the lazy launch path (issue 22's per-array figure): each attribute the
CuPy reader asks (py_import.hpp cupy_view) timed alone, beside the CAI dict, cubridge's typeof of the array
(one import, no launch) and the lazy launch of an empty kernel with 1 and 16 arrays.

    python bench/probe_cupy_import.py
"""
from __future__ import annotations

import os
import sys

import cupy as cp

import cubridge
from cubridge import _core

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import interleaved_us  # noqa: E402


@cubridge.jit
def one(a):
    pass


@cubridge.jit
def sixteen(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15):
    pass


def main() -> None:
    a = cp.zeros(256, dtype=cp.float32)
    arrs = [cp.zeros(256, dtype=cp.float32) for _ in range(16)]
    import numpy as np
    ours = cubridge.to_device(np.zeros(256, dtype=np.float32))
    rows = {
        "a.dtype": lambda: a.dtype,
        "a.shape": lambda: a.shape,
        "a.strides": lambda: a.strides,
        "a.data": lambda: a.data,
        "a.data.ptr": lambda: a.data.ptr,
        "a.data.device_id": lambda: a.data.device_id,
        "a.size": lambda: a.size,
        "a._c_contiguous": (lambda: a._c_contiguous) if hasattr(a, "_c_contiguous") else (lambda: None),
        "a.flags.c_contiguous": lambda: a.flags.c_contiguous,
        "a.__cuda_array_interface__": lambda: a.__cuda_array_interface__,
        "cupy.cuda.get_current_stream().ptr": lambda: cp.cuda.get_current_stream().ptr,
        "_core._array_param(a) (cubridge typeof: one import)": lambda: _core._array_param(a),
        "one[1, 32](a)": lambda: one[1, 32](a),
        "sixteen[1, 32](*16 arrays)": lambda: sixteen[1, 32](*arrs),
        "lambda: None": lambda: None,
    }
    if ours is not None:
        many = [cubridge.to_device(np.zeros(256, dtype=np.float32)) for _ in range(16)]
        rows["one[1, 32](cubridge array)"] = lambda: one[1, 32](ours)
        rows["sixteen[1, 32](*16 cubridge arrays)"] = lambda: sixteen[1, 32](*many)
    for fn in rows.values():
        fn()
    print("cupy", cp.__version__, "has _c_contiguous:", hasattr(a, "_c_contiguous"),
          "exchange api:", hasattr(type(a), "__dlpack_c_exchange_api__"), "reader:", _core._cupy_reader(), flush=True)
    for name, (median, least) in interleaved_us(rows, 5000, 15, cp.cuda.runtime.deviceSynchronize).items():
        print(f"{median:8.3f} us (min {least:7.3f})  {name}", flush=True)


if __name__ == "__main__":
    main()
