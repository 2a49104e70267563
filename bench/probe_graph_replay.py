"""Where bench_graphs' two rows differ (issue 22 item 3): the same 100 launches of one @cubridge.jit kernel
captured under CuPy's stream capture and under torch.cuda.graph read 1.00 and 1.28 µs a replayed node in one
run, and 4.08 and 6.27 µs a launch eagerly. This probe times each piece alone, all in one process, rounds
alternating:

- eager, host only: the 100 launches issued, no wait (what the launch path costs on each stream and array);
- eager, issued and drained: the 100 launches and the stream's synchronize (bench_graphs' eager row);
- replay drained two ways: the stream's own synchronize, and the device's (torch.cuda.synchronize, which
  bench_graphs' torch rows use);
- each graph launched by cuGraphLaunch on each library's stream, so the graph and the stream are told apart.

    python bench/probe_graph_replay.py [--batches 31]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

import cupy as cp
import numpy as np
import torch
from cuda.bindings import driver

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_graphs import CHAIN, N, inc  # noqa: E402  (bench_graphs' kernel and chain)
from bench_graphs import per_launch_us as timed  # noqa: E402


def per_launch_us(run, before, after, batches: int) -> float:
    return timed(run, after, batches, before=before)


def graph_launcher(exec_handle: int, stream_handle: int):
    exec_ = driver.CUgraphExec(exec_handle)
    stream = driver.CUstream(stream_handle)
    return lambda: driver.cuGraphLaunch(exec_, stream)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, default=31)
    ap.add_argument("--rounds", type=int, default=3)
    opts = ap.parse_args()

    # CuPy: its own stream, its array, its capture.
    cs = cp.cuda.Stream(non_blocking=True)
    with cs:
        cx = cp.zeros(N, np.float32)
        c_launch = inc[N // 256, 256, cs]
        for _ in range(CHAIN):
            c_launch(cx)
        cs.synchronize()
        cs.begin_capture()
        for _ in range(CHAIN):
            c_launch(cx)
        c_graph = cs.end_capture()
    c_exec = int(c_graph.graphExec) if hasattr(c_graph, "graphExec") else None  # CuPy builds may not show it

    # PyTorch: its side stream, its tensor, torch.cuda.graph.
    tx = torch.zeros(N, device="cuda")
    ts = torch.cuda.Stream()
    with torch.cuda.stream(ts):
        t_launch = inc[N // 256, 256, torch.cuda.current_stream()]
        t_launch_int = inc[N // 256, 256, ts.cuda_stream]
        for _ in range(CHAIN):
            t_launch(tx)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph(keep_graph=True)
        with torch.cuda.graph(g):
            captured = inc[N // 256, 256, torch.cuda.current_stream()]
            for _ in range(CHAIN):
                captured(tx)
        g.replay()
        torch.cuda.synchronize()
    t_exec = int(g.raw_cuda_graph_exec())

    nothing = lambda: None  # noqa: E731

    def c_eager():
        for _ in range(CHAIN):
            c_launch(cx)

    def t_eager():
        for _ in range(CHAIN):
            t_launch(tx)

    def t_eager_int():
        for _ in range(CHAIN):
            t_launch_int(tx)

    def t_eager_cupy_array():  # the torch stream, a CuPy array: is it the stream or the array?
        for _ in range(CHAIN):
            t_launch_int(cx)

    rows: dict[str, list[float]] = {}

    def add(name, run, before, after):
        rows.setdefault(name, []).append(per_launch_us(run, before, after, opts.batches))

    for _ in range(opts.rounds):
        with cs:
            add("CuPy stream, CuPy array: eager, host only", c_eager, cs.synchronize, nothing)
            add("CuPy stream, CuPy array: eager + stream sync", c_eager, cs.synchronize, cs.synchronize)
            add("CuPy stream, CuPy array: eager + device sync", c_eager, cs.synchronize, torch.cuda.synchronize)
            add("CuPy graph on CuPy stream: launch + stream sync", lambda: c_graph.launch(cs), cs.synchronize,
                cs.synchronize)
            add("CuPy graph on CuPy stream: launch + device sync", lambda: c_graph.launch(cs), cs.synchronize,
                torch.cuda.synchronize)
            if c_exec is not None:
                add("CuPy graph by cuGraphLaunch on the torch stream + its sync",
                    graph_launcher(c_exec, ts.cuda_stream), ts.synchronize, ts.synchronize)
        with torch.cuda.stream(ts):
            add("torch stream, torch tensor: eager, host only", t_eager, ts.synchronize, nothing)
            add("torch stream (int handle), torch tensor: eager, host only", t_eager_int, ts.synchronize, nothing)
            add("torch stream (int handle), CuPy array: eager, host only", t_eager_cupy_array, ts.synchronize,
                nothing)
            add("torch stream, torch tensor: eager + stream sync", t_eager, ts.synchronize, ts.synchronize)
            add("torch stream, torch tensor: eager + device sync", t_eager, ts.synchronize, torch.cuda.synchronize)
            add("torch graph: replay() + stream sync", g.replay, ts.synchronize, ts.synchronize)
            add("torch graph: replay() + device sync", g.replay, ts.synchronize, torch.cuda.synchronize)
            add("torch graph by cuGraphLaunch on the torch stream + its sync", graph_launcher(t_exec, ts.cuda_stream),
                ts.synchronize, ts.synchronize)
            add("torch graph by cuGraphLaunch on the CuPy stream + its sync", graph_launcher(t_exec, cs.ptr),
                cs.synchronize, cs.synchronize)
    print(f"µs per launch or node; median of {opts.batches} batches of {CHAIN}, then the median of {opts.rounds} "
          "rounds (each round's reads in brackets)")
    for name, values in rows.items():
        print(f"  {statistics.median(values):7.3f}  {name}   [{', '.join(f'{v:.3f}' for v in values)}]")
    assert float(cx[0]) > 0 and float(tx[0]) > 0


if __name__ == "__main__":
    main()
