"""Launches as numba users write them (issue 22): lazy `@jit` kernels with no signature, called as
`k[1, 32](args...)` (the subscript at every launch), on CuPy arrays, PyTorch tensors, numba device arrays and
cubridge arrays, for cubridge (lazy and eager), numba-cuda, numba-cuda-mlir, CuPy RawKernel and cuda.core, beside
two floors measured in the same run (a bare cuLaunchKernel in a C++ loop, and the same call made by one builtin
call from the Python loop each); and compile times of a one-line device function, a 12-line loop kernel and a
cold first compile (a fresh process, started before this one loads any GPU library) for cubridge, numba-cuda and
numba-cuda-mlir.

Every kernel has an empty body: the figure is host-side time per launch (batches of launches timed on the
host, the queue drained between batches outside the timing; the median over batches of the per-launch mean).
The rows take their batches in turn (the floor's too), so a drift of the host's speed weighs on all alike.
numba-cuda-mlir runs in a child process of its own (`--peer mlir`), back to back on the same machine, so its
CUDA state and numba-cuda's never share a process; it is found on PYTHONPATH or in the folder named by
CUBRIDGE_BENCH_MLIR (bench/fetch_mlir.sh explains how it travels to the GPU machine).

    python bench/bench_launch.py [--json PATH] [--quick]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy

if not hasattr(numpy, "row_stack"):  # numba-cuda 0.30 still calls it; numpy 2.5 removed it
    numpy.row_stack = numpy.vstack

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interleaved import Timed, interleaved_us  # noqa: E402
from peer_process import mlir_env, run_child, with_path  # noqa: E402
from rows import report  # noqa: E402


def median_ms(fn, reps: int) -> float:
    from bench_compile import median_ms as median  # one timing loop for the compile rows of every bench
    return median(fn, reps, warm=2)

N = 32
# (arrays, int64 scalars): the rows the issue asks for.
CASES = [(0, 0), (1, 0), (4, 0), (16, 0), (1, 32), (1, 256)]
# Issue 22's targets on CuPy arrays, PyTorch tensors and numba device arrays (µs).
FLOOR_SLACK_US = 1.0
PER_ARRAY_US = 0.15
PER_SCALAR_US = 0.05
RAWKERNEL_FACTOR = 0.8

TINY = "def tiny(x, y):\n    return x * y + 1.0\n"
LOOP = '''def loop_kernel(x, out, n):
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0.0
        for j in range(n):
            t = x[i] * j - 0.5
            if t > 1.0:
                t = 1.0
            elif t < -1.0:
                t = -1.0
            acc += t * t
        out[i] = acc
'''


def kernel_name(arrays: int, scalars: int) -> str:
    return f"k_a{arrays}_s{scalars}"


def kernel_params(arrays: int, scalars: int) -> list[str]:
    return [f"a{i}" for i in range(arrays)] + [f"s{i}" for i in range(scalars)]


def write_kernels(folder: str, module: str, cuda_import: str) -> str:
    """One module of empty-bodied Python functions, one per case, in a real file (every compiler reads
    source or bytecode from it the same way); `cuda_import` binds the name `cuda` the loop kernel uses.
    The one-line function also gets a module of its own, importing nothing, for the cold compile."""
    lines = [cuda_import + "\n"]
    for arrays, scalars in CASES:
        lines.append(f"def {kernel_name(arrays, scalars)}({', '.join(kernel_params(arrays, scalars))}):\n    pass\n")
    lines += [LOOP, TINY]
    path = os.path.join(folder, module + ".py")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(folder, "bench_launch_tiny.py"), "w") as f:
        f.write(TINY)
    return path


def load_module(path: str):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def cuda_cpp(arrays: int, scalars: int) -> str:
    params = [f"float* a{i}" for i in range(arrays)] + [f"long long s{i}" for i in range(scalars)]
    return f'extern "C" __global__ void {kernel_name(arrays, scalars)}({", ".join(params)}) {{}}\n'


def medians(launchers: dict, sync, batches: int, per_batch: int) -> dict:
    """The median host time per launch of each launcher, every row's batches taken in turn (interleaved.py)."""
    timed = interleaved_us(launchers, per_batch, batches, sync, warmup=2 * per_batch)
    return {key: median for key, (median, _least) in timed.items()}


def scalar_args(scalars: int) -> list[int]:
    return [i + 1 for i in range(scalars)]


def jit_launchers(jit, mod, make_arrays, eager_sig=None) -> dict:
    """Per case: a callable doing `k[1, 32](arrays..., scalars...)` for one jit decorator."""
    out = {}
    for arrays, scalars in CASES:
        fn = getattr(mod, kernel_name(arrays, scalars))
        k = (jit(eager_sig(arrays, scalars)) if eager_sig else jit)(fn)
        args = [*make_arrays(arrays), *scalar_args(scalars)]
        # As numba users write it: the configuration at every launch (a lazy launch's subscript is part of its cost).
        out[(arrays, scalars)] = (lambda kernel, a: lambda: kernel[1, 32](*a))(k, args)
    return out


def eager_signature(arrays: int, scalars: int) -> str:
    return "void(" + ", ".join(["float32[::1]"] * arrays + ["int64"] * scalars) + ")"


def compile_times(compile_ptx, mod, reps: int) -> dict:
    """Warm compile of the one-line device function and of the loop kernel, to PTX."""
    return {
        "tiny": median_ms(lambda: compile_ptx(mod.tiny, "float32(float32, float32)", device=True), reps),
        "loop": median_ms(lambda: compile_ptx(mod.loop_kernel, "void(float32[::1], float32[::1], int64)"), reps),
    }


COLD = {
    "cubridge": "import cubridge\nfrom bench_launch_tiny import tiny\n"
                "cubridge.compile_ptx(tiny, 'float32(float32, float32)', device=True)\n",
    "numba-cuda": "import numpy\nnumpy.row_stack = numpy.vstack\nfrom numba import cuda\n"
                  "from bench_launch_tiny import tiny\n"
                  "cuda.compile_ptx(tiny, 'float32(float32, float32)', device=True)\n",
    "numba-cuda-mlir": "from numba_cuda_mlir import cuda\nfrom bench_launch_tiny import tiny\n"
                       "cuda.compile_ptx(tiny, 'float32(float32, float32)', device=True)\n",
}


def cold_ms(peers: dict, folder: str, reps: int) -> dict:
    """{peer: median ms} of a fresh process that imports the compiler and compiles the one-line function
    (cubridge's on-disk cache pointed at an empty folder each time, so nothing is reused), for each peer given
    with its environment (None: this process's); None for a peer whose process fails. The peers take their
    processes in turn, so that a drift of the host weighs on each alike. Called before this process loads any
    GPU library: starting a child from a process that holds CUDA contexts, PyTorch and numba costs more, which is
    no part of the child's compile."""
    times = {peer: [] for peer in peers}
    for _ in range(reps):
        for peer, env in peers.items():
            if times[peer] is None:
                continue
            with tempfile.TemporaryDirectory() as cache:
                run_env = dict(with_path(env or dict(os.environ), folder), CUBRIDGE_CACHE_DIR=cache)
                t0 = time.perf_counter_ns()
                r = subprocess.run([sys.executable, "-c", COLD[peer]], env=run_env, capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"cold compile with {peer} failed: {r.stderr[-600:]}", file=sys.stderr)
                    times[peer] = None
                    continue
                times[peer].append((time.perf_counter_ns() - t0) / 1e6)
    return {peer: statistics.median(t) if t else None for peer, t in times.items()}


def mlir_child(opts) -> int:
    """--peer mlir: numba-cuda-mlir's launch and compile figures, as JSON on stdout."""
    import cupy as cp
    from numba_cuda_mlir import cuda as mcuda
    mod = load_module(write_kernels(opts.kernels, "bench_launch_mlir_kernels", "from numba_cuda_mlir import cuda"))
    sync = cp.cuda.Device().synchronize
    cps = [cp.zeros(N, dtype=cp.float32) for _ in range(16)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the small-grid performance warning
        res = medians(jit_launchers(mcuda.jit, mod, lambda n: cps[:n]), sync, opts.batches, opts.per_batch)
    comp = compile_times(mcuda.compile_ptx, mod, opts.reps)
    json.dump({"launch": {f"{a},{s}": v for (a, s), v in res.items()}, "compile": comp}, sys.stdout)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the rows (bench/README.md format) here")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--peer", choices=["mlir"], help=argparse.SUPPRESS)
    ap.add_argument("--kernels", help=argparse.SUPPRESS)
    ap.add_argument("--batches", type=int, default=15, help=argparse.SUPPRESS)
    ap.add_argument("--per-batch", type=int, default=1000, help=argparse.SUPPRESS)
    ap.add_argument("--reps", type=int, default=20, help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.quick:
        opts.batches, opts.per_batch, opts.reps = 5, 200, 5
    if opts.peer == "mlir":
        return mlir_child(opts)

    folder = tempfile.mkdtemp(prefix="bench_launch_")
    write_kernels(folder, "bench_launch_kernels", "from numba import cuda")
    env, mlir_why = mlir_env(folder)
    cold_peers = {"cubridge": None, "numba-cuda": None}
    if mlir_why is None:
        cold_peers["numba-cuda-mlir"] = env
    cold = cold_ms(cold_peers, folder, 3 if opts.quick else 7)

    import cupy as cp
    from numba import cuda

    import cubridge
    from hooks import bench_hooks
    from bench_kernels import EMPTY_PTX, POINTER_SIG, cuda_core_launcher_for

    mod = load_module(os.path.join(folder, "bench_launch_kernels.py"))
    sync = cp.cuda.Device().synchronize
    b, pb = opts.batches, opts.per_batch

    cps = [cp.zeros(N, dtype=cp.float32) for _ in range(16)]
    kinds = {"CuPy arrays": lambda n: cps[:n]}
    try:
        import torch
        tts = [torch.zeros(N, dtype=torch.float32, device="cuda") for _ in range(16)]
        kinds["PyTorch tensors"] = lambda n: tts[:n]
    except Exception as e:  # noqa: BLE001 - PyTorch missing or without CUDA: its rows say so
        print(f"(PyTorch rows skipped: {type(e).__name__}: {e})", file=sys.stderr)
    nbs = [cuda.to_device(numpy.zeros(N, numpy.float32)) for _ in range(16)]
    kinds["numba device arrays"] = lambda n: nbs[:n]
    ours = [cubridge.device_array(N, "f4") for _ in range(16)]
    kinds["cubridge arrays"] = lambda n: ours[:n]

    # The floor: bare cuLaunchKernel in a C++ loop on a loaded empty kernel (3 pointers + int64).
    floor_kernel = cubridge.load_kernel(EMPTY_PTX, "k", POINTER_SIG)
    ints = [x.data.ptr for x in cps[:3]]
    floor_kernel[1, 32](*ints, N)
    sync()

    # Every launch row, timed in one interleaved run (interleaved.py).
    launchers = {("floor",): Timed(lambda n: n * bench_hooks().bare_launch_ns(EMPTY_PTX, "k", [*ints, int(N)], n))}
    # The same bare launch, one call from the Python loop each (a METH_NOARGS builtin, in a lambda as every row):
    # what no Python launch can go under.
    python_floor = bench_hooks().python_launcher(EMPTY_PTX, "k", [*ints, int(N)])
    launchers[("python floor",)] = lambda: python_floor()
    faces = {"cubridge lazy @jit": (cubridge.jit, None), "cubridge eager @jit(sig)": (cubridge.jit, eager_signature),
             "numba-cuda @cuda.jit": (cuda.jit, None)}
    for kind, make in kinds.items():
        for face, (jit, sig) in faces.items():
            for case, go in jit_launchers(jit, mod, make, eager_sig=sig).items():
                launchers[(face, kind, case)] = go
    for arrays, scalars in CASES:
        rk = cp.RawKernel(cuda_cpp(arrays, scalars), kernel_name(arrays, scalars))
        args = (*cps[:arrays], *[numpy.int64(v) for v in scalar_args(scalars)])
        launchers[("raw", (arrays, scalars))] = (lambda k, a: lambda: k((1,), (32,), a))(rk, args)
        go, why = cuda_core_launcher_for(cuda_cpp(arrays, scalars), kernel_name(arrays, scalars),
                                         (*[x.data.ptr for x in cps[:arrays]],
                                          *[numpy.int64(v) for v in scalar_args(scalars)]))
        if go:
            launchers[("core", (arrays, scalars))] = go
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's small-grid performance warning
        timed = medians(launchers, sync, b, pb)
    floor = timed[("floor",)]
    py_floor = timed[("python floor",)]
    results = {(face, kind): {case: timed[(face, kind, case)] for case in CASES} for kind in kinds for face in faces}
    raw = {case: timed[("raw", case)] for case in CASES}
    core = {case: timed.get(("core", case)) for case in CASES}

    mlir = None
    if mlir_why is None:
        mlir, mlir_why = run_child(os.path.abspath(__file__), ["--peer", "mlir", "--kernels", folder, "--batches",
                                   str(b), "--per-batch", str(pb), "--reps", str(opts.reps)], env)
    if mlir_why:
        print(mlir_why, file=sys.stderr)

    rows = []

    def row(case, unit, ours_v, peer=None, peer_v=None, target=None):
        rows.append({"face": "code", "case": case, "unit": unit, "ours": ours_v, "peer": peer,
                     "peer_value": peer_v, "target": target})

    row("launch floor: bare cuLaunchKernel in a C++ loop (3 pointers + int64)", "us", floor)
    row("launch floor from Python: the same bare cuLaunchKernel, one builtin call from the Python loop each", "us",
        py_floor, "floor (bare cuLaunchKernel)", floor)
    for kind in kinds:
        lazy = results[("cubridge lazy @jit", kind)]
        base = lazy[(1, 0)]
        for arrays, scalars in CASES:
            case = f"lazy @jit k[1, 32], {arrays} arrays + {scalars} int64 on {kind}"
            ours_us = lazy[(arrays, scalars)]
            if (arrays, scalars) == (1, 0):
                target = floor + FLOOR_SLACK_US
            elif scalars == 0:
                target = base + PER_ARRAY_US * (arrays - 1) if arrays else None
            else:
                target = base + PER_SCALAR_US * scalars
            row(case, "us", ours_us, "floor (bare cuLaunchKernel)", floor, target)
            row(case, "us", ours_us, "floor from Python (one builtin call each)", py_floor)
            row(case, "us", ours_us, "cubridge eager @jit(sig)", results[("cubridge eager @jit(sig)", kind)][(arrays, scalars)])
            row(case, "us", ours_us, "numba-cuda 0.30 @cuda.jit", results[("numba-cuda @cuda.jit", kind)][(arrays, scalars)])
            if kind == "CuPy arrays":
                row(case, "us", ours_us, "CuPy RawKernel", raw[(arrays, scalars)], RAWKERNEL_FACTOR * raw[(arrays, scalars)])
                # The best ratio to RawKernel any launch from Python can have: the floor from Python reads no argument.
                row(f"floor from Python beside CuPy RawKernel on {arrays} arrays + {scalars} int64 (the lowest ratio "
                    "a launch from Python reaches)", "us", py_floor, "CuPy RawKernel", raw[(arrays, scalars)])
                row(case, "us", ours_us, "cuda.core launch (raw pointers)", core[(arrays, scalars)])
                row(case, "us", ours_us, "numba-cuda-mlir @cuda.jit" + (f" ({mlir_why})" if mlir_why else ""),
                    mlir["launch"][f"{arrays},{scalars}"] if mlir else None)

    from numba import cuda as ncuda
    ours_c = compile_times(cubridge.compile_ptx, mod, opts.reps)
    numba_c = compile_times(ncuda.compile_ptx, mod, max(3, opts.reps // 2))
    for key, label in (("tiny", "1-line device function"), ("loop", "12-line loop kernel")):
        row(f"compile to PTX, {label}", "ms", ours_c[key], "numba-cuda 0.30", numba_c[key], 0.2 * numba_c[key])
        row(f"compile to PTX, {label}", "ms", ours_c[key], "numba-cuda-mlir",
            mlir["compile"][key] if mlir else None, 0.2 * mlir["compile"][key] if mlir else None)
    row("cold first compile (fresh process: import + compile the 1-line function)", "ms", cold["cubridge"],
        "numba-cuda 0.30", cold["numba-cuda"], 150.0)
    if "numba-cuda-mlir" in cold:
        row("cold first compile (fresh process: import + compile the 1-line function)", "ms", cold["cubridge"],
            "numba-cuda-mlir", cold["numba-cuda-mlir"], 150.0)
    report(rows, opts.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
