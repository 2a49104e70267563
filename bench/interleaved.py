"""Host time per call of several functions measured side by side: each batch of each function in turn
(a, b, c, a, b, c, ...), so that a drift of the host's speed during the run weighs on each the same (the GPU
machines' hosts move by 1.5x between runs and even between phases of one run). The GPU queue is drained
before each batch, outside the timing."""
from __future__ import annotations

import statistics
import time


def interleaved_us(fns: dict, calls: int, batches: int, synchronize) -> dict:
    """{name: (median, min)} of the per-call mean in µs over `batches` batches of `calls` calls each;
    `synchronize()` drains the GPU's queue."""
    means = {name: [] for name in fns}
    for _ in range(batches):
        for name, fn in fns.items():
            synchronize()
            t = time.perf_counter()
            for _ in range(calls):
                fn()
            means[name].append((time.perf_counter() - t) / calls * 1e6)
    synchronize()
    return {name: (statistics.median(m), min(m)) for name, m in means.items()}
