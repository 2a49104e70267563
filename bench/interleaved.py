"""Host time per call of several functions measured side by side: each batch of each function in turn, every
round in a fresh order (a, b, c, then c, a, b, ...), so that a drift of the host's speed during the run weighs on
each the same (the GPU machines' hosts move by 1.5x between runs and even between phases of one run), and no row
always follows the same neighbour: a batch pays what the batch before it left in the caches and branch predictors
(the same empty launch read 0.2-0.4 µs apart between rows of one run when the order was fixed). The GPU queue is drained
before each batch, outside the timing, and so is Python's young garbage: a batch that follows a peer which
allocates heavily (numba-cuda's launch) would otherwise pay that peer's pending collection. The objects alive
when timing starts are frozen (gc.freeze), so a full collection no longer walks the libraries' millions of objects
in whichever row it falls; collections a row's own calls cause still count in that row."""
from __future__ import annotations

import gc
import random
import statistics
import time


class Timed:
    """A function that times its own batch (a C++ loop such as the launch floor's): `batch_ns(n)` gives the
    nanoseconds of n calls in all."""

    def __init__(self, batch_ns):
        self.batch_ns = batch_ns


def interleaved_us(fns: dict, calls: int, batches: int, synchronize, warmup: int = 0) -> dict:
    """{name: (median, min)} of the per-call mean in µs over `batches` batches of `calls` calls each;
    `synchronize()` drains the GPU's queue. Each function (or Timed) is first called `warmup` times
    (compiles, module loads, caches), outside the timing."""
    for fn in fns.values():
        if warmup:
            if isinstance(fn, Timed):
                fn.batch_ns(warmup)
            else:
                for _ in range(warmup):
                    fn()
    means = {name: [] for name in fns}
    order = list(fns)
    shuffle = random.Random(0).shuffle  # seeded: a rerun takes the rows in the same orders
    gc.collect()
    gc.freeze()
    for _ in range(batches):
        shuffle(order)
        for name in order:
            fn = fns[name]
            synchronize()
            gc.collect(1)
            if isinstance(fn, Timed):
                seconds = fn.batch_ns(calls) / 1e9
            else:
                t = time.perf_counter()
                for _ in range(calls):
                    fn()
                seconds = time.perf_counter() - t
            means[name].append(seconds / calls * 1e6)
    synchronize()
    gc.unfreeze()
    return {name: (statistics.median(m), min(m)) for name, m in means.items()}
