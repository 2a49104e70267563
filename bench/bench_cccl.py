"""cuda.compute (cuda-cccl) with operators cubridge compiled (issue 26), beside the same algorithm with
cuda.compute's built-in OpKind on the same data, in one process: first-call latency (cubridge's compile of
the operator, then cuda.compute's build of the algorithm, both timed by the first call) and steady-state
runtime (the built algorithm object called with its temporary storage, CUDA events, median per call).

Cases: reduce_into (sum of 2^24 float32) and unary_transform (x * 2 + 1 on 2^24 float32, against OpKind
being unavailable for it: its peer is CuPy's elementwise expression). Where numba-cuda-mlir is importable
(carried as bench/fetch_mlir.sh packs it), the same plain Python operators handed to cuda.compute as they are,
which it compiles through numba-cuda-mlir: first call and steady state beside cubridge's operator.

    python bench/bench_cccl.py [--json PATH] [--quick]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import cupy as cp
import numpy as np

try:
    import cuda.compute as compute
    from cuda.compute import OpKind
except ImportError as e:  # the subject of this bench, not a peer: no rows without it
    sys.exit(f"bench_cccl: cuda.compute is not importable ({e}); install cuda-cccl (pip install cuda-cccl; on the GPU "
             "machine, carry its wheel as the device README says)")

import cubridge.cccl as cccl

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rows import report  # noqa: E402


def add(a, b):
    return a + b


def affine(x):
    return x * 2.0 + 1.0


def event_us(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) * 1e3)
    return statistics.median(times)


def reducer_call(d, out, op, init):
    r = compute.make_reduce_into(d_in=d, d_out=out, op=op, h_init=init)
    nbytes = r(temp_storage=None, d_in=d, d_out=out, num_items=d.size, op=op, h_init=init)
    tmp = cp.empty(max(nbytes, 1), np.uint8)
    return lambda: r(temp_storage=tmp, d_in=d, d_out=out, num_items=d.size, op=op, h_init=init)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--quick", action="store_true")
    a = parser.parse_args()
    n, repeats = (1 << 20, 20) if a.quick else (1 << 24, 100)
    h = np.random.default_rng(0).random(n, dtype=np.float32)
    d, out = cp.asarray(h), cp.empty(1, np.float32)
    init = np.zeros(1, np.float32)
    rows = []

    t = time.perf_counter()
    op = cccl.op(add, "float32(float32, float32)")
    compile_s = time.perf_counter() - t
    t = time.perf_counter()
    compute.reduce_into(d_in=d, d_out=out, op=op, num_items=n, h_init=init)
    cp.cuda.Device().synchronize()
    build_s = time.perf_counter() - t
    ours = out.get()[0]
    t = time.perf_counter()
    compute.reduce_into(d_in=d, d_out=out, op=OpKind.PLUS, num_items=n, h_init=init)
    cp.cuda.Device().synchronize()
    builtin_build_s = time.perf_counter() - t
    assert np.isclose(ours, out.get()[0], rtol=1e-4), (ours, out.get()[0])
    rows.append(dict(face="cccl", case="reduce_into sum: cubridge compile of the operator", unit="ms",
                     ours=compile_s * 1e3, peer=None, peer_value=None, target=None))
    rows.append(dict(face="cccl", case="reduce_into sum: first call (compile + build)", unit="ms",
                     ours=(compile_s + build_s) * 1e3, peer="OpKind.PLUS first call (build)",
                     peer_value=builtin_build_s * 1e3, target=None))
    ours_us = event_us(reducer_call(d, out, op, init), repeats)
    builtin_us = event_us(reducer_call(d, out, OpKind.PLUS, init), repeats)
    rows.append(dict(face="cccl", case=f"reduce_into sum of {n} float32, steady state", unit="us", ours=ours_us,
                     peer="OpKind.PLUS", peer_value=builtin_us, target=builtin_us * 1.05))

    res = cp.empty(n, np.float32)
    t = time.perf_counter()
    top = cccl.op(affine, "float32(float32)")
    compute.unary_transform(d_in=d, d_out=res, op=top, num_items=n)
    cp.cuda.Device().synchronize()
    first_s = time.perf_counter() - t
    np.testing.assert_allclose(res.get(), h * 2 + 1, rtol=1e-6)
    rows.append(dict(face="cccl", case="unary_transform x*2+1: first call (compile + build)", unit="ms",
                     ours=first_s * 1e3, peer=None, peer_value=None, target=None))
    t_us = event_us(lambda: compute.unary_transform(d_in=d, d_out=res, op=top, num_items=n), repeats)
    cupy_us = event_us(lambda: cp.multiply(d, 2, out=res).__iadd__(1), repeats)
    rows.append(dict(face="cccl", case=f"unary_transform x*2+1 of {n} float32, steady state", unit="us", ours=t_us,
                     peer="CuPy x*2 then +=1 (two kernels)", peer_value=cupy_us, target=None))
    rows += mlir_rows(d, out, res, init, h, n, repeats, compile_s + build_s, ours_us, first_s, t_us)
    report(rows, a.json)


def mlir_rows(d, out, res, init, h, n, repeats, ours_first_s, ours_us, ours_t_first_s, ours_t_us) -> list[dict]:
    """cuda.compute's own path for a plain Python operator (numba-cuda-mlir compiles it), fresh functions so
    no cache of an earlier call is reused."""
    try:
        import numba_cuda_mlir  # noqa: F401
    except ImportError as e:
        print(f"cuda.compute's numba-cuda-mlir path not measured: {e}")
        return []

    def plus(a, b):
        return a + b

    def affine2(x):
        return x * 2.0 + 1.0

    rows = []
    t = time.perf_counter()
    compute.reduce_into(d_in=d, d_out=out, op=plus, num_items=n, h_init=init)
    cp.cuda.Device().synchronize()
    first_s = time.perf_counter() - t
    assert np.isclose(out.get()[0], h.sum(dtype=np.float64), rtol=1e-3)
    rows.append(dict(face="cccl", case="reduce_into sum: first call (compile + build)", unit="ms",
                     ours=ours_first_s * 1e3, peer="cuda.compute + numba-cuda-mlir (Python op) first call",
                     peer_value=first_s * 1e3, target=None))
    rows.append(dict(face="cccl", case=f"reduce_into sum of {n} float32, steady state", unit="us", ours=ours_us,
                     peer="cuda.compute + numba-cuda-mlir (Python op)",
                     peer_value=event_us(reducer_call(d, out, plus, init), repeats), target=None))
    t = time.perf_counter()
    compute.unary_transform(d_in=d, d_out=res, op=affine2, num_items=n)
    cp.cuda.Device().synchronize()
    first_s = time.perf_counter() - t
    np.testing.assert_allclose(res.get(), h * 2 + 1, rtol=1e-6)
    rows.append(dict(face="cccl", case="unary_transform x*2+1: first call (compile + build)", unit="ms",
                     ours=ours_t_first_s * 1e3, peer="cuda.compute + numba-cuda-mlir (Python op) first call",
                     peer_value=first_s * 1e3, target=None))
    rows.append(dict(face="cccl", case=f"unary_transform x*2+1 of {n} float32, steady state", unit="us",
                     ours=ours_t_us, peer="cuda.compute + numba-cuda-mlir (Python op)",
                     peer_value=event_us(lambda: compute.unary_transform(d_in=d, d_out=res, op=affine2, num_items=n),
                                         repeats), target=None))
    return rows


if __name__ == "__main__":
    main()
