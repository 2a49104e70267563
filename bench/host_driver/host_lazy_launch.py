"""Host-side cost of a lazy ``@cubridge.jit`` launch (``k[1, 32](*args)``, no signature given), on a machine
without a GPU: the driver is bench/host_driver/host_libcuda.c (CUBRIDGE_LIBCUDA), whose cuLaunchKernel
returns at once, so what is timed is the dispatch alone: typing the arguments, finding the specialization,
importing and packing them. Issue 22's shapes (1, 4 and 16 arrays; 1 array + 32 int64 scalars) over
cubridge arrays, CAI objects that build their dict per access (CuPy-like) and the CuPy stand-in of
host_launch.py (CuPy's attribute route), plus the loaded kernel's launch for the same arguments (the eager
path's floor here). Not GPU figures: bench/bench_launch.py on the GPU machine gives those.
Usage: CUBRIDGE_LIBCUDA=$(bench/host_driver/build.sh) python bench/host_driver/host_lazy_launch.py
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys

import cubridge

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from bench_memory import pair_us  # noqa: E402  (one timing loop for every host bench)
from host_launch import CupyLike, fake_cupy, torchlike  # noqa: E402


# Empty-bodied kernels, as issue 22's table times (written out: @jit reads the source).
def k1(a0):
    pass


def k4(a0, a1, a2, a3):
    pass


def k16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15):
    pass


def k1s32(a0, s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15, s16, s17, s18, s19,
          s20, s21, s22, s23, s24, s25, s26, s27, s28, s29, s30, s31):
    pass


SHAPES = [("1 array", k1, 1, 0), ("4 arrays", k4, 4, 0), ("16 arrays", k16, 16, 0),
          ("1 array + 32 int64", k1s32, 1, 32)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=9)
    ap.add_argument("--per-batch", type=int, default=20_000)
    ap.add_argument("--loop", default="", help="only launch lazily on this argument kind N times (callgrind, perf)")
    ap.add_argument("--shape", default="1 array", help="with --loop: the arguments, as the table names them")
    ap.add_argument("--loaded", action="store_true", help="with --loop: launch the loaded kernel (specialize()) instead")
    ap.add_argument("-n", type=int, default=100_000)
    args = ap.parse_args()
    bufs = [cubridge.device_array(32, "f4") for _ in range(16)]
    cupy_ndarray = fake_cupy()
    kinds = {"cubridge arrays": bufs, "CAI objects (CuPy-like)": [CupyLike(b) for b in bufs],
             "CuPy stand-in (attribute route)": [cupy_ndarray(b, 32) for b in bufs]}
    torch = torchlike()  # built by build.sh where HOST_TORCHLIKE_DIR names its folder (callgrind_launch.sh does)
    if torch is not None:
        kinds["PyTorch stand-in (exchange table)"] = [torch.Tensor(b.ptr, 32) for b in bufs]
    if os.environ.get("HOST_NUMBA_STANDIN"):  # registers numba-cuda's module names: only in a process of its own
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "python" / "arrays"))
        import numba_devicearray_standin as nd  # noqa: PLC0415  (the numba reader's test stand-in)
        kinds["numba stand-in (reader)"] = [
            nd.DeviceNDArray((32,), (4,), "f4", gpu_data=nd.OwnedPointer(nd.MemoryPointer(nd.CUdeviceptr(b.ptr), 128)))
            for b in bufs]
    if args.loop:
        _, fn, n_arrays, n_scalars = next(s for s in SHAPES if s[0] == args.shape)
        call_args = tuple(kinds[args.loop][:n_arrays]) + tuple(range(n_scalars))
        lazy = cubridge.jit(fn)
        lazy[1, 32](*call_args)  # compiles and loads, in both runs of a difference
        target = lazy.specialize(*call_args) if args.loaded else lazy
        for _ in range(args.n):
            target[1, 32](*call_args)
        return 0
    print("| lazy @jit k[1, 32](...) on the host driver | arguments | lazy, µs | loaded kernel, µs |")
    print("| --- | --- | ---: | ---: |")
    for kind, arrays in kinds.items():
        for label, fn, n_arrays, n_scalars in SHAPES:
            call_args = tuple(arrays[:n_arrays]) + tuple(range(n_scalars))
            lazy = cubridge.jit(fn)
            launch = lazy[1, 32]
            launch(*call_args)  # compiles and loads
            loaded = lazy.specialize(*call_args)[1, 32]
            lazy_us = pair_us(lambda: lazy[1, 32](*call_args), args.batches, args.per_batch)
            loaded_us = pair_us(lambda: loaded(*call_args), args.batches, args.per_batch)
            print(f"| {kind} | {label} | {lazy_us:.3f} | {loaded_us:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
