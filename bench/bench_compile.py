"""Compile Python functions: cubridge.compile vs numba-cuda's numba.cuda.compile (same functions, same CPU),
and where cubridge's time goes (parse, type, emit, libNVVM). CPU only: no GPU is touched.

    python bench/bench_compile.py [--json PATH] [--quick]
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy

if not hasattr(numpy, "row_stack"):  # numba-cuda 0.30 with numpy 2.5
    numpy.row_stack = numpy.vstack

import cubridge

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rows import report  # noqa: E402
from cubridge import _core


def tiny(x, y):
    return x * y + 1.0


def twenty_lines(x, n):
    # About 20 lines of typical device-function code: loops, branches, arithmetic, calls of builtins.
    acc = 0.0
    lo = -1.0
    hi = 1.0
    for i in range(n):
        t = x * i - 0.5
        if t > hi:
            t = hi
        elif t < lo:
            t = lo
        acc += t * t
        if i % 3 == 0:
            acc -= abs(t) * 0.25
        else:
            acc += min(t, 0.5)
    k = 0
    while acc > 10.0 and k < 8:
        acc = acc / 2.0
        k += 1
    r = acc if acc >= 0 else -acc
    return r + k


def with_math(x, y):
    return math.sin(x) * math.exp(-y) + math.sqrt(abs(x * y))


CASES = [
    ("tiny x*y+1 (float32)", tiny, (cubridge.float32, cubridge.float32), "float32(float32, float32)"),
    ("20-line loop/branch function", twenty_lines, (cubridge.float32, cubridge.int32), "float64(float32, int32)"),
    ("math (libdevice) function", with_math, (cubridge.float64, cubridge.float64), "float64(float64, float64)"),
]


def median_ms(fn, reps: int, warm: int = 3) -> float:
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        ts.append((time.perf_counter_ns() - t0) / 1e6)
    return statistics.median(ts)


def numba_compile():
    try:
        from numba import cuda
        return cuda.compile
    except Exception as e:  # noqa: BLE001 - any import failure means "no peer"
        print(f"numba-cuda unavailable: {e}", file=sys.stderr)
        return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default=None)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    reps = 10 if a.quick else 50
    peer = numba_compile()
    rows = []

    def row(case, unit, ours, peer_name=None, peer_value=None, target=None):
        rows.append({"face": "code", "case": case, "unit": unit, "ours": ours, "peer": peer_name,
                     "peer_value": peer_value, "target": target})

    for label, fn, sig, nsig in CASES:
        for output in ("ptx", "ltoir"):
            ours = median_ms(lambda: cubridge.compile(fn, sig, output=output, cc=(9, 0)), reps)
            theirs = None
            if peer is not None:
                try:
                    from numba import types as nbt  # noqa: F401
                    theirs = median_ms(lambda: peer(fn, nsig, device=True, abi="c", output=output, cc=(9, 0)),
                                       max(3, reps // 5), warm=1)
                except Exception as e:  # noqa: BLE001
                    print(f"numba.cuda.compile failed for {label} ({output}): {e}", file=sys.stderr)
            # numba-cuda takes 12-40 ms per small function; the target is a ratio of 0.1.
            row(f"compile {label} to {output}", "ms", ours, "numba.cuda.compile" if theirs else None, theirs,
                None if theirs is None else 0.1 * theirs)

        # Where the time goes, from the C++ timers of one compile (medians over reps).
        o = _core._CompileOptions()
        o.set_cc(9, 0)
        source, name = cubridge._compiler._collect(fn, o)
        parts = {"parse": [], "type": [], "emit": [], "libNVVM": []}
        for _ in range(reps):
            r = _core._compile_source(source, name, cubridge._types.as_signature(sig), o)
            for k, v in zip(parts, r.timings):
                parts[k].append(v * 1e3)
        fe = [p + t + e for p, t, e in zip(parts["parse"], parts["type"], parts["emit"])]
        row(f"{label}: front end (parse+type+emit)", "ms", statistics.median(fe), target=0.3)
        for k, v in parts.items():
            row(f"{label}: {k}", "ms", statistics.median(v))
        # libNVVM alone on the same IR, and our whole warm compile relative to it (target <= 1.2).
        ir = r.nvvm_ir
        alone = median_ms(lambda: cubridge.nvvm_compile(ir, (9, 0), libdevice=r.uses_libdevice), reps)
        whole = median_ms(lambda: _core._compile_source(source, name, cubridge._types.as_signature(sig), o), reps)
        row(f"{label}: warm compile (C++ API) vs libNVVM alone", "ms", whole, "libNVVM alone", alone, 1.2 * alone)

    # A cold `cubridge compile` process, end to end (target 100 ms) vs importing numba.cuda.
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "m.py")
        with open(src, "w") as f:
            f.write("def f(x, y):\n    return x * y + 1.0\n")
        cmd = [sys.executable, "-m", "cubridge", "compile", f"{src}:f", "--sig", "float32(float32, float32)",
               "--cc", "9.0", "-o", os.path.join(d, "f.ptx")]
        cold = median_ms(lambda: subprocess.run(cmd, check=True), 3 if a.quick else 7, warm=1)
        imp = median_ms(lambda: subprocess.run([sys.executable, "-c", "import numba.cuda"], check=False),
                        3 if a.quick else 5, warm=1)
        row("cold `cubridge compile` process", "ms", cold, "python -c 'import numba.cuda'", imp, 100.0)

    report(rows, a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
