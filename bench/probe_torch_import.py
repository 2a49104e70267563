"""Where a PyTorch tensor's import costs on the lazy launch path and the C API (issue 22's per-tensor figures):
the same launches and C API imports with the tensors read through cubridge._torch_glue (where the package was
built against this PyTorch) and through the exchange table's dltensor_from_py_object_no_sync, batches in turn;
then the C API import's steps, each timed alone (_core._torch_import_steps_ns).

    python bench/probe_torch_import.py
"""
from __future__ import annotations

import os
import statistics
import sys
import time

import torch

import cubridge
from cubridge import _core

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_cupy_import import one, sixteen  # noqa: E402


def main() -> None:
    t = torch.zeros(256, device="cuda")
    ts = [torch.zeros(256, device="cuda") for _ in range(16)]
    print("torch", torch.__version__, "glue table:", _core._torch_glue_table() is not None, flush=True)
    rows = {
        "one[1, 32](t)": lambda: one[1, 32](t),
        "sixteen[1, 32](*16 tensors)": lambda: sixteen[1, 32](*ts),
        "cubridge.as_cuda_array(t)": lambda: cubridge.as_cuda_array(t),
    }
    c_api = lambda n: _core._c_import_ns(t, n) * n / 1e9  # noqa: E731 - seconds for n C API imports
    calls, batches = 4000, 15
    means = {(name, way): [] for name in [*rows, "C API import (C++ loop)"] for way in ("glue", "exchange table")}
    for fn in rows.values():
        fn()
    for _ in range(batches):
        for way in ("glue", "exchange table"):
            _core._torch_glue_reader(way == "glue")
            for name, fn in rows.items():
                torch.cuda.synchronize()
                start = time.perf_counter()
                for _ in range(calls):
                    fn()
                means[(name, way)].append((time.perf_counter() - start) / calls * 1e6)
            means[("C API import (C++ loop)", way)].append(c_api(20 * calls) / (20 * calls) * 1e6)
    _core._torch_glue_reader(True)
    for (name, way), m in means.items():
        print(f"{statistics.median(m):8.3f} us (min {min(m):7.3f})  {name}  [{way}]", flush=True)
    per = {way: (statistics.median(means[("sixteen[1, 32](*16 tensors)", way)]) -
                 statistics.median(means[("one[1, 32](t)", way)])) / 15 for way in ("glue", "exchange table")}
    print("per extra tensor:", {way: round(v, 3) for way, v in per.items()})
    steps = [_core._torch_import_steps_ns(t, 100_000) for _ in range(9)]
    print("C API import of one tensor, step by step (median ns of 9 C++ loops of 100,000):")
    for step in steps[0]:
        print(f"{statistics.median(s[step] for s in steps):8.1f} ns  {step}")


if __name__ == "__main__":
    main()
