"""A lazy launch of one array named on a stream, by library (probe_graph_replay.py read 100 launches on a CuPy
stream ~1 µs a launch dearer than on a torch stream in two of three rounds): the empty kernel `one(a)` launched
100 times a call, with no stream, with the library's stream inside its own stream context (the array's CAI v3
stream is the launch's: nothing to order), and with that stream outside the context (the array names the default
stream: one event to order the launch after it); CuPy's RawKernel beside, each row's batches in turn.

    python bench/probe_stream_launch.py [--calls 1000] [--batches 15]
"""
from __future__ import annotations

import argparse
import os
import sys

import cupy as cp
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import interleaved_us  # noqa: E402
from probe_context import one  # noqa: E402  (the empty @cubridge.jit kernel of one array)

INNER = 100
RAW = r'extern "C" __global__ void one(float* a) {}'


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--batches", type=int, default=15)
    opts = ap.parse_args()
    cx = cp.zeros(256, dtype=cp.float32)
    tx = torch.zeros(256, device="cuda")
    cs = cp.cuda.Stream(non_blocking=True)
    ts = torch.cuda.Stream()
    raw = cp.RawKernel(RAW, "one")
    on_cs, on_ts, plain = one[1, 32, cs], one[1, 32, ts], one[1, 32]

    def times(launch, arg, context=None):
        def run():
            if context is None:
                for _ in range(INNER):
                    launch(arg)
            else:
                with context():
                    for _ in range(INNER):
                        launch(arg)
        return run

    def raw_on(context=None):  # RawKernel launches on CuPy's current stream
        def run():
            if context is None:
                for _ in range(INNER):
                    raw((1,), (32,), (cx,))
            else:
                with context():
                    for _ in range(INNER):
                        raw((1,), (32,), (cx,))
        return run

    rows = {
        "CuPy array, no stream": times(plain, cx),
        "CuPy array, CuPy stream, inside `with stream`": times(on_cs, cx, lambda: cs),
        "CuPy array, CuPy stream, outside (one event)": times(on_cs, cx),
        "torch tensor, no stream": times(plain, tx),
        "torch tensor, torch stream, inside torch.cuda.stream": times(on_ts, tx, lambda: torch.cuda.stream(ts)),
        "torch tensor, torch stream, outside (one event)": times(on_ts, tx),
        "CuPy array, torch stream, inside torch.cuda.stream (one event)": times(on_ts, cx, lambda: torch.cuda.stream(ts)),
        "RawKernel, CuPy array, no stream": raw_on(),
        "RawKernel, CuPy array, CuPy stream, inside `with stream`": raw_on(lambda: cs),
    }

    def drain():
        cs.synchronize()
        ts.synchronize()
        torch.cuda.synchronize()

    result = interleaved_us(rows, max(1, opts.calls // INNER), opts.batches, drain, warmup=2)
    print(f"µs a launch (median / min of {opts.batches} batches, {INNER} launches a call, rows in turn)")
    for name, (median, low) in result.items():
        print(f"  {median / INNER:7.3f} / {low / INNER:7.3f}  {name}")


if __name__ == "__main__":
    main()
