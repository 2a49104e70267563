"""A/B of cubridge builds on the lazy launch (issue 22): the rows of bench_launch.py that decide the per-array
figure (`k[1, 32](*arrays)` on 0, 1 and 16 CuPy arrays, PyTorch tensors, numba device arrays and cubridge arrays),
with the floor from Python in the same interleaved run, for the cubridge package on PYTHONPATH. Two builds are
compared by running this script in turn under each (bench/ab_run.sh does it on the GPU machine, a start commit
against the checkout): one process per build and round, rounds alternating, so that the host's drift weighs on both
alike.

    PYTHONPATH=/tmp/site-a python bench/ab_launch.py --label a --json out/a1.json
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import warnings

import numpy

if not hasattr(numpy, "row_stack"):  # numba-cuda 0.30 with numpy 2.5
    numpy.row_stack = numpy.vstack

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from interleaved import interleaved_us  # noqa: E402

N = 32


def k0():
    pass


def k1(a0):
    pass


def k16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15):
    pass


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--batches", type=int, default=9)
    ap.add_argument("--per-batch", type=int, default=400)
    opts = ap.parse_args()

    import cupy as cp
    import torch
    from numba import cuda

    import cubridge
    from hooks import bench_hooks
    from bench_kernels import EMPTY_PTX

    kinds = {"CuPy": [cp.zeros(N, dtype=cp.float32) for _ in range(16)],
             "PyTorch": [torch.zeros(N, dtype=torch.float32, device="cuda") for _ in range(16)],
             "numba": [cuda.to_device(numpy.zeros(N, numpy.float32)) for _ in range(16)],
             "cubridge": [cubridge.device_array(N, "f4") for _ in range(16)]}
    ints = [x.data.ptr for x in kinds["CuPy"][:3]]
    python_floor = bench_hooks().python_launcher(EMPTY_PTX, "k", [*ints, int(N)])
    fns = {"python floor": lambda: python_floor()}
    for kind, arrays in kinds.items():
        for n, fn in ((0, k0), (1, k1), (16, k16)):
            d = cubridge.jit(fn)
            args = tuple(arrays[:n])
            fns[f"{kind} {n}"] = (lambda d, a: lambda: d[1, 32](*a))(d, args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        timed = interleaved_us(fns, opts.per_batch, opts.batches, cp.cuda.Device().synchronize, warmup=20)
    out = {"label": opts.label, "rows": {name: median for name, (median, _) in timed.items()}}
    pathlib.Path(opts.json).write_text(json.dumps(out))
    rows = out["rows"]
    per = {k: (rows[f"{k} 16"] - rows[f"{k} 1"]) / 15 for k in kinds}
    print(opts.label, f"floor {rows['python floor']:.2f}",
          " ".join(f"{k} {rows[f'{k} 0']:.2f}/{rows[f'{k} 1']:.2f}/{rows[f'{k} 16']:.2f} ({per[k]:.3f})" for k in kinds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
