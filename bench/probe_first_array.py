"""What the first array of a lazy launch costs, by library (issue 22's "1 array" rows against CuPy's RawKernel):
the lazy launch of an empty kernel with no argument and with one array of each kind (cubridge, CuPy, PyTorch,
numba), typeof of each array alone (`_core._array_param`: one import, no launch), CuPy's RawKernel on no array and
on one, the bare-launch floor from Python, and CuPy's current-stream C function timed alone in a C++ loop; all
rows interleaved in one process (interleaved.py).

    python bench/probe_first_array.py [--calls 4000] [--batches 15]
"""
from __future__ import annotations

import argparse
import os
import sys

import cupy as cp
import numpy

import cubridge
from cubridge import _core

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_kernels import EMPTY_PTX  # noqa: E402
from hooks import bench_hooks  # noqa: E402
from interleaved import interleaved_us  # noqa: E402
from probe_context import one, zero  # noqa: E402  (the same empty @cubridge.jit kernels)


RAW = r'''
extern "C" __global__ void zero() {}
extern "C" __global__ void one(float* a) {}
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=4000)
    ap.add_argument("--batches", type=int, default=15)
    opts = ap.parse_args()
    n = 256
    arrays = {"cubridge": cubridge.device_array(n, "f4"), "CuPy": cp.zeros(n, dtype=cp.float32)}
    try:
        import torch
        arrays["PyTorch"] = torch.zeros(n, device="cuda")
    except Exception as e:  # noqa: BLE001 - the PyTorch rows say so
        print(f"(no PyTorch rows: {type(e).__name__}: {e})")
    try:
        numpy.row_stack = numpy.vstack  # numba-cuda 0.30 with NumPy 2.5
        from numba import cuda
        arrays["numba"] = cuda.to_device(numpy.zeros(n, numpy.float32))
    except Exception as e:  # noqa: BLE001
        print(f"(no numba rows: {type(e).__name__}: {e})")
    module = cp.RawModule(code=RAW)
    raw_zero, raw_one = module.get_function("zero"), module.get_function("one")
    ptrs = [arrays["CuPy"].data.ptr, arrays["CuPy"].data.ptr, arrays["CuPy"].data.ptr]
    python_floor = bench_hooks().python_launcher(EMPTY_PTX, "k", [*ptrs, n])
    rows = {
        "floor from Python (bare cuLaunchKernel, 4 words)": lambda: python_floor(),
        "zero[1, 32]()": lambda: zero[1, 32](),
        "RawKernel zero((1,), (32,), ())": lambda: raw_zero((1,), (32,), ()),
        "RawKernel one((1,), (32,), (CuPy,))": lambda: raw_one((1,), (32,), (arrays["CuPy"],)),
    }
    for kind, a in arrays.items():
        rows[f"one[1, 32]({kind})"] = (lambda x: lambda: one[1, 32](x))(a)
        rows[f"_core._array_param({kind})"] = (lambda x: lambda: _core._array_param(x))(a)
    rows["lambda: None"] = lambda: None
    for fn in rows.values():
        fn()
    cp.cuda.runtime.deviceSynchronize()
    print("cupy", cp.__version__, "reader:", _core._cupy_reader(), flush=True)
    timed = interleaved_us(rows, opts.calls, opts.batches, cp.cuda.runtime.deviceSynchronize, warmup=opts.calls)
    for name, (median, least) in timed.items():
        print(f"{median:8.3f} us (min {least:7.3f})  {name}", flush=True)
    for module in ("cupy.cuda.stream", "cupy_backends.cuda.stream"):  # CuPy's own launches ask the first; we the second
        stream_ns = sorted(bench_hooks().cupy_current_stream_ns(200_000, module) for _ in range(9))
        print(f"{stream_ns[4]:8.1f} ns  {module}.get_current_stream_ptr (C function, median of 9 C++ loops of 200,000)")


if __name__ == "__main__":
    main()
