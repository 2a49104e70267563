"""Kernel compile time over the whole corpus: cubridge.compile_ptx vs numba-cuda's numba.cuda.compile_ptx on
the same kernels and signatures (tests/python/corpus/kernel_cases.py and every family of
tests/python/parity/), to PTX for cc 9.0, on the same CPU. No GPU is touched.

Reports the median over the kernels both compile of (cubridge time / numba-cuda time) — issue 12's figure,
target <= 0.2 — beside the medians of each, and counts the kernels each compiler refuses (kernels numba-cuda
compiles and cubridge refuses are the parity gap; they are listed on stderr).

    python bench/bench_compile_corpus.py [--json PATH] [--quick]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import types
import warnings

import numpy

if not hasattr(numpy, "row_stack"):  # numba-cuda 0.30 with numpy 2.5
    numpy.row_stack = numpy.vstack

import cubridge

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rows import report  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))

CC = (9, 0)


def corpus() -> list[tuple[str, object, object, str, dict]]:
    """(name, function for cubridge, function for numba-cuda, signature, options) of every kernel of both
    corpora. The kernel corpus spells intrinsics cubridge.X: numba-cuda gets a copy that sees numba.cuda
    under that name (and its plain helper functions as numba device functions)."""
    from corpus.kernel_cases import CASES as KERNELS
    from parity.cases import load_all
    out = [(f"corpus-{c.name}", c.fn, numba_spelling(c.fn), c.sig, {}) for c in KERNELS]
    out += [(c.id, c.fn, c.fn, c.signature(cubridge.typeof), c.options) for c in load_all()]
    return out


def numba_spelling(fn):
    """fn with `cubridge` bound to numba.cuda and module functions bound to numba device functions."""
    try:
        from numba import cuda
    except Exception:  # noqa: BLE001 - no peer: the copy is never compiled
        return fn
    env = dict(fn.__globals__)
    for name in fn.__code__.co_names:
        v = env.get(name)
        if v is cubridge:
            env[name] = cuda
        elif isinstance(v, types.FunctionType) and v.__module__ == fn.__module__:
            env[name] = cuda.jit(device=True)(numba_spelling(v))
    return types.FunctionType(fn.__code__, env, fn.__name__, fn.__defaults__, fn.__closure__)


def best_of(fn, reps: int) -> float | None:
    """Median wall time of `reps` calls in ms (None when the first call raises)."""
    try:
        fn()
    except Exception:  # noqa: BLE001 - a refusal is counted, not timed
        return None
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        ts.append((time.perf_counter_ns() - t0) / 1e6)
    return statistics.median(ts)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default=None)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    reps = 3 if a.quick else 7
    try:
        from numba import cuda
        numba_ptx = cuda.compile_ptx
    except Exception as e:  # noqa: BLE001 - no peer here
        print(f"numba-cuda unavailable: {e}", file=sys.stderr)
        numba_ptx = None

    ratios, ours_all, theirs_all = [], [], []
    we_refuse, they_refuse, both_refuse = [], [], []
    for name, fn, numba_fn, sig, options in corpus():
        ours = best_of(lambda: cubridge.compile_ptx(fn, sig, cc=CC, **options), reps)
        # numba-cuda spells no read-only parameters; other signatures are numba's own objects already
        numba_sig = sig.replace("const ", "") if isinstance(sig, str) else sig
        theirs = None
        if numba_ptx is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs = best_of(lambda: numba_ptx(numba_fn, numba_sig, cc=CC, **options), max(1, reps // 2))
        if ours is None and theirs is None:
            both_refuse.append(name)
        elif ours is None:
            we_refuse.append(name)
        elif theirs is None:
            they_refuse.append(name) if numba_ptx is not None else None
        if ours is not None:
            ours_all.append(ours)
        if theirs is not None:
            theirs_all.append(theirs)
        if ours is not None and theirs is not None:
            ratios.append(ours / theirs)

    for label, names in (("cubridge refuses, numba-cuda compiles", we_refuse),
                         ("numba-cuda refuses, cubridge compiles", they_refuse),
                         ("both refuse", both_refuse)):
        if names:
            print(f"{label} ({len(names)}): {', '.join(names)}", file=sys.stderr)

    rows = []

    def row(case, unit, ours, peer=None, peer_value=None, target=None):
        rows.append({"face": "code", "case": case, "unit": unit, "ours": ours, "peer": peer,
                     "peer_value": peer_value, "target": target})

    n = len(ratios)
    if ratios:
        row(f"kernel corpus compile time, median ratio over {n} kernels both compile", "ratio",
            statistics.median(ratios), target=0.2)
    if ours_all:
        row(f"kernel corpus: median compile time ({len(ours_all)} kernels cubridge compiles)", "ms",
            statistics.median(ours_all), "numba.cuda.compile_ptx" if theirs_all else None,
            statistics.median(theirs_all) if theirs_all else None)
    total = len(ours_all) + len(we_refuse) + len(both_refuse)
    row(f"kernel corpus: kernels numba-cuda compiles that cubridge refuses (of {total})", "kernels",
        float(len(we_refuse)), target=0.0)

    report(rows, a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
