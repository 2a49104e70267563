"""Custom calls sharded over every GPU of the host: per-call cost of cubridge.jax.kernel_call and of the seed's
classic add_mod target through cubridge's typed-FFI adapter, inside jax.jit with shard_map over all local GPUs,
beside the same call on one GPU (plain jax.jit on device 0) and under shard_map over a one-GPU mesh.

Per call: 200 calls chained in one program (each call's output is the next one's input, 256 floats per
device); the figure is (median of the 200-call program - median of the 1-call program) / 199, so dispatch is
not counted (bench_xla.py's method, whose helpers this script uses). Under shard_map every GPU runs each call
at once, so the per-call figure is the cost per call on each device. Usage:
python bench/bench_multi_gpu.py [--json PATH] [--quick]
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # NVLink multicast stays off on the lent machines

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

import cubridge  # noqa: E402
import cubridge.jax as cj  # noqa: E402
import cubridge.xla as cx  # noqa: E402
from bench_xla import CHAIN, median_us, table  # noqa: E402

F32 = jnp.float32
N, M = 256, 64  # floats per device; add_mod's modulus
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
    """call(const, v) applied n times to v."""
    def f(const, v):
        for _ in range(n):
            v = call(const, v)
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


def calls() -> dict:
    """The two calls, each as (call(const, v), const, v) on N floats per device."""
    with open(PTX_PATH) as f:
        k = cubridge.load_kernel(f.read(), "add_f32", "const float32[:], const float32[:], float32[:]")
    add = cj.kernel_call(k, spec(N), griddim=(N + 127) // 128, blockdim=128)
    cdll = ctypes.CDLL(str(cx.examples_library()))
    error = ctypes.create_string_buffer(512)
    if cdll.cubridge_example_gpu_prepare(error, ctypes.c_size_t(512)) != 0:  # kernels loaded on every device
        raise RuntimeError(error.value.decode())
    cx.register(cdll.cubridge_example_add_mod_gpu, "bench_multi_gpu_add_mod", "cuda", api_version=2)
    opaque = cx.encode_opaque(n=N, m=M)
    return {
        "kernel_call (add_f32 PTX)": (lambda ones, v: add(v, ones), jnp.ones(N, F32), jnp.zeros(N, F32)),
        "classic add_mod through the adapter": (
            lambda b, v: cx.custom_call("bench_multi_gpu_add_mod", spec(N), b, v, opaque=opaque),
            jnp.ones(M, F32), jnp.zeros(N, F32)),
    }


def rows(reps: int) -> list[dict]:
    gpus = jax.devices("gpu")
    out = []
    for name, (call, const, v) in calls().items():
        one = per_call(call, const, v, None, reps)
        mesh1 = per_call(call, const, v, gpus[:1], reps)
        case = f"GPU {name} under shard_map over {len(gpus)} GPU(s), per call per device ({CHAIN} chained)"
        if len(gpus) > 1:
            sharded = per_call(call, const, v, gpus, reps)
            out.append({"face": "calls", "case": case, "unit": "us", "ours": sharded,
                        "peer": "same call on one GPU (jax.jit on device 0)", "peer_value": one, "target": None})
            out.append({"face": "calls", "case": case, "unit": "us", "ours": sharded,
                        "peer": "same call under shard_map over a one-GPU mesh", "peer_value": mesh1, "target": None})
        else:
            print(f"{name}: one GPU here, so no sharded figure; the one-GPU figures follow", file=sys.stderr)
            out.append({"face": "calls", "case": case, "unit": "us", "ours": mesh1,
                        "peer": "same call on one GPU (jax.jit on device 0)", "peer_value": one, "target": None})
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
    result = rows(reps) if has_gpu else []
    if not has_gpu:
        print("no GPU backend in jax: nothing to measure", file=sys.stderr)
    print(table(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
