"""Kernel launches: host-side launch overhead of one kernel taking 3 CuPy arrays (out = a + b on 32
floats), cubridge vs numba-cuda's dispatcher vs CuPy RawKernel vs cuda.core's launch (if importable);
and the device time of the same PTX over 16M floats, cubridge vs numba-cuda.

The same launch on cubridge.DeviceArray views of the CuPy arrays shows the cost of reading CuPy's
__cuda_array_interface__ at every call. Launch overhead: batches of launches timed on the host (the queue is drained between batches, outside
the timing); the figure is the median over batches of the per-launch mean. cubridge and numba-cuda run
the same PTX (numba-cuda's compile_ptx of one Python kernel); CuPy and cuda.core run the equivalent
CUDA C++. Usage: python bench/bench_kernels.py [--json PATH] [--quick]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings

import numpy

if not hasattr(numpy, "row_stack"):  # numba-cuda 0.30 still calls it; numpy 2.5 removed it
    numpy.row_stack = numpy.vstack

import cupy as cp
from numba import cuda

import cubridge

SIG = "void(float32[:], float32[:], float32[:])"
N_SMALL = 32
N_BIG = 1 << 24
TARGET_US = 3.0

CUDA_CPP = r"""
extern "C" __global__ void add(const float* a, const float* b, float* out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
"""


def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


def launch_us(launch, batches: int, per_batch: int) -> float:
    for _ in range(3 * per_batch):  # warm up: caches, lazy loading, first-launch costs
        launch()
    cp.cuda.Device().synchronize()
    means = []
    for _ in range(batches):
        t0 = time.perf_counter_ns()
        for _ in range(per_batch):
            launch()
        means.append((time.perf_counter_ns() - t0) / per_batch / 1e3)
        cp.cuda.Device().synchronize()
    return statistics.median(means)


def device_ms(launch, reps: int) -> float:
    start, end = cp.cuda.Event(), cp.cuda.Event()
    launch()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        start.record()
        launch()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def cuda_core_launcher(a, b, out, n):
    """cuda.core's bare launch of the same C++ kernel, or (None, why)."""
    try:
        try:
            from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
        except ImportError:
            from cuda.core.experimental import Device, LaunchConfig, Program, ProgramOptions, launch
        dev = Device()
        dev.set_current()
        arch = "sm_" + "".join(str(v) for v in dev.compute_capability)
        prog = Program(CUDA_CPP, code_type="c++", options=ProgramOptions(arch=arch))
        kernel = prog.compile("cubin").get_kernel("add")
        stream = dev.create_stream()
        cfg = LaunchConfig(grid=1, block=32)
        args = (a.data.ptr, b.data.ptr, out.data.ptr, numpy.int64(n))

        def go():
            launch(stream, cfg, kernel, *args)
        go()  # fail here, inside the try, if this release spells something differently
        stream.sync()
        return go, None
    except Exception as e:  # API drift between cuda.core releases: report, keep going
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the rows (bench/README.md format) here")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    opts = ap.parse_args()
    batches, per_batch, reps = (20, 50, 5) if opts.quick else (200, 100, 30)

    a = cp.arange(N_SMALL, dtype=cp.float32)
    b = cp.ones(N_SMALL, dtype=cp.float32)
    out = cp.zeros(N_SMALL, dtype=cp.float32)

    ptx, _ = cuda.compile_ptx(add, SIG, cc=divmod(int(cp.cuda.Device().compute_capability), 10))
    (entry,) = cubridge.ptx_entry_names(ptx)
    ours_kernel = cubridge.load_kernel(ptx, entry, SIG)
    ours_launch = ours_kernel[1, 32]
    numba_kernel = cuda.jit(SIG)(add)
    numba_launch = numba_kernel[1, 32]
    raw = cp.RawKernel(CUDA_CPP, "add")
    n64 = numpy.int64(N_SMALL)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba-cuda's performance warnings about small grids
        rows_us = {
            "cubridge": launch_us(lambda: ours_launch(a, b, out), batches, per_batch),
            "numba-cuda dispatcher": launch_us(lambda: numba_launch(a, b, out), batches, per_batch),
            "CuPy RawKernel": launch_us(lambda: raw((1,), (32,), (a, b, out, n64)), batches, per_batch),
        }
        da, db, dout = (cubridge.as_cuda_array(x) for x in (a, b, out))  # zero-copy views, CAI read once
        ours_on_views = launch_us(lambda: ours_launch(da, db, dout), batches, per_batch)
        configured_each_time = (
            launch_us(lambda: ours_kernel[1, 32](a, b, out), batches, per_batch),
            launch_us(lambda: numba_kernel[1, 32](a, b, out), batches, per_batch))
        core, why = cuda_core_launcher(a, b, out, N_SMALL)
        rows_us["cuda.core launch" + (f" (unavailable: {why})" if why else "")] = (
            launch_us(core, batches, per_batch) if core else None)
    cp.testing.assert_array_equal(out, cp.arange(N_SMALL, dtype=cp.float32) + 1)

    big_a = cp.ones(N_BIG, dtype=cp.float32)
    big_b = cp.ones(N_BIG, dtype=cp.float32)
    big_out = cp.zeros(N_BIG, dtype=cp.float32)
    grid = (N_BIG + 255) // 256
    big_ours = ours_kernel[grid, 256]
    big_numba = numba_kernel[grid, 256]
    ours_ms = device_ms(lambda: big_ours(big_a, big_b, big_out), reps)
    numba_ms = device_ms(lambda: big_numba(big_a, big_b, big_out), reps)
    copy_ms = device_ms(lambda: big_out.__setitem__(Ellipsis, big_a), reps)

    case = "launch overhead, kernel on 3 CuPy arrays (host side, median)"
    rows = [{"face": "code", "case": case, "unit": "us", "ours": rows_us["cubridge"], "peer": peer,
             "peer_value": v, "target": TARGET_US} for peer, v in rows_us.items() if peer != "cubridge"]
    rows.append({"face": "code", "case": "launch overhead, same arrays as cubridge.DeviceArray views", "unit": "us",
                 "ours": ours_on_views, "peer": "CuPy RawKernel", "peer_value": rows_us["CuPy RawKernel"],
                 "target": TARGET_US})
    rows.append({"face": "code", "case": "launch overhead with kernel[1, 32] written at each call", "unit": "us",
                 "ours": configured_each_time[0], "peer": "numba-cuda dispatcher",
                 "peer_value": configured_each_time[1], "target": TARGET_US})
    rows.append({"face": "code", "case": "device time, out = a + b on 16M float32 (same PTX)", "unit": "ms",
                 "ours": ours_ms, "peer": "numba-cuda dispatcher", "peer_value": numba_ms, "target": None})
    bytes_moved = 3 * 4 * N_BIG
    rows.append({"face": "code", "case": "effective bandwidth of that add, GB/s (vs a device copy of 16M floats)",
                 "unit": "GB/s", "ours": bytes_moved / ours_ms / 1e6, "peer": "CuPy device-to-device copy",
                 "peer_value": 2 * 4 * N_BIG / copy_ms / 1e6, "target": None})

    print("| case | unit | cubridge | peer | peer median | ratio (ours/peer) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        pv = r["peer_value"]
        ratio = f"{r['ours'] / pv:.3g}" if pv else "—"
        print(f"| {r['case']} | {r['unit']} | {r['ours']:.3g} | {r['peer']} | "
              f"{'—' if pv is None else f'{pv:.3g}'} | {ratio} |")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
