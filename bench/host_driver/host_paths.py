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


class Foreign:
    """A producer that is neither cubridge nor a known library: a plain object with a CAI dict (CuPy's
    shape: stream 1, strides None), so the import path is the generic one."""

    def __init__(self, cai):
        self.__cuda_array_interface__ = dict(cai, stream=1, strides=None)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--loop", type=int, default=0, help="only run N device_array pairs (for perf record)")
    ap.add_argument("--loop-import", type=int, default=0,
                    help="only run N CAI imports of a foreign object (for perf record)")
    args = ap.parse_args()
    cubridge.set_memory_manager("caching")
    da = cubridge.device_array
    if args.loop:
        for _ in range(args.loop):
            da(MIB, dtype="u1")
        return 0
    exported = da((256, 256), "f4")
    foreign = Foreign(exported.__cuda_array_interface__)
    if args.loop_import:
        for _ in range(args.loop_import):
            cubridge.as_cuda_array(foreign)
        return 0
    rows = {
        "device_array(1 MiB, 'u1') + free": lambda: da(MIB, dtype="u1"),
        "device_array((512, 512), float32, 'F') + free": lambda: da((512, 512), "f4", "F"),
        "memalloc(1 MiB) + free": lambda: cubridge.memalloc(MIB),
        "CAI export: array.__cuda_array_interface__": lambda: exported.__cuda_array_interface__,
        "CAI import: as_cuda_array(foreign object, stream 1)": lambda: cubridge.as_cuda_array(foreign),
    }
    print("| host path (caching manager, host driver) | median µs per call or pair |")
    print("| --- | ---: |")
    for name, fn in rows.items():
        print(f"| {name} | {pair_us(fn, 9, 100_000):.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
