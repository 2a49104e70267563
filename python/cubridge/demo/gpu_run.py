"""Step 3: the linked kernels run on CuPy and PyTorch arrays taken through the CUDA Array Interface,
the output allocated by the installed memory manager, on a non-default stream, checked against NumPy.

Each memory manager runs in its own process (``python -m cubridge.demo.gpu_run MANAGER CUBIN N``): a
manager applies to contexts created after ``set_memory_manager``, and the only way to a new context
in a live process is ``cubridge.close()``, which resets the device's primary context under CuPy and
PyTorch too (their pools and loaded kernels would dangle). A fresh process gets a fresh context.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile

from .functions import FUNCTIONS, cpp_definition
from .report import CheckFailed, Report, optional_import
from .transform import BLOCK, KERNEL_SIGNATURE, kernel_name

MANAGERS = {
    "default": "the default manager (deferred frees)",
    "async": "the stream-ordered pool (cuMemAllocAsync)",
    "cupy": "CuPy's memory pool as a Python plugin (cubridge.interop.cupy)",
}
REPEATS = 20


def demo_inputs(n: int):
    """a in [-4, 4), b in [-2.4, 2.4], both exact in float32, so are their products: f's fused
    multiply-add on the GPU and NumPy's multiply-then-add agree bit for bit."""
    import numpy as np
    i = np.arange(n, dtype=np.int64)
    a = (((i % 1024) - 512) / 128).astype(np.float32)
    b = (((i % 77) - 38) / 16).astype(np.float32)
    return a, b


def compare(what: str, got, want, rtol: float, atol: float) -> float:
    """Max abs difference of got and want; CheckFailed naming the first element outside tolerance."""
    import numpy as np
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    bad = ~(diff <= atol + rtol * np.abs(want.astype(np.float64)))
    if bad.any():
        i = int(np.argmax(bad))
        raise CheckFailed(f"{what}: out[{i}] = {float(got[i])!r}, NumPy says {float(want[i])!r} ({int(bad.sum())} of "
                          f"{want.size} elements differ by more than rtol={rtol}, atol={atol})")
    return float(diff.max()) if diff.size else 0.0


TOLERANCE = {"f": (1e-6, 0.0), "g": (1e-5, 1e-5)}  # g: libdevice vs NumPy sqrt/exp/sin/log1p, in float32


# ------------------------------------------------------------------ the parent: one child per manager

def run_step(report: Report, linked, n: int) -> None:
    report.step(f"3. run the kernels on {n} floats: CuPy and PyTorch inputs through the CUDA Array "
                "Interface, output from the memory manager, on a non-default stream")
    for peer in ("cupy", "torch"):
        if importlib.util.find_spec(peer) is None:
            report.skip(f"{peer} inputs", f"{peer} is not importable; that input is made by cubridge.to_device")
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "transform.cubin")
        with open(cubin, "wb") as fh:
            fh.write(linked.cubin)
        for manager, what in MANAGERS.items():
            if manager == "cupy" and importlib.util.find_spec("cupy") is None:
                report.skip("the CuPy-pool manager run", "cupy is not importable")
                continue
            result = run_child(manager, cubin, n)
            report.line(f"{what}: served by {result['manager']!r}, "
                        f"{result['bytes_in_use']} bytes in use; inputs: {', '.join(result['inputs'])}")
            for name in FUNCTIONS:
                r = result["functions"][name]
                report.line(f"  {kernel_name(name)}: matches NumPy (max abs difference {r['max_diff']:.3g}), "
                            f"{r['ms']:.3f} ms")
                report.time(f"run {name}, {manager} manager", r["ms"], result["peer"], r.get("peer_ms"))


def run_child(manager: str, cubin: str, n: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "CUBRIDGE_MEMORY_MANAGER"}  # the demo chooses
    proc = subprocess.run([sys.executable, "-m", "cubridge.demo.gpu_run", manager, cubin, str(n)],
                          capture_output=True, text=True, env=env, timeout=300)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or ["(no output)"]
        raise CheckFailed(f"the run with the {manager!r} manager failed (exit code {proc.returncode}): "
                          + "\n".join(lines[-12:]))
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ the child: one manager, both kernels

def install_manager(manager: str) -> str:
    """Installs `manager` for the contexts to come; returns how memory_stats() will name it."""
    import cubridge
    if manager == "cupy":
        from ..interop.cupy import CuPyMemoryManager
        cubridge.set_memory_manager(CuPyMemoryManager)
        return f"python:{CuPyMemoryManager.__module__}.{CuPyMemoryManager.__qualname__}"
    cubridge.set_memory_manager(manager)
    return manager


def gpu_inputs(host_a, host_b, inputs: list):
    """a as a CuPy array and b as a PyTorch tensor where they are importable, else cubridge arrays."""
    import cubridge
    cupy, _ = optional_import("cupy")
    torch, _ = optional_import("torch")
    if cupy is not None:
        a = cupy.asarray(host_a)
        inputs.append("a from CuPy")
    else:
        a = cubridge.to_device(host_a)
        inputs.append("a from cubridge.to_device (no CuPy)")
    if torch is not None:
        b = torch.from_numpy(host_b).to("cuda")
        inputs.append("b from PyTorch")
    else:
        b = cubridge.to_device(host_b)
        inputs.append("b from cubridge.to_device (no PyTorch)")
    return a, b


def event_ms(work, stream) -> float:
    """Median CUDA-event milliseconds of work() on `stream` over REPEATS runs, after one warm-up."""
    import statistics

    import cubridge
    work()
    start, stop = cubridge.event(timing=True), cubridge.event(timing=True)
    samples = []
    for _ in range(REPEATS):
        start.record(stream)
        work()
        stop.record(stream)
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    return statistics.median(samples)


def cupy_peer_ms(name: str, va, vb, n: int, stream) -> float | None:
    """The same expression as a CuPy ElementwiseKernel on the same arrays and stream."""
    cupy, _ = optional_import("cupy")
    if cupy is None:
        return None
    kernel = cupy.ElementwiseKernel("float32 x, float32 y", "float32 z", f"z = {name}(x, y)", f"demo_{name}",
                                    preamble=cpp_definition(name))
    with cupy.cuda.ExternalStream(stream.handle):
        x, y = cupy.asarray(va), cupy.asarray(vb)
        z = cupy.empty(n, dtype=cupy.float32)
        return event_ms(lambda: kernel(x, y, z), stream)


def child(manager: str, cubin_path: str, n: int) -> dict:
    import numpy as np

    import cubridge
    expected_manager = install_manager(manager)
    with open(cubin_path, "rb") as fh:
        cubin = fh.read()
    host_a, host_b = demo_inputs(n)
    inputs: list[str] = []
    a, b = gpu_inputs(host_a, host_b, inputs)
    stream = cubridge.stream()
    va, vb = cubridge.as_cuda_array(a), cubridge.as_cuda_array(b)
    grid = min((n + BLOCK - 1) // BLOCK, 32 * cubridge.Device(0).multiprocessor_count)
    outputs, results = [], {}
    for name, (_, reference) in FUNCTIONS.items():
        kernel = cubridge.load_kernel(cubin, kernel_name(name), KERNEL_SIGNATURE)
        out = cubridge.device_array(n, np.float32, stream=stream)
        outputs.append(out)
        ms = event_ms(lambda: kernel[grid, BLOCK, stream](va, vb, out, n), stream)
        got = out.copy_to_host(stream=stream)
        max_diff = compare(f"{kernel_name(name)} with the {manager!r} manager", got,
                           reference(host_a, host_b), *TOLERANCE[name])
        results[name] = {"ms": ms, "max_diff": max_diff, "peer_ms": cupy_peer_ms(name, va, vb, n, stream)}
    device = cubridge.memory_stats()["devices"][0]
    if device["manager"] != expected_manager:
        raise CheckFailed(f"the outputs came from the manager {device['manager']!r}, not {expected_manager!r}")
    needed = sum(o.nbytes for o in outputs)
    if device["bytes_in_use"] < needed:
        raise CheckFailed(f"the {manager!r} manager reports {device['bytes_in_use']} bytes in use; the two "
                          f"outputs alone take {needed}")
    peer = "CuPy ElementwiseKernel" if optional_import("cupy")[0] is not None else "CuPy not importable"
    return {"manager": device["manager"], "bytes_in_use": device["bytes_in_use"], "inputs": inputs,
            "functions": results, "peer": peer}


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[0] not in MANAGERS or not argv[2].isdigit():
        print(f"usage: python -m cubridge.demo.gpu_run {{{','.join(MANAGERS)}}} CUBIN N; got {argv}",
              file=sys.stderr)
        return 2
    try:
        result = child(argv[0], argv[1], int(argv[2]))
    except CheckFailed as e:
        print(f"check failed: {e}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
