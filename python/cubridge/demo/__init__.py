"""`cubridge demo`: the main job, end to end (DESIGN.md, "Data flow of the main job").

1. f(x, y) = x * y + 1 and g (branches, math calls), Python, compiled to LTO-IR and PTX (C ABI);
2. a CUDA C++ transform kernel per function (NVRTC → LTO-IR), linked with them by nvJitLink (LTO):
   the functions are inlined, which the linked PTX shows;
3. on a GPU: the kernels run on CuPy and PyTorch arrays through the CUDA Array Interface, output from
   the default manager, the async pool and CuPy's pool as a plugin, on a non-default stream;
4. on a GPU with JAX: the same kernels as an XLA custom call inside jax.jit;
5. a table of each step's time beside a peer's time for the same step.
Every GPU result is checked against NumPy. Without a GPU, steps 1-2 run and 3-4 say why they were
skipped (exit code 0); a failed check exits 1 with what differed.
"""
from __future__ import annotations

import argparse
import sys

from .report import CheckFailed, Report

DEFAULT_CC = (9, 0)  # the target without a GPU: sm_90 (H100), the machine the GPU suite runs on


def gpu_unavailable() -> str | None:
    """Why no GPU step can run here, or None."""
    import cubridge
    try:
        if cubridge.device_count() == 0:
            return "the CUDA driver reports no device"
    except cubridge.CudaError as e:
        return str(e)
    return None


def target_cc(no_gpu: str | None) -> tuple[int, int]:
    import cubridge
    return DEFAULT_CC if no_gpu else tuple(cubridge.Device(0).compute_capability)


def run(report: Report, size: int) -> None:
    from . import functions, gpu_run, transform, xla_call
    no_gpu = gpu_unavailable()
    cc = target_cc(no_gpu)
    compiled = functions.compile_step(report, cc)
    linked = transform.link_step(report, cc, compiled)
    if no_gpu:
        report.step(f"3-4. GPU steps, skipped: no GPU: {no_gpu}")  # the reason once, for both steps
        report.skip("running the kernels (step 3)")
        report.skip("the XLA custom call under jax.jit (step 4)")
        return
    gpu_run.run_step(report, linked, size)
    xla_call.run_step(report, linked, size)


def main(args: argparse.Namespace) -> int:
    size = getattr(args, "size", 1 << 24)
    if size < 1:
        print(f"cubridge demo: --size {size} is not a positive number of elements", file=sys.stderr)
        return 2
    report = Report()
    try:
        run(report, size)
    except CheckFailed as e:
        report.table()
        print(f"\ncubridge demo: FAILED: {e}", file=sys.stderr)
        return 1
    report.table()
    print("\ncubridge demo: every check passed" + (f" ({len(report.skipped)} skipped)" if report.skipped else ""))
    return 0
