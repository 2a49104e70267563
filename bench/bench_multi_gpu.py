"""Several GPUs of one host: weak scaling of the sharded custom call, and peer copies.

Weak scaling: per-call cost of cubridge.jax.kernel_call (add_f32 PTX) and of the seed's classic add_mod target
through cubridge's typed-FFI adapter, inside jax.jit with shard_map over the first 1, 2 and 4 GPUs (as many as
the host has), the work per device fixed (N floats per device, launch-bound at 256 and bandwidth-bound at 4 Mi),
beside XLA's own elementwise add under the same shard_map (the peer: how flat JAX itself scales). Each row's
ratio is the figure on k GPUs over the same call's on one GPU: flat is 1.0, the issue's target 1.10.

Per call: 200 calls chained in one program (each call's output is the next one's input); the figure is
(median of the 200-call program - median of the 1-call program) / 199, so dispatch is not counted (bench_xla.py's
method, whose helpers this script uses). Under shard_map every GPU runs each call at once, so the figure is the
cost per call on each device.

Peer copies: GB/s of a device-0 -> device-1 copy (and back) of 256 MiB through cubridge (DeviceArray.copy_from,
cuMemcpyPeerAsync ordered after both devices' default streams), cudaMemcpyPeer (through CuPy's runtime module)
and CuPy's own device-to-device copy (MemoryPointer.copy_from_device), in the same run: batches of 8 copies,
both devices synchronised, median of the batches. The issue's target: cubridge >= 95% of cudaMemcpyPeer.
Usage: python bench/bench_multi_gpu.py [--json PATH] [--quick]
"""
from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # NVLink multicast stays off on the lent machines

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

import cubridge  # noqa: E402
import cubridge.jax as cj  # noqa: E402
import cubridge.xla as cx  # noqa: E402
from bench_xla import CHAIN, median_us  # noqa: E402
from rows import report  # noqa: E402

F32 = jnp.float32
SIZES = (256, 1 << 22)  # floats per device: launch-bound, and 16 MiB per operand (bandwidth-bound)
M = 64  # add_mod's modulus
SCALING_TARGET = 1.10  # the "within 10% of flat"
PEER_BYTES = 256 << 20
PEER_TARGET = 0.95  # of cudaMemcpyPeer's bandwidth
# add_f32(const float32[:] a, const float32[:] b, float32[:] out): out[i] = a[i] + b[i], Numba ABI.
PTX_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cpp", "kernel",
                        "numba_abi_kernels.ptx")


def spec(*shape):
    return jax.ShapeDtypeStruct(shape, F32)


def shard_map_fn():
    import functools
    import inspect
    fn = getattr(jax, "shard_map", None)
    if fn is None:
        from jax.experimental.shard_map import shard_map as fn
    params = inspect.signature(fn).parameters
    extra = {"check_vma": False} if "check_vma" in params else {"check_rep": False} if "check_rep" in params else {}
    return functools.partial(fn, **extra)


def chained(call, n):
    """call(const, v) applied n times to v; the barrier keeps XLA from fusing a chain of its own adds."""
    def f(const, v):
        for _ in range(n):
            v = jax.lax.optimization_barrier(call(const, v))
        return v
    return f


def per_call(call, const, v, devices, reps: int) -> float:
    """Per-call µs of `call` chained CHAIN times: under shard_map over `devices`, or plain jit on devices[0]
    when `devices` is None."""
    def program(n):
        f = chained(call, n)
        if devices is None:
            return jax.jit(f)
        mesh = Mesh(np.array(devices), ("x",))
        return jax.jit(shard_map_fn()(f, mesh=mesh, in_specs=(P(), P("x")), out_specs=P("x")))

    def operands():
        if devices is None:
            return jax.device_put(const, jax.devices("gpu")[0]), jax.device_put(v, jax.devices("gpu")[0])
        mesh = Mesh(np.array(devices), ("x",))
        return (jax.device_put(const, NamedSharding(mesh, P())),
                jax.device_put(jnp.tile(v, len(devices)), NamedSharding(mesh, P("x"))))
    c, x = operands()
    long, short = program(CHAIN), program(1)
    return (median_us(lambda x: long(c, x), x, reps) - median_us(lambda x: short(c, x), x, reps)) / (CHAIN - 1)


def calls(n: int) -> dict:
    """The calls measured, each as (call(const, v), const, v) on n floats per device."""
    with open(PTX_PATH) as f:
        k = cubridge.load_kernel(f.read(), "add_f32", "const float32[:], const float32[:], float32[:]")
    add = cj.kernel_call(k, spec(n), griddim=(n + 127) // 128, blockdim=128)
    opaque = cx.encode_opaque(n=n, m=M)
    return {
        "kernel_call (add_f32 PTX)": (lambda ones, v: add(v, ones), jnp.ones(n, F32), jnp.zeros(n, F32)),
        "classic add_mod through the adapter": (
            lambda b, v: cx.custom_call("bench_multi_gpu_add_mod", spec(n), b, v, opaque=opaque),
            jnp.ones(M, F32), jnp.zeros(n, F32)),
        "XLA's own add (jnp, the peer)": (lambda ones, v: v + ones, jnp.ones(n, F32), jnp.zeros(n, F32)),
    }


def register_add_mod() -> None:
    cdll = ctypes.CDLL(str(cx.examples_library()))
    error = ctypes.create_string_buffer(512)
    if cdll.cubridge_example_gpu_prepare(error, ctypes.c_size_t(512)) != 0:  # kernels loaded on every device
        raise RuntimeError(error.value.decode())
    cx.register(cdll.cubridge_example_add_mod_gpu, "bench_multi_gpu_add_mod", "cuda", api_version=2)


def scaling_rows(reps: int) -> list[dict]:
    gpus = jax.devices("gpu")
    counts = [k for k in (1, 2, 4) if k <= len(gpus)]
    register_add_mod()
    out = []
    for n in SIZES:
        for name, (call, const, v) in calls(n).items():
            per = {k: per_call(call, const, v, gpus[:k], reps) for k in counts}
            print(f"{name}, {n} floats per device: " + ", ".join(f"{k} GPU(s) {per[k]:.3g} us" for k in counts),
                  file=sys.stderr, flush=True)
            for k in counts[1:]:
                out.append({"face": "calls", "unit": "us", "ours": per[k],
                            "case": f"GPU {name}, {n} floats per device, shard_map over {k} GPUs, per call "
                                    f"per device ({CHAIN} chained; weak scaling)",
                            "peer": "same call under shard_map over 1 GPU", "peer_value": per[1],
                            "target": SCALING_TARGET * per[1]})
            if len(counts) == 1:
                print(f"{name}: one GPU here, so no scaling figure", file=sys.stderr)
    return out


def batch_gbps(copy, sync, nbytes: int, reps: int, batch: int = 8) -> float:
    """Median GB/s over `reps` batches of `batch` copies of `nbytes`, each batch ended by `sync`."""
    copy()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        for _ in range(batch):
            copy()
        sync()
        times.append(time.perf_counter_ns() - t0)
    return batch * nbytes / statistics.median(times)  # bytes per ns = GB/s


def peer_copy_rows(reps: int) -> list[dict]:
    if cubridge.device_count() < 2:
        print("one GPU here: no peer copies", file=sys.stderr)
        return []
    try:
        import cupy as cp
    except ImportError:
        print("CuPy is not installed: no peer-copy peers", file=sys.stderr)
        return []
    n = PEER_BYTES
    out = []
    for src_dev, dst_dev in ((0, 1), (1, 0)):
        src = cubridge.to_device(np.arange(n, dtype=np.uint8), device=src_dev)
        dst = cubridge.device_array(n, np.uint8, device=dst_dev)

        def sync():
            for d in (src_dev, dst_dev):
                cp.cuda.Device(d).synchronize()
        ours = batch_gbps(lambda: dst.copy_from(src), sync, n, reps)
        assert np.array_equal(dst.copy_to_host()[:4096], np.arange(4096, dtype=np.uint8)), "the peer copy was wrong"
        with cp.cuda.Device(src_dev):
            a = cp.arange(n, dtype=cp.uint8)
        with cp.cuda.Device(dst_dev):
            b = cp.empty(n, dtype=cp.uint8)
        memcpy_peer = batch_gbps(lambda: cp.cuda.runtime.memcpyPeer(b.data.ptr, dst_dev, a.data.ptr, src_dev, n),
                                 sync, n, reps)

        def cupy_copy():
            with cp.cuda.Device(dst_dev):
                b.data.copy_from_device(a.data, n)
        cupy_gbps = batch_gbps(cupy_copy, sync, n, reps)
        case = f"peer copy device {src_dev} -> {dst_dev}, {n >> 20} MiB (DeviceArray.copy_from)"
        for peer, value in (("cudaMemcpyPeer", memcpy_peer), ("CuPy MemoryPointer.copy_from_device", cupy_gbps)):
            out.append({"face": "arrays", "case": case, "unit": "GB/s", "ours": ours, "peer": peer,
                        "peer_value": value, "target": PEER_TARGET * memcpy_peer})
        print(f"{case}: cubridge {ours:.1f} GB/s, cudaMemcpyPeer {memcpy_peer:.1f}, CuPy {cupy_gbps:.1f}",
              file=sys.stderr, flush=True)
        del src, dst, a, b
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    reps = 15 if args.quick else 101
    if not cx.adapter_available():
        print("cubridge was built without XLA's FFI headers: nothing to measure", file=sys.stderr)
        return 1
    try:
        has_gpu = bool(jax.devices("gpu"))
    except RuntimeError:
        has_gpu = False
    if not has_gpu:
        print("no GPU backend in jax: nothing to measure", file=sys.stderr)
        report([], args.json)
        return 0
    result = peer_copy_rows(11 if args.quick else 31) + scaling_rows(reps)
    report(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
