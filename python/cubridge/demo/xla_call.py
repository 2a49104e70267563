"""Step 4: the linked kernels as an XLA custom call (cubridge.jax.kernel_call), run inside ``jax.jit``
on XLA's stream and checked against NumPy; the peer is the same expression written in jax.numpy."""
from __future__ import annotations

import os

from .functions import FUNCTIONS
from .gpu_run import TOLERANCE, compare, demo_inputs
from .report import Report, median_ms, optional_import, seconds
from .transform import BLOCK, KERNEL_SIGNATURE, kernel_name


def unavailable() -> str | None:
    """Why the XLA step cannot run here, or None."""
    jax, why = optional_import("jax")
    if jax is None:
        return why
    try:
        jax.devices("gpu")
    except RuntimeError as e:
        return f"jax has no GPU backend here ({e})"
    return None


def jnp_twins():
    import jax.numpy as jnp
    return {"f": lambda x, y: x * y + 1.0,
            "g": lambda x, y: jnp.where(x > y, jnp.sqrt(jnp.maximum(x - y, 0)) + jnp.exp(-y),
                                        jnp.where(x < 0, jnp.sin(x) * y, jnp.log1p(jnp.abs(x)) - y))}


def run_step(report: Report, linked, n: int) -> None:
    report.step("4. the same kernels as an XLA custom call (cubridge.jax.kernel_call) inside jax.jit")
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # share the GPU; read when jax starts
    why = unavailable()
    if why is not None:
        report.skip("the XLA custom call", why)
        return
    import jax
    import jax.numpy as jnp
    import numpy as np

    import cubridge
    import cubridge.jax as cubridge_jax
    host_a, host_b = demo_inputs(n)
    device = jax.devices("gpu")[0]
    a, b = jax.device_put(host_a, device), jax.device_put(host_b, device)
    grid_limit = 32 * cubridge.Device(0).multiprocessor_count
    peers = jnp_twins()
    for name, (_, reference) in FUNCTIONS.items():
        kernel = cubridge.load_kernel(linked.cubin, kernel_name(name), KERNEL_SIGNATURE)
        call = cubridge_jax.kernel_call(kernel, jax.ShapeDtypeStruct((n,), jnp.float32),
                                        griddim=lambda x, y: min((x[0] + BLOCK - 1) // BLOCK, grid_limit),
                                        blockdim=BLOCK)
        jitted = jax.jit(lambda x, y, call=call: call(x, y, x.size))
        first, first_s = seconds(lambda: jax.block_until_ready(jitted(a, b)))
        max_diff = compare(f"jit({kernel_name(name)}) through kernel_call", np.asarray(first),
                           reference(host_a, host_b), *TOLERANCE[name])
        ms = median_ms(lambda: jax.block_until_ready(jitted(a, b)))
        peer = jax.jit(peers[name])
        jax.block_until_ready(peer(a, b))
        peer_ms = median_ms(lambda: jax.block_until_ready(peer(a, b)))
        report.line(f"jit({kernel_name(name)}): matches NumPy (max abs difference {max_diff:.3g}); first call "
                    f"(trace, compile, run) {1e3 * first_s:.1f} ms, then {ms:.3f} ms per call")
        report.time(f"jax.jit kernel_call {name}", ms, "jnp expression under jit", peer_ms)
