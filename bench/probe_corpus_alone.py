"""The kernel corpus compiled by cubridge alone: bench_compile_corpus.py's kernels, signatures and timing (a warm-up
call, then the median of REPS calls per kernel), with no peer in the process and the on-disk cache pointed at a fresh
folder. Prints the median over the kernels and the whole run's wall time: what an A/B of two builds needs (run it
under each build's PYTHONPATH in turn), in a tenth of the full bench's time.

    python bench/probe_corpus_alone.py [REPS]
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

import numpy

if not hasattr(numpy, "row_stack"):  # numba-cuda 0.30 (the parity kernels import it) with numpy 2.5
    numpy.row_stack = numpy.vstack
os.environ.setdefault("CUBRIDGE_CACHE_DIR", tempfile.mkdtemp(prefix="probe_corpus_"))

import cubridge  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_compile_corpus as corpus_bench  # noqa: E402


def main() -> int:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    kernels = corpus_bench.corpus()
    t0 = time.perf_counter()
    times = [corpus_bench.best_of(lambda: cubridge.compile_ptx(fn, sig, cc=corpus_bench.CC, **options), reps)
             for _name, fn, sig, options, _ in kernels]
    compiled = [t for t in times if t is not None]
    print(f"{cubridge.__file__}: {len(compiled)} of {len(kernels)} kernels, median {statistics.median(compiled):.2f} ms, "
          f"run {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
