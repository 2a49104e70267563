"""What the demo prints: one block per step, skip reasons, failed checks, and the closing timing table."""
from __future__ import annotations

import statistics
import sys
import time
from dataclasses import dataclass


class CheckFailed(Exception):
    """A demo check did not hold; the message says what differed. `cubridge demo` then exits 1."""


@dataclass
class Timing:
    step: str
    ours_ms: float
    peer: str = ""
    peer_ms: float | None = None


def seconds(fn, *args, **kwargs):
    """(fn(*args, **kwargs), wall seconds it took)."""
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def median_ms(fn, repeats: int = 7) -> float:
    """Median wall milliseconds of fn() over `repeats` calls (fn must wait for its own work)."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return 1e3 * statistics.median(samples)


class Report:
    def __init__(self, out=None):
        self.out = out or sys.stdout
        self.timings: list[Timing] = []
        self.skipped: list[str] = []

    def step(self, title: str) -> None:
        print(f"\n== {title}", file=self.out, flush=True)

    def line(self, text: str) -> None:
        print(f"   {text}", file=self.out, flush=True)

    def skip(self, what: str, reason: str | None = None) -> None:
        """`reason` may be left out where the step's title already gave it."""
        self.skipped.append(what)
        print(f"   skipped: {what}" + (f": {reason}" if reason else ""), file=self.out, flush=True)

    def time(self, step: str, ours_ms: float, peer: str = "", peer_ms: float | None = None) -> None:
        self.timings.append(Timing(step, ours_ms, peer, peer_ms))

    def table(self) -> None:
        if not self.timings:
            return
        width = max(len(t.step) for t in self.timings)
        peer_width = max([len("peer")] + [len(t.peer) for t in self.timings])
        print(f"\n{'step':<{width}}  {'cubridge ms':>12}  {'peer':<{peer_width}}  {'peer ms':>10}  {'ratio':>7}",
              file=self.out)
        for t in self.timings:
            peer_ms = f"{t.peer_ms:10.3f}" if t.peer_ms is not None else f"{'-':>10}"
            ratio = f"{t.ours_ms / t.peer_ms:7.2f}" if t.peer_ms else f"{'-':>7}"
            print(f"{t.step:<{width}}  {t.ours_ms:12.3f}  {t.peer or '-':<{peer_width}}  {peer_ms}  {ratio}",
                  file=self.out)
        print("ratio = cubridge / peer (below 1: cubridge is faster); GPU runs are medians of CUDA-event times",
              file=self.out, flush=True)


def optional_import(name: str):
    """(module, None) or (None, why it is not importable): optional peers are skipped by name."""
    import importlib
    try:
        return importlib.import_module(name), None
    except Exception as e:  # ImportError, or a broken install failing at import time
        return None, f"{name} is not importable ({type(e).__name__}: {e})"
