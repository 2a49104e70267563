"""XLA custom calls: cost per call of cubridge's typed-FFI adapter vs XLA's classic custom-call path vs a
hand-written typed FFI handler (XLA's ffi.h), on CPU and GPU; plus a memory-bound GPU call against a
JAX elementwise op moving the same bytes.

Per call: 200 calls chained in one jax.jit (each call's output is the next one's input, behind an
optimization barrier so XLA cannot fuse the peer's links; 20 for the memory-bound call); the per-call
figure is (median time of the N-call program - median time of the 1-call program) / (N - 1), so jit
dispatch is not counted. All three paths run the same work (CPU: copy one float; GPU: the seed kernel
A[i] = B[i % 64] + C[i] on 256 floats). GPU kernel_call: the same add_mod written in CUDA C++ (NVRTC,
pointer parameters) launched by cubridge.jax.kernel_call, against the seed's classic target. Usage: python bench/bench_xla.py [--json PATH] [--quick]
"""
from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import sys
import time

import numpy as np

import jax
import jax.numpy as jnp

import cubridge.xla as cx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rows import report  # noqa: E402

F32 = jnp.float32
CHAIN = 200
BIG_CHAIN = 20  # memory-bound calls of 512 MiB each: enough links to drown the dispatch


def spec(*shape):
    return jax.ShapeDtypeStruct(shape, F32)


def median_us(f, x, reps: int) -> float:
    jax.block_until_ready(f(x))  # compile and warm up
    jax.block_until_ready(f(x))
    times = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        jax.block_until_ready(f(x))
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1e3


def per_call_us(call, x, reps: int, length: int = CHAIN) -> float:
    # optimization_barrier keeps XLA from fusing a chain of elementwise ops (v + 1 + 1 ...) into one kernel,
    # so each link of the peer's chain moves its bytes as each custom call does.
    def chain(n):
        def f(v):
            for _ in range(n):
                v = jax.lax.optimization_barrier(call(v))
            return v
        return jax.jit(f)
    return (median_us(chain(length), x, reps) - median_us(chain(1), x, reps)) / (length - 1)


def try_us(fn):
    try:
        return fn(), None
    except Exception as e:  # a jaxlib that refuses the classic path: report it, keep going
        return None, str(e).splitlines()[0][:160]


def cpu_rows(cdll, reps: int) -> list[dict]:
    cx.register(cdll.cubridge_example_copy1, "bench_copy1_adapter", "cpu", api_version=1)
    cx.register(cdll.cubridge_example_copy1, "bench_copy1_classic", "cpu", api_version=1, via="classic")
    jax.ffi.register_ffi_target("bench_copy1_typed", jax.ffi.pycapsule(cdll.cubridge_example_typed_copy1_cpu),
                                platform="cpu", api_version=1)
    cpu = jax.devices("cpu")[0]
    with jax.default_device(cpu):
        x = jnp.ones(1, F32)
        ours = per_call_us(lambda v: cx.custom_call("bench_copy1_adapter", spec(1), v), x, reps)
        typed = per_call_us(lambda v: jax.ffi.ffi_call("bench_copy1_typed", spec(1))(v), x, reps)
        classic, why = try_us(lambda: per_call_us(lambda v: cx.custom_call("bench_copy1_classic", spec(1), v),
                                                  x, reps))
    return [
        {"face": "calls", "case": "CPU custom call, per call (200 chained), cubridge adapter", "unit": "us",
         "ours": ours, "peer": "hand-written typed FFI handler", "peer_value": typed, "target": 0.2},
        {"face": "calls", "case": "CPU custom call, per call (200 chained), cubridge adapter", "unit": "us",
         "ours": ours, "peer": "XLA classic path" + (f" (failed: {why})" if why else ""),
         "peer_value": classic, "target": 0.2},
    ]


def gpu_rows(cdll, reps: int, quick: bool) -> list[dict]:
    error = ctypes.create_string_buffer(512)
    if cdll.cubridge_example_gpu_prepare(error, ctypes.c_size_t(512)) != 0:
        raise RuntimeError(error.value.decode())
    cx.register(cdll.cubridge_example_add_mod_gpu, "bench_add_mod_adapter", "cuda", api_version=2)
    cx.register(cdll.cubridge_example_add_mod_gpu, "bench_add_mod_classic", "cuda", api_version=2, via="classic")
    jax.ffi.register_ffi_target("bench_add_mod_typed", jax.ffi.pycapsule(cdll.cubridge_example_typed_add_mod_gpu),
                                platform="CUDA", api_version=1)
    gpu = jax.devices("gpu")[0]
    n, m = 256, 64
    opaque = cx.encode_opaque(n=n, m=m)
    with jax.default_device(gpu):
        b = jnp.ones(m, F32)
        c = jnp.zeros(n, F32)
        ours = per_call_us(lambda v: cx.custom_call("bench_add_mod_adapter", spec(n), b, v, opaque=opaque), c, reps)
        typed = per_call_us(lambda v: jax.ffi.ffi_call("bench_add_mod_typed", spec(n))(b, v), c, reps)
        classic, why = try_us(lambda: per_call_us(
            lambda v: cx.custom_call("bench_add_mod_classic", spec(n), b, v, opaque=opaque), c, reps))

        big = 1 << (22 if quick else 26)
        cb = jnp.arange(big, dtype=F32)
        bw_ours = per_call_us(lambda v: cx.custom_call("bench_add_mod_adapter", spec(big), b, v,
                                                       opaque={"n": big, "m": m}), cb, reps, BIG_CHAIN)
        bw_peer = per_call_us(lambda v: v + 1.0, cb, reps, BIG_CHAIN)
    kc_rows = kernel_call_rows(reps, ours, classic, why)
    gbps = lambda us: 8 * big / (us * 1e3)  # noqa: E731  (read C, write A; B stays in cache)
    print(f"memory-bound call: {gbps(bw_ours):.0f} GB/s vs jnp v + 1: {gbps(bw_peer):.0f} GB/s "
          f"({100 * bw_peer / bw_ours:.0f}% of it)")
    return [
        {"face": "calls", "case": "GPU custom call, per call (200 chained), cubridge adapter", "unit": "us",
         "ours": ours, "peer": "hand-written typed FFI handler", "peer_value": typed, "target": 3.0},
        {"face": "calls", "case": "GPU custom call, per call (200 chained), cubridge adapter", "unit": "us",
         "ours": ours, "peer": "XLA classic path" + (f" (failed: {why})" if why else ""),
         "peer_value": classic, "target": 3.0},
        {"face": "calls", "case": f"GPU memory-bound custom call, {8 * big >> 20} MiB moved, per call "
         f"({BIG_CHAIN} chained)", "unit": "us", "ours": bw_ours, "peer": "jnp v + 1.0 (same bytes, same chain)",
         "peer_value": bw_peer, "target": bw_peer},
        *kc_rows,
    ]


# The seed's add_mod as a CUDA C++ kernel with pointer parameters, its result last (kernel_call's convention).
ADD_MOD_CU = r"""
extern "C" __global__ void add_mod(const float* b, const float* c, float* out, unsigned long long n,
                                   unsigned long long m) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = b[(n | m) <= 0xffffffffull ? (unsigned)i % (unsigned)m : i % m] + c[i];
}
"""


def kernel_call_rows(reps: int, adapter_us: float, classic_us: float | None, classic_why: str | None) -> list[dict]:
    """kernel_call of add_mod (NVRTC, pointer parameters) vs the seed's classic add_mod target, same work."""
    import cubridge
    import cubridge.jax as cj
    cc = cubridge.Device(0).compute_capability
    cubin = cubridge.nvrtc_compile(ADD_MOD_CU, "add_mod.cu", cc, output="cubin").code
    k = cubridge.load_kernel(cubin, "add_mod", "void(const float32*, const float32*, float32*, uint64, uint64)")
    n, m = 256, 64
    call = cj.kernel_call(k, spec(n), griddim=(n + 255) // 256, blockdim=256)
    gpu = jax.devices("gpu")[0]
    with jax.default_device(gpu):
        b = jnp.ones(m, F32)
        c = jnp.zeros(n, F32)
        ours = per_call_us(lambda v: call(b, v, n, m), c, reps)
    case = "GPU kernel_call (NVRTC add_mod), per call (200 chained)"
    return [
        {"face": "calls", "case": case, "unit": "us", "ours": ours,
         "peer": "same add_mod as a classic target through cubridge's adapter", "peer_value": adapter_us,
         "target": 3.0},
        {"face": "calls", "case": case, "unit": "us", "ours": ours,
         "peer": "same add_mod as a classic target on XLA's classic path" + (f" (failed: {classic_why})" if classic_why else ""),
         "peer_value": classic_us, "target": 3.0},
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    reps = 15 if args.quick else 101
    if not cx.adapter_available():
        print("cubridge was built without XLA's FFI headers: nothing to measure", file=sys.stderr)
        return 1
    cdll = ctypes.CDLL(str(cx.examples_library()))
    rows = cpu_rows(cdll, reps)
    try:
        has_gpu = bool(jax.devices("gpu"))
    except RuntimeError:
        has_gpu = False
    if has_gpu:
        rows += gpu_rows(cdll, reps, args.quick)
    else:
        print("no GPU backend in jax: GPU rows skipped", file=sys.stderr)
    report(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
