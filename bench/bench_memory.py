"""Memory: 1 MiB alloc+free pairs. From Python: cubridge.memalloc under each built-in manager (and
cubridge.device_array) vs CuPy's pool, PyTorch's caching allocator and numba-cuda's default manager.
From C++ (no Python in the loop): the caching pool, the caching manager, memory::allocate(), raw
cuMemAlloc/cuMemFree and cuMemAllocAsync/cuMemFreeAsync.

Python figures: batches of pairs timed on the host; the median over batches of the per-pair mean.
Usage: python bench/bench_memory.py [--json PATH] [--quick]
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import time

import numpy

if not hasattr(numpy, "row_stack"):  # numba-cuda 0.30 still calls it; numpy 2.5 removed it
    numpy.row_stack = numpy.vstack

import cubridge
from hooks import bench_hooks

MIB = 1 << 20
TARGET_PY_US = 1.0
TARGET_CPP_US = 0.1


def pair_us(fn, batches: int, per_batch: int) -> float:
    for _ in range(per_batch):
        fn()
    gc.disable()
    try:
        means = []
        for _ in range(batches):
            t0 = time.perf_counter_ns()
            for _ in range(per_batch):
                fn()
            means.append((time.perf_counter_ns() - t0) / per_batch / 1e3)
        return statistics.median(means)
    finally:
        gc.enable()


def peers(batches, per_batch):
    out = {}
    try:
        import cupy as cp
        pool = cp.get_default_memory_pool()
        out["CuPy memory pool"] = pair_us(lambda: pool.malloc(MIB), batches, per_batch)
    except ImportError:
        pass
    try:
        import torch
        torch.cuda.init()
        out["torch caching allocator"] = pair_us(
            lambda: torch.cuda.caching_allocator_delete(torch.cuda.caching_allocator_alloc(MIB)), batches, per_batch)
        out["torch.empty (caching allocator)"] = pair_us(
            lambda: torch.empty(MIB, dtype=torch.uint8, device="cuda"), batches, per_batch)
    except ImportError:
        pass
    try:
        from numba import cuda
        out["numba-cuda default (device_array)"] = pair_us(lambda: cuda.device_array(MIB, dtype="u1"),
                                                           batches, max(per_batch // 50, 20))
    except ImportError:
        pass
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    batches, per_batch = (5, 2000) if args.quick else (15, 20000)
    pairs = 100_000 if args.quick else 1_000_000

    ours = {}
    for name in ("caching", "async", "default"):
        cubridge.close()
        cubridge.set_memory_manager(name)
        n = per_batch if name != "default" else max(per_batch // 50, 20)
        ours[name] = pair_us(lambda: cubridge.memalloc(MIB), batches, n)
    cubridge.close()
    cubridge.set_memory_manager("caching")
    ours["device_array"] = pair_us(lambda: cubridge.device_array(MIB, dtype="u1"), batches, per_batch)
    cpp = bench_hooks().time_alloc_free_pairs(MIB, pairs, 5)
    cubridge.close()
    cubridge.set_memory_manager("default")
    peer = peers(batches, per_batch)

    best_peer = min(peer.items(), key=lambda kv: kv[1]) if peer else (None, None)
    rows = [
        {"case": "1 MiB pair from Python: memalloc, caching manager", "ours": ours["caching"],
         "peer": best_peer[0], "peer_value": best_peer[1], "target": TARGET_PY_US},
        {"case": "1 MiB pair from Python: device_array, caching manager", "ours": ours["device_array"],
         "peer": best_peer[0], "peer_value": best_peer[1], "target": TARGET_PY_US},
        {"case": "1 MiB pair from Python: memalloc, async pool", "ours": ours["async"],
         "peer": best_peer[0], "peer_value": best_peer[1], "target": None},
        {"case": "1 MiB pair from Python: memalloc, default (deferred frees)", "ours": ours["default"],
         "peer": "numba-cuda default (device_array)", "peer_value": peer.get("numba-cuda default (device_array)"),
         "target": None},
        {"case": "1 MiB pair from C++: CachingPool", "ours": cpp["caching_pool_ns"] / 1e3,
         "peer": "cuMemAlloc+cuMemFree", "peer_value": cpp["raw_cumemalloc_ns"] / 1e3, "target": TARGET_CPP_US},
        {"case": "1 MiB pair from C++: caching manager memalloc", "ours": cpp["caching_manager_ns"] / 1e3,
         "peer": "cuMemAllocAsync+cuMemFreeAsync", "peer_value": cpp["raw_cumemallocasync_ns"] / 1e3,
         "target": TARGET_CPP_US},
        {"case": "1 MiB pair from C++: memory::allocate (caching)", "ours": cpp["registry_ns"] / 1e3,
         "peer": "cuMemAlloc+cuMemFree", "peer_value": cpp["raw_cumemalloc_ns"] / 1e3, "target": None},
    ]
    for name, value in peer.items():
        rows.append({"case": f"1 MiB pair from Python: {name}", "ours": None, "peer": name, "peer_value": value,
                     "target": None})
    for r in rows:
        r["face"] = "memory"
        r["unit"] = "us"

    print("| case | cubridge (µs) | peer | peer (µs) | ratio | target |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    for r in rows:
        o, p = r["ours"], r["peer_value"]
        ratio = f"{o / p:.3f}" if o is not None and p else ""
        fmt = lambda v: "" if v is None else f"{v:.3f}"
        print(f"| {r['case']} | {fmt(o)} | {r['peer'] or ''} | {fmt(p)} | {ratio} | {fmt(r['target'])} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
