"""Where a cold first compile's time goes (issue 22's "cold first compile ≤ 150 ms"): fresh processes that start
Python alone, import cubridge, and import cubridge then compile the one-line function (an empty on-disk cache
each time), medians of `--reps`; then, in one more fresh process, the import's slowest modules (-X importtime)
and the first compile's own time beside a second one. `--heavy-parent` times the same children again from this
process once it holds what bench_launch.py's process holds when it times its cold compile (CuPy, PyTorch and
numba-cuda loaded, each with a CUDA context and arrays on the GPU): the cost of starting a child from such a
parent, which is no part of the child's compile.

    python bench/probe_cold_compile.py [--reps 9] [--heavy-parent]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

TINY = "def tiny(a, b):\n    return a + b\n"
PROGRAMS = {
    "python alone": "pass",
    "import cubridge": "import cubridge",
    "import cubridge + compile the 1-line function": (
        "import cubridge\nfrom probe_tiny import tiny\n"
        "cubridge.compile_ptx(tiny, 'float32(float32, float32)', device=True)\n"),
}
SPLIT = (
    "import time\nt0 = time.perf_counter()\nimport cubridge\nt1 = time.perf_counter()\nfrom probe_tiny import tiny\n"
    "cubridge.compile_ptx(tiny, 'float32(float32, float32)', device=True)\nt2 = time.perf_counter()\n"
    "cubridge.compile_ptx(tiny, 'float64(float64, float64)', device=True)\nt3 = time.perf_counter()\n"
    "print(f'in-process: import {(t1 - t0) * 1e3:.1f} ms, first compile {(t2 - t1) * 1e3:.1f} ms, "
    "second compile {(t3 - t2) * 1e3:.1f} ms')\n")


def run(code: str, folder: str, *flags: str) -> tuple[float, subprocess.CompletedProcess]:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, CUBRIDGE_CACHE_DIR=cache,
                   PYTHONPATH=os.pathsep.join(filter(None, [folder, os.environ.get("PYTHONPATH")])))
        t = time.perf_counter()
        r = subprocess.run([sys.executable, *flags, "-c", code], env=env, capture_output=True, text=True, check=True)
        return (time.perf_counter() - t) * 1e3, r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--heavy-parent", action="store_true")
    opts = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="probe_cold_")
    with open(os.path.join(folder, "probe_tiny.py"), "w") as f:
        f.write(TINY)
    report(times_of(folder, opts.reps), "")
    print(run(SPLIT, folder)[1].stdout.strip())
    rows = []
    for line in run("import cubridge", folder, "-X", "importtime")[1].stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[0].startswith("import time:") and parts[1].strip().isdigit():
            rows.append((int(parts[0].split(":")[1]), int(parts[1]), parts[2].rstrip()))
    print("slowest modules of `import cubridge` (self µs, cumulative µs):")
    for self_us, cum_us, name in sorted(rows, key=lambda r: -r[0])[:20]:
        print(f"{self_us:8d} {cum_us:8d}  {name}")
    if opts.heavy_parent:
        held = hold_cuda()
        report(times_of(folder, opts.reps), f"  [from a parent holding {held}]")


def times_of(folder: str, reps: int) -> dict:
    times = {name: [] for name in PROGRAMS}
    for _ in range(reps):  # the programs in turn, so that a drift of the host weighs on each the same
        for name, code in PROGRAMS.items():
            times[name].append(run(code, folder)[0])
    return times


def report(times: dict, suffix: str) -> None:
    for name, ts in times.items():
        print(f"{statistics.median(ts):8.1f} ms (min {min(ts):6.1f})  {name}{suffix}", flush=True)


def hold_cuda() -> str:
    """Loads what bench_launch.py's process has loaded by its cold-compile rows, each with arrays on the GPU."""
    import numpy
    held = []
    import cupy as cp
    keep = [cp.zeros(256, dtype=cp.float32)]
    held.append("CuPy")
    try:
        import torch
        keep.append(torch.zeros(256, device="cuda"))
        held.append("PyTorch")
    except Exception:  # noqa: BLE001 - held without it
        pass
    numpy.row_stack = numpy.vstack  # numba-cuda 0.30 with NumPy 2.5
    from numba import cuda
    keep.append(cuda.to_device(numpy.zeros(256, numpy.float32)))
    held.append("numba-cuda")
    import cubridge
    keep.append(cubridge.device_array(256, "f4"))
    held.append("cubridge")
    hold_cuda.keep = keep
    return ", ".join(held)


if __name__ == "__main__":
    main()
