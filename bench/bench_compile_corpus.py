"""Kernel compile time over the whole corpus: cubridge.compile_ptx against numba-cuda's numba.cuda.compile_ptx
and numba-cuda-mlir's compile_ptx (numba-cuda's successor) on the same kernels and signatures
(tests/python/corpus/kernel_cases.py and every family of tests/python/parity/), to PTX for cc 9.0, on the same
CPU. cubridge and numba-cuda touch no GPU; numba-cuda-mlir 0.6.0 reads the compute capability of the
machine's GPU on every compile (numba_cuda_mlir/tools.py, resolve_gpu_target), so its rows need one.

Per peer it reports the median over the kernels both compile of (cubridge time / peer time) — issues 12 and 22,
target <= 0.2 — the median compile time of each over those same kernels, and how many kernels each refuses
(the names and the peer's reasons go to stderr). numba-cuda runs in this process; numba-cuda-mlir in a child
process of its own (`--peer mlir`, bench/peer_process.py: found on PYTHONPATH or in CUBRIDGE_BENCH_MLIR's folder,
bench/fetch_mlir.sh brings it to the GPU machine). A peer that cannot run gives rows that say why. The cold
first compile (a fresh process: import + one tiny compile) of all three is bench/bench_launch.py's row.

    python bench/bench_compile_corpus.py [--json PATH] [--quick]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import types
import warnings

import numpy

import cubridge

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from peer_process import mlir_env, run_child  # noqa: E402
from rows import report  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))

CC = (9, 0)
TARGET_RATIO = 0.2


def corpus() -> list[tuple[str, object, object, dict, object]]:
    """(name, function, signature, options, make) of every kernel of both corpora, as cubridge compiles them:
    the kernel corpus spells intrinsics cubridge.X, the parity families numba.cuda.X. A parity case without a
    signature gets the one cubridge.typeof gives its arguments (`make()`); a peer types them with its own
    typeof (`make` is None where the case has a signature). Names are unique: a case id that several cases share
    (one function under several signatures) gets "#2", "#3", ... after its first, so that no case's time replaces
    another's in the per-kernel tables."""
    from corpus.kernel_cases import CASES as KERNELS
    from parity.cases import load_all
    out = [(f"corpus-{c.name}", c.fn, c.sig, {}, None) for c in KERNELS]
    out += [(c.id, c.fn, c.signature(cubridge.typeof), c.options, None if c.sig is not None else c.make)
            for c in load_all()]
    seen: dict[str, int] = {}
    unique = []
    for name, *rest in out:
        seen[name] = seen.get(name, 0) + 1
        unique.append((name if seen[name] == 1 else f"{name}#{seen[name]}", *rest))
    return unique


def peer_signature(sig, make, typeof, signature, none, convert):
    """The signature a peer compiles: its own typeof of the case's arguments where the case has no signature
    (as its lazy jit would specialise); a string signature without `const ` (neither numba compiler spells
    read-only parameters); a signature of numba-cuda's type objects with each argument made the peer's by
    `convert`."""
    if make is not None:
        return signature(none, *[typeof(a) for a in make()])
    if isinstance(sig, str):
        return sig.replace("const ", "")
    return signature(none, *[convert(t) for t in sig.args])


def mlir_type(t):
    """numba-cuda's type object `t` as numba-cuda-mlir's (its own copy of numba's type classes), through the
    NumPy dtype both agree on; an array keeps its dimensions, layout and read-only flag."""
    from numba.np.numpy_support import as_dtype
    from numba_cuda_mlir import types as mtypes
    from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype
    if hasattr(t, "ndim") and hasattr(t, "layout"):
        return mtypes.Array(from_dtype(as_dtype(t.dtype)), t.ndim, t.layout, readonly=not t.mutable)
    return from_dtype(as_dtype(t))


def respell(fn, cuda, convert=lambda t: t, memo: dict | None = None):
    """fn as the compiler whose kernel-language module is `cuda` (numba-cuda's or numba-cuda-mlir's) reads it:
    a name bound to cubridge or to another compiler's cuda module is bound to `cuda`; a plain Python function
    of fn's module that fn calls, or another compiler's device function, becomes a `cuda` device function
    (`cuda.jit(device=True)` of its Python function, respelt in turn; options such as inline are not
    carried); a submodule of another compiler's cuda module (libdevice, fp16) is `cuda`'s of that name; a
    numba type object is `convert(it)` (kept where the peer has no such type: the peer then says so). Device
    functions of `cuda` itself stay as they are. `memo` makes each function once (made before its body is
    respelt, so a recursive call finds it)."""
    try:
        from numba.core.types import Type as NumbaType
    except ImportError:  # no numba: no numba type objects to convert
        NumbaType = ()
    memo = {} if memo is None else memo
    own = type(cuda.jit(device=True)(lambda: None))

    def peer_value(v):
        if v is cubridge or (isinstance(v, types.ModuleType) and v is not cuda and
                             v.__name__.rpartition(".")[2] == "cuda" and hasattr(v, "jit")):
            return cuda
        if isinstance(v, types.ModuleType) and ".cuda." in v.__name__ and \
                not v.__name__.startswith(cuda.__name__ + ".") and \
                isinstance(getattr(cuda, v.__name__.rpartition(".")[2], None), types.ModuleType):
            return getattr(cuda, v.__name__.rpartition(".")[2])
        if isinstance(v, NumbaType):
            try:
                return convert(v)
            except Exception:  # noqa: BLE001 - no such type in the peer: it refuses the kernel by its own message
                return v
        if isinstance(v, own):
            return v
        if isinstance(v, tuple):  # a tuple of device functions, indexed or iterated in the kernel
            return tuple(peer_value(x) for x in v)
        if isinstance(v, types.FunctionType) and v.__module__ == fn.__module__ or callable(getattr(v, "py_func", None)):
            py = getattr(v, "py_func", v)
            if id(py) not in memo:
                body = types.FunctionType(py.__code__, dict(py.__globals__), py.__name__, py.__defaults__,
                                          py.__closure__)
                memo[id(py)] = cuda.jit(device=True)(body)
                body.__globals__.update(respell(py, cuda, convert, memo).__globals__)
            return memo[id(py)]
        return v

    out = types.FunctionType(fn.__code__, dict(fn.__globals__), fn.__name__, fn.__defaults__, fn.__closure__)
    for name in fn.__code__.co_names:
        if name in out.__globals__:
            out.__globals__[name] = peer_value(out.__globals__[name])
    return out


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


def first_line(e: BaseException) -> str:
    """The exception's type and the start of its message (numba's typing errors say what failed a few lines
    in, below a generic first line)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return f"{type(e).__name__}: {' / '.join(lines[:3])}"[:300]


def peer_times(compile_ptx, cuda, typing, reps: int, kernels) -> tuple[dict, dict]:
    """Per kernel: the peer's median compile time in ms, or None where it refuses (its reason in the second
    dict). The peer gets each kernel respelt for `cuda` and the signature peer_signature gives with its
    `typing` (its typeof, its signature(), its none type, the conversion of numba-cuda's types to its own)."""
    times, why = {}, {}
    for name, fn, sig, options, make in kernels:
        try:
            peer_fn, peer_sig = respell(fn, cuda, typing[3]), peer_signature(sig, make, *typing)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile_ptx(peer_fn, peer_sig, cc=CC, **options)
        except Exception as e:  # noqa: BLE001 - a refusal is counted, not timed
            times[name], why[name] = None, first_line(e)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            times[name] = best_of(lambda: compile_ptx(peer_fn, peer_sig, cc=CC, **options), reps)
    return times, why


def mlir_child(reps: int) -> int:
    """--peer mlir: numba-cuda-mlir's times and refusals as JSON on stdout; exit 2 with the reason on stderr
    when it cannot compile at all (its first compile of a one-line function fails)."""
    from numba_cuda_mlir import cuda as mcuda

    def tiny(x, y):
        return x * y + 1.0

    try:
        mcuda.compile_ptx(tiny, "float32(float32, float32)", device=True, cc=CC)
    except Exception as e:  # noqa: BLE001 - the parent's rows say why
        print(f"numba-cuda-mlir cannot compile here: {first_line(e)}", file=sys.stderr)
        return 2
    import numba_cuda_mlir
    from numba_cuda_mlir import types, typing
    from numba_cuda_mlir.numba_cuda.typing.typeof import typeof
    times, why = peer_times(mcuda.compile_ptx, mcuda, (typeof, typing.signature, types.none, mlir_type), reps,
                            corpus())
    json.dump({"version": numba_cuda_mlir.__version__, "times": times, "refusals": why}, sys.stdout)
    print()
    return 0


def numba_cuda_peer(reps: int, kernels) -> tuple[dict | None, dict, str | None]:
    """numba-cuda in this process: (times, refusals, None), or (None, {}, why) where it is not installed."""
    try:
        from numba import cuda, typeof
        from numba.core import types, typing
        from numba_cuda import __version__  # noqa: F401 - numba-cuda itself, not numba's own deprecated numba.cuda
    except Exception as e:  # noqa: BLE001 - no peer here
        return None, {}, f"numba-cuda not importable: {first_line(e)}"
    times, why = peer_times(cuda.compile_ptx, cuda, (typeof, typing.signature, types.none, lambda t: t), reps,
                            kernels)
    return times, why, None


def peer_rows(row, label: str, ours: dict, theirs: dict | None, refusals: dict, why: str | None) -> None:
    """The rows of one peer: median ratio over the kernels both compile (target 0.2), the medians of each over
    those kernels, and the kernels each refuses; a peer not measured gives the same rows with the reason."""
    total = len(ours)
    if theirs is None:
        note = f" (not measured: {why})"
        row(f"kernel corpus compile time, median ratio cubridge / {label}{note}", "ratio", None, target=TARGET_RATIO)
        ours_ok = [t for t in ours.values() if t is not None]
        row(f"kernel corpus: median compile time, {len(ours_ok)} kernels cubridge compiles{note}", "ms",
            statistics.median(ours_ok) if ours_ok else None, label, None)
        row(f"kernel corpus: kernels refused, of {total}{note}", "kernels",
            float(sum(t is None for t in ours.values())), label, None)
        return
    both = [n for n in ours if ours[n] is not None and theirs.get(n) is not None]
    we_refuse = [n for n in ours if ours[n] is None and theirs.get(n) is not None]
    they_refuse = [n for n in ours if theirs.get(n) is None and ours[n] is not None]
    both_refuse = [n for n in ours if ours[n] is None and theirs.get(n) is None]
    for what, names in ((f"cubridge refuses, {label} compiles", we_refuse),
                        (f"{label} refuses, cubridge compiles", they_refuse), (f"both refuse ({label})", both_refuse)):
        for n in names:
            print(f"{what}: {n}" + (f" — {label}: {refusals[n]}" if n in refusals else ""), file=sys.stderr)
    if both:
        row(f"kernel corpus compile time, median ratio cubridge / {label} over {len(both)} kernels both compile",
            "ratio", statistics.median(ours[n] / theirs[n] for n in both), target=TARGET_RATIO)
        row(f"kernel corpus: median compile time over the {len(both)} kernels cubridge and {label} compile", "ms",
            statistics.median(ours[n] for n in both), label, statistics.median(theirs[n] for n in both))
    row(f"kernel corpus: kernels refused, of {total}", "kernels", float(len(we_refuse) + len(both_refuse)), label,
        float(len(they_refuse) + len(both_refuse)))
    row(f"kernel corpus: kernels {label} compiles that cubridge refuses, of {total}", "kernels", float(len(we_refuse)),
        target=0.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, help="write the rows (bench/README.md format) here")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions per kernel")
    ap.add_argument("--peer", choices=["mlir"], help=argparse.SUPPRESS)
    ap.add_argument("--reps", type=int, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if not hasattr(numpy, "row_stack"):  # numba-cuda 0.30 (the parity kernels import it) with numpy 2.5
        numpy.row_stack = numpy.vstack
    reps = a.reps or (3 if a.quick else 7)
    peer_reps = max(1, reps // 2)
    if a.peer == "mlir":
        return mlir_child(peer_reps)

    kernels = corpus()
    t0 = time.perf_counter()
    ours = {name: best_of(lambda: cubridge.compile_ptx(fn, sig, cc=CC, **options), reps)
            for name, fn, sig, options, _ in kernels}
    print(f"(cubridge: {time.perf_counter() - t0:.1f} s)", file=sys.stderr)

    t0 = time.perf_counter()
    numba_times, numba_why, numba_missing = numba_cuda_peer(peer_reps, kernels)
    print(f"(numba-cuda: {time.perf_counter() - t0:.1f} s)", file=sys.stderr)

    t0 = time.perf_counter()
    env, mlir_missing = mlir_env()
    mlir = None
    if mlir_missing is None:
        mlir, mlir_missing = run_child(os.path.abspath(__file__), ["--peer", "mlir", "--reps", str(reps)], env)
    print(f"(numba-cuda-mlir: {time.perf_counter() - t0:.1f} s)", file=sys.stderr)

    rows = []

    def row(case, unit, ours_v, peer=None, peer_value=None, target=None):
        rows.append({"face": "code", "case": case, "unit": unit, "ours": ours_v, "peer": peer,
                     "peer_value": peer_value, "target": target})

    peer_rows(row, "numba-cuda", ours, numba_times, numba_why, numba_missing)
    peer_rows(row, f"numba-cuda-mlir {mlir['version']}" if mlir else "numba-cuda-mlir",
              ours, mlir["times"] if mlir else None, mlir["refusals"] if mlir else {}, mlir_missing)
    report(rows, a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
