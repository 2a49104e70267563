"""Kernel launches: host-side launch overhead of one kernel taking 3 CuPy arrays (out = a + b on 32
floats), cubridge vs numba-cuda's dispatcher vs CuPy RawKernel vs cuda.core's launch (if importable);
the device time of the same PTX over 16M floats, cubridge vs numba-cuda; and issue 17's rows: the empty
kernel `k(float* a, float* b, float* c, int64 n)` with both parameter styles on cubridge arrays, PyTorch
tensors, raw addresses and CuPy arrays, beside the floor (bare cuLaunchKernel in a C++ loop on the same
kernel, cubridge._bench.bare_launch_ns) and the peers.

The same launch on cubridge.DeviceArray views of the CuPy arrays shows the cost of reading CuPy's
__cuda_array_interface__ at every call. Launch overhead: batches of launches timed on the host (the queue is drained between batches, outside
the timing); the figure is the median over batches of the per-launch mean. cubridge and numba-cuda run
the same PTX (numba-cuda's compile_ptx of one Python kernel); CuPy and cuda.core run the equivalent
CUDA C++. Usage: python bench/bench_kernels.py [--json PATH] [--quick]
"""
from __future__ import annotations

import argparse
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
from hooks import bench_hooks

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from rows import report  # noqa: E402  (the table-and-JSON ending every bench shares)

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
    return cuda_core_launcher_for(CUDA_CPP, "add", (a.data.ptr, b.data.ptr, out.data.ptr, numpy.int64(n)))


def cuda_core_launcher_for(source: str, name: str, args: tuple):
    """cuda.core's bare launch of `name` in the C++ `source` with `args`, or (None, why)."""
    try:
        try:
            from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
        except ImportError:
            from cuda.core.experimental import Device, LaunchConfig, Program, ProgramOptions, launch
        dev = Device()
        dev.set_current()
        arch = "sm_" + "".join(str(v) for v in dev.compute_capability)
        prog = Program(source, code_type="c++", options=ProgramOptions(arch=arch))
        kernel = prog.compile("cubin").get_kernel(name)
        stream = dev.create_stream()
        cfg = LaunchConfig(grid=1, block=32)

        def go():
            launch(stream, cfg, kernel, *args)
        go()  # fail here, inside the try, if this release spells something differently
        stream.sync()
        return go, None
    except Exception as e:  # API drift between cuda.core releases: report, keep going
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"


EMPTY_CPP = r"""
extern "C" __global__ void k(float* a, float* b, float* c, long long n) {}
"""
# The same empty kernel as PTX, so that cubridge and the floor launch exactly the code CuPy compiles.
EMPTY_PTX = """.version 7.0
.target sm_50
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 n) { ret; }
"""
POINTER_SIG = "void(float32*, float32*, float32*, int64)"
ARRAY_SIG = "void(float32[::1], float32[::1], float32[::1], int64)"
FLOOR_SLACK_US = 1.0  # issue 17: cubridge arrays, PyTorch tensors and raw ints within 1.0 µs of the floor
PEER_FACTOR = 0.8     # issue 17: on CuPy arrays, at most 0.8x CuPy RawKernel and cuda.core


def empty_kernel(a, b, c, n):
    pass


def launch_floor_rows(batches: int, per_batch: int) -> list[dict]:
    """Issue 17's launch rows: the empty 4-parameter kernel `k(float* a, float* b, float* c, int64 n)` on
    every argument kind, both parameter styles, beside the floor (bare cuLaunchKernel in a C++ loop on
    the same loaded kernel) and the peers on the same CuPy arrays."""
    n = N_SMALL
    cps = [cp.zeros(n, dtype=cp.float32) for _ in range(3)]
    ours = [cubridge.device_array(n, "f4") for _ in range(3)]
    ints = [x.data.ptr for x in cps]
    try:
        import torch
        tts = [torch.zeros(n, dtype=torch.float32, device="cuda") for _ in range(3)]
    except Exception as e:  # noqa: BLE001 - PyTorch missing or without CUDA: its rows say so
        print(f"(PyTorch rows skipped: {type(e).__name__}: {e})", file=sys.stderr)
        tts = None
    k_ptr = cubridge.load_kernel(EMPTY_PTX, "k", POINTER_SIG)[1, 32]
    # numba's array parameters: the same empty body compiled with the array signature (the pointer kernel's PTX, whose
    # 4 parameters are not numba's 7 words an array, is refused with that signature).
    k_arr = cubridge.jit(ARRAY_SIG)(empty_kernel)[1, 32]
    floor_kernel = cubridge.load_kernel(EMPTY_PTX, "k", POINTER_SIG)
    n64 = numpy.int64(n)

    def floor_us() -> float:
        floor_kernel[1, 32](*ints, n)  # loads and warms the module
        cp.cuda.Device().synchronize()
        means = []
        for _ in range(batches):
            means.append(bench_hooks().bare_launch_ns(EMPTY_PTX, "k", [*ints, int(n)], per_batch) / 1e3)
            cp.cuda.Device().synchronize()
        return statistics.median(means)

    floor = floor_us()
    raw = cp.RawKernel(EMPTY_CPP, "k")
    raw_us = launch_us(lambda: raw((1,), (32,), (*cps, n64)), batches, per_batch)
    core_go, why = cuda_core_launcher_for(EMPTY_CPP, "k", (*ints, n64))
    core_us = launch_us(core_go, batches, per_batch) if core_go else None
    numba_kernel = cuda.jit(ARRAY_SIG)(empty_kernel)[1, 32]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba-cuda's small-grid performance warning
        numba_us = launch_us(lambda: numba_kernel(*cps, n), batches, per_batch)

    rows = []

    def row(case, ours_us, peer, peer_us, target):
        rows.append({"face": "code", "case": case, "unit": "us", "ours": ours_us, "peer": peer,
                     "peer_value": peer_us, "target": target})

    row("launch floor: bare cuLaunchKernel in a C++ loop (empty 4-parameter kernel)", floor, None, None, None)
    kinds = [("cubridge arrays", ours), ("raw int addresses", ints)]
    if tts is not None:
        kinds.insert(1, ("PyTorch tensors", tts))
    for style, k in (("float32*", k_ptr), ("float32[::1]", k_arr)):
        for kind, (a, b, c) in kinds:
            if kind.startswith("raw") and style != "float32*":
                continue  # an int is an address only for a pointer parameter
            us = launch_us(lambda: k(a, b, c, n), batches, per_batch)
            row(f"launch, {style} params, on {kind}", us, "floor (bare cuLaunchKernel)", floor, floor + FLOOR_SLACK_US)
        a, b, c = cps
        us = launch_us(lambda: k(a, b, c, n), batches, per_batch)
        row(f"launch, {style} params, on CuPy arrays", us, "CuPy RawKernel", raw_us, PEER_FACTOR * raw_us)
        row(f"launch, {style} params, on CuPy arrays", us, "cuda.core launch" + (f" (unavailable: {why})" if why else ""),
            core_us, PEER_FACTOR * core_us if core_us else None)
        row(f"launch, {style} params, on CuPy arrays", us, "numba-cuda dispatcher", numba_us, None)
    row("launch, CuPy RawKernel on CuPy arrays", raw_us, "floor (bare cuLaunchKernel)", floor, None)
    if core_us is not None:
        row("launch, cuda.core on raw addresses", core_us, "floor (bare cuLaunchKernel)", floor, None)
    return rows


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

    rows += launch_floor_rows(*((20, 200) if opts.quick else (20, 2000)))
    report(rows, opts.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
