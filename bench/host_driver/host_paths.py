"""Host-side cost of the allocation paths from Python, on a machine without a GPU: the driver is
bench/host_driver/host_libcuda.c (CUBRIDGE_LIBCUDA), so what is timed is cubridge and Python alone.
These are not GPU figures (bench_memory.py on the GPU machine gives those); they show where the host
time goes and whether a change moved it. Run through bench/host_driver/profile.sh.
"""
from __future__ import annotations

import argparse
import pathlib
import sys

import cubridge

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from bench_memory import MIB, pair_us  # noqa: E402  (one timing loop for every allocation bench)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--loop", type=int, default=0, help="only run N device_array pairs (for perf record)")
    args = ap.parse_args()
    cubridge.set_memory_manager("caching")
    da = cubridge.device_array
    if args.loop:
        for _ in range(args.loop):
            da(MIB, dtype="u1")
        return 0
    rows = {
        "device_array(1 MiB, 'u1') + free": lambda: da(MIB, dtype="u1"),
        "device_array((512, 512), float32, 'F') + free": lambda: da((512, 512), "f4", "F"),
        "memalloc(1 MiB) + free": lambda: cubridge.memalloc(MIB),
    }
    print("| host path (caching manager, host driver) | median µs per pair |")
    print("| --- | ---: |")
    for name, fn in rows.items():
        print(f"| {name} | {pair_us(fn, 9, 100_000):.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
