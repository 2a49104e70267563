"""Step 4: the linked kernels as an XLA custom call, run inside ``jax.jit`` and checked against NumPy.

The target is a classic GPU custom call (``void(CUstream, void** buffers, const char* opaque, size_t
opaque_len, XlaCustomCallStatus*)``, API version 2) written in Python through ctypes and served by
cubridge's typed-FFI adapter (cubridge.xla.register). XLA hands it its stream and bare buffer pointers;
it launches the cubridge kernel on that stream. It is not command-buffer compatible (it takes the GIL).
"""
from __future__ import annotations

import ctypes
import os

from .functions import FUNCTIONS
from .gpu_run import TOLERANCE, compare, demo_inputs
from .report import Report, median_ms, optional_import, seconds
from .transform import BLOCK, KERNEL_SIGNATURE, kernel_name

TARGET = "cubridge_demo_transform"


class Status(ctypes.Structure):
    """XlaCustomCallStatus as include/cubridge/c/xla_custom_call.h lays it out (version 1)."""


Status._fields_ = [("magic", ctypes.c_uint64), ("version", ctypes.c_uint32), ("failed", ctypes.c_uint32),
                   ("store_message", ctypes.CFUNCTYPE(None, ctypes.POINTER(Status), ctypes.c_char_p,
                                                      ctypes.c_size_t)),
                   ("owner_data", ctypes.c_void_p)]
STATUS_MAGIC = 0x63756272786C6131
GpuTargetV2 = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
                               ctypes.c_size_t, ctypes.POINTER(Status))


def set_failure(status, message: str) -> None:
    if status and status.contents.magic == STATUS_MAGIC:
        data = message.encode()
        status.contents.failed = 1
        if status.contents.store_message:
            status.contents.store_message(status, data, len(data))


class TransformTarget:
    """The custom call: opaque {"kernel": index into `names`, "n": elements}; buffers a, b, out."""

    def __init__(self, cubin: bytes, names: list[str]):
        import cubridge
        self.names = names
        # Loaded now, in the primary context XLA runs in: nothing is loaded while XLA runs the call.
        self.kernels = [cubridge.load_kernel(cubin, kernel_name(n), KERNEL_SIGNATURE) for n in names]
        self.grid_limit = 32 * cubridge.Device(0).multiprocessor_count
        self.function = GpuTargetV2(self.__call__)

    def __call__(self, stream, buffers, opaque, opaque_len, status) -> None:
        import cubridge
        import cubridge.xla as cx
        try:
            fields = cx.decode_opaque(ctypes.string_at(opaque, opaque_len))
            kernel, n = self.kernels[fields["kernel"]], fields["n"]
            a, b, out = (cubridge.from_cuda_array_interface(
                {"version": 3, "shape": (n,), "typestr": "<f4", "data": (buffers[i], i < 2), "strides": None,
                 "stream": None}) for i in range(3))
            on = cubridge.external_stream(stream) if stream else cubridge.legacy_default_stream()
            grid = max(1, min((n + BLOCK - 1) // BLOCK, self.grid_limit))
            kernel[grid, BLOCK, on](a, b, out, n)
        except Exception as e:  # becomes the Python exception of the jit call
            set_failure(status, f"{TARGET}: {type(e).__name__}: {e}")


_target: TransformTarget | None = None  # registered once per process; XLA keeps the function pointer


def register(cubin: bytes, names: list[str]) -> TransformTarget:
    global _target
    import cubridge.xla as cx
    if _target is None:
        _target = TransformTarget(cubin, names)
        cx.register(_target.function, TARGET, "cuda", api_version=2, command_buffer_compatible=False)
    return _target


def unavailable() -> str | None:
    """Why the XLA step cannot run here, or None."""
    jax, why = optional_import("jax")
    if jax is None:
        return why
    import cubridge.xla as cx
    if not cx.adapter_available():
        return "cubridge was built without XLA's FFI headers (jax was not importable when it was built)"
    try:
        jax.devices("gpu")
    except RuntimeError as e:
        return f"jax has no GPU backend here ({e})"
    return None


def run_step(report: Report, linked, n: int) -> None:
    report.step("4. the same kernels as an XLA custom call inside jax.jit")
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # share the GPU; set before jax loads
    why = unavailable()
    if why is not None:
        report.skip("the XLA custom call", why)
        return
    import jax
    import jax.numpy as jnp
    import numpy as np

    import cubridge.xla as cx
    names = list(FUNCTIONS)
    register(linked.cubin, names)
    host_a, host_b = demo_inputs(n)
    device = jax.devices("gpu")[0]
    a, b = jax.device_put(host_a, device), jax.device_put(host_b, device)
    out_spec = jax.ShapeDtypeStruct((n,), jnp.float32)
    peers = {"f": lambda x, y: x * y + 1.0,
             "g": lambda x, y: jnp.where(x > y, jnp.sqrt(jnp.maximum(x - y, 0)) + jnp.exp(-y),
                                         jnp.where(x < 0, jnp.sin(x) * y, jnp.log1p(jnp.abs(x)) - y))}
    for index, name in enumerate(names):
        call = jax.jit(lambda x, y, k=index: cx.custom_call(TARGET, out_spec, x, y, opaque={"kernel": k, "n": n}))
        first, first_s = seconds(lambda: jax.block_until_ready(call(a, b)))
        got = np.asarray(first)
        max_diff = compare(f"{kernel_name(name)} through XLA", got, FUNCTIONS[name][1](host_a, host_b),
                           *TOLERANCE[name])
        ms = median_ms(lambda: jax.block_until_ready(call(a, b)))
        peer = jax.jit(peers[name])
        jax.block_until_ready(peer(a, b))
        peer_ms = median_ms(lambda: jax.block_until_ready(peer(a, b)))
        report.line(f"jit({kernel_name(name)} as {TARGET}): matches NumPy (max abs difference {max_diff:.3g}); "
                    f"first call (trace, compile, run) {1e3 * first_s:.1f} ms, then {ms:.3f} ms per call")
        report.time(f"jax.jit custom call {name}", ms, "jnp expression under jit", peer_ms)
