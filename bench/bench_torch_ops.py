"""cubridge.torch.custom_op's cost over a direct cubridge launch (issue 26): the same @cubridge.jit kernel
(out[i] = x[i] + y[i], 1,024 elements) called as the op and launched directly on torch's current stream.

Eager: host time per call (batches of calls timed on the host, the queue drained between batches outside
the timing; the median over batches of the per-call mean; the eager rows' batches taken in turn). The direct row allocates its result with
torch.empty_like, as a user launching the kernel directly would; the op allocates it through PyTorch's C++
API where cubridge._torch_glue was built against this PyTorch (a second row: the same op asking torch's
Python functions, as a cubridge built without PyTorch does). The op's eager call skips PyTorch's
dispatcher where it would only call the CUDA implementation (cubridge.torch.Op's direct call); the
op.overload row is the same op through the dispatcher, as torch.compile's graphs call it. Inside a graph: 100 calls captured into one torch.cuda.graph, each
way, and the replay timed with CUDA events (median per call). torch.compile's figures are the compiled
function's host time per call, default and "reduce-overhead" modes.

    python bench/bench_torch_ops.py [--json PATH] [--quick]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import torch

import cubridge
import cubridge.torch as ct

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import interleaved_us  # noqa: E402
from rows import report  # noqa: E402

N = 1024


@cubridge.jit("void(const float32[::1], const float32[::1], float32[::1])")
def add(x, y, out):
    i = cubridge.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]


def per_call_us(fn, calls: int, batches: int) -> float:
    means = []
    for _ in range(batches):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        means.append((time.perf_counter() - t) / calls * 1e6)
    torch.cuda.synchronize()
    return statistics.median(means)


def replay_us(fn, per_graph: int, replays: int) -> float:
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(per_graph):
            fn()
    times = []
    for _ in range(replays):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        g.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / per_graph)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--quick", action="store_true")
    a = parser.parse_args()
    calls, batches = (2000, 5) if a.quick else (20000, 15)
    x, y = torch.randn(N, device="cuda"), torch.randn(N, device="cuda")
    op = ct.custom_op(add, out="x", ntasks=N, name="cubridge_bench::add")
    kernel = add.specialize(x, y, x)
    index = torch.cuda.current_device()

    def direct():
        out = torch.empty_like(x)
        kernel.forall(N, torch._C._cuda_getCurrentRawStream(index) or 1)(x, y, out)
        return out

    def via_op():
        return op(x, y)

    # The same op asking torch's Python functions (a cubridge built where PyTorch was not importable).
    native, ct._NATIVE = ct._NATIVE, None
    try:
        py_op = ct.custom_op(add, out="x", ntasks=N, name="cubridge_bench::add_python_answers")
    finally:
        ct._NATIVE = native

    def via_py_op():
        return py_op(x, y)

    def via_dispatcher():  # the same op through PyTorch's dispatcher (what torch.compile's graphs call)
        return op.overload(x, y)

    # What users write by hand today: torch.library.custom_op around the same direct launch.
    @torch.library.custom_op("cubridge_bench::hand_add", mutates_args=(), device_types="cuda")
    def hand_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return direct()

    hand_add.register_fake(lambda x, y: torch.empty_like(x))

    def via_hand():
        return hand_add(x, y)

    torch.testing.assert_close(via_op(), x + y)
    torch.testing.assert_close(via_dispatcher(), x + y)
    torch.testing.assert_close(direct(), x + y)
    torch.testing.assert_close(via_hand(), x + y)
    rows = []
    torch.testing.assert_close(via_py_op(), x + y)
    timed = interleaved_us({"direct": direct, "op": via_op, "py_op": via_py_op, "hand": via_hand,
                            "dispatcher": via_dispatcher, "add": lambda: torch.add(x, y)},
                           calls, batches, torch.cuda.synchronize)
    direct_us, op_us, py_op_us, hand_us, dispatcher_us, eager_add = (
        timed[k][0] for k in ("direct", "op", "py_op", "hand", "dispatcher", "add"))
    answers = "PyTorch asked in C++ (cubridge._torch_glue)" if native is not None else "torch's Python functions asked"
    rows.append(dict(face="torch", case="op call, eager (host µs per call)", unit="us", ours=op_us,
                     peer="direct cubridge launch + empty_like", peer_value=direct_us, target=None))
    rows.append(dict(face="torch", case=f"op overhead over the direct launch, eager ({answers})", unit="us",
                     ours=op_us - direct_us, peer=None, peer_value=None, target=1.5))
    rows.append(dict(face="torch", case="op overhead over the direct launch, eager (torch's Python functions asked)",
                     unit="us", ours=py_op_us - direct_us, peer=None, peer_value=None, target=None))
    rows.append(dict(face="torch", case="op through PyTorch's dispatcher (op.overload), eager", unit="us",
                     ours=dispatcher_us, peer="direct cubridge launch + empty_like", peer_value=direct_us,
                     target=None))
    rows.append(dict(face="torch", case="op overload's overhead over the direct launch, eager", unit="us",
                     ours=dispatcher_us - direct_us, peer=None, peer_value=None, target=None))
    rows.append(dict(face="torch", case="op call, eager", unit="us", ours=op_us,
                     peer="hand-written torch.library.custom_op around the launch", peer_value=hand_us, target=None))
    rows.append(dict(face="torch", case="op call, eager", unit="us", ours=op_us, peer="torch.add (built-in op)",
                     peer_value=eager_add, target=None))

    def fn(x, y):
        return op(x, y)

    torch._dynamo.reset()
    compiled = torch.compile(fn, fullgraph=True)
    compiled(x, y)
    compiled_us = per_call_us(lambda: compiled(x, y), calls // 4, batches)
    rows.append(dict(face="torch", case="torch.compile(fullgraph=True) of the op", unit="us", ours=compiled_us,
                     peer="eager op", peer_value=op_us, target=None))
    torch._dynamo.reset()
    ro = torch.compile(fn, mode="reduce-overhead", fullgraph=True)
    for _ in range(3):
        ro(x, y)
    ro_us = per_call_us(lambda: ro(x, y), calls // 4, batches)
    rows.append(dict(face="torch", case='torch.compile(mode="reduce-overhead") of the op', unit="us", ours=ro_us,
                     peer="eager op", peer_value=op_us, target=None))

    out = torch.empty_like(x)
    stream_direct = lambda: kernel.forall(N, torch._C._cuda_getCurrentRawStream(index) or 1)(x, y, out)  # noqa: E731
    graph_op = replay_us(via_op, 100, 30)
    graph_direct = replay_us(stream_direct, 100, 30)
    rows.append(dict(face="torch", case="op inside a replayed torch.cuda.graph (µs per call)", unit="us",
                     ours=graph_op, peer="direct launches in a graph", peer_value=graph_direct, target=None))
    rows.append(dict(face="torch", case="op overhead inside a replayed graph", unit="us",
                     ours=graph_op - graph_direct, peer=None, peer_value=None, target=0.0))
    report(rows, a.json)


if __name__ == "__main__":
    main()
