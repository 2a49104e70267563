"""The link example: a CUDA C++ transform kernel, compiled at run time by NVRTC to LTO-IR, calls
``f(x, y) = x * y + 1`` supplied as LTO-IR from another compiler (here NVVM IR written by hand and
compiled by libNVVM; the front end's ``cubridge.compile(..., abi='c', output='ltoir')`` produces the same
kind of input). nvJitLink links both with LTO, so f is inlined into the kernel.

    python examples/link/link_example.py [--n N]

Without a GPU it builds and links, prints the kernel's PTX (no call left) and says the GPU part was
skipped and why. With one (and CuPy) it runs the kernel over N floats, checks the result, and times it
against the same kernel written fully in CUDA C++ and against a device-to-device copy.
"""
from __future__ import annotations

import argparse
import statistics
import sys

import cubridge
from cubridge.demo.transform import entry_body, transform_source  # shared with `cubridge demo`

# f with the C ABI, as NVVM IR 2.0 (LLVM 7 syntax, the datalayout libNVVM requires).
F_NVVM_IR = """target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define float @f(float %x, float %y) {
  %m = fmul float %x, %y
  %r = fadd float %m, 1.0
  ret float %r
}
"""

# The CUDA C++ kernel (python/cubridge/demo/transform.cu: a grid-stride loop over float4s), shared with the
# demo and the C++ tests.
KERNEL_SOURCE = transform_source()


def transform_blocks(n: int) -> int:
    """Blocks of 256 threads for transform over n floats: one float4 per thread (transform.cu)."""
    return max(1, min(((n + 3) // 4 + 255) // 256, 1 << 30))


# The same kernel with f in CUDA C++: the reference the linked kernel must match.
REFERENCE_SOURCE = 'extern "C" __device__ float f(float x, float y) { return x * y + 1.0f; }\n' + KERNEL_SOURCE


def python_f(x, y):
    return x * y + 1.0


def python_f_ltoir(arch) -> bytes:
    """f from Python source through the front end (C ABI keeps the name f)."""
    code, _ = cubridge.compile(python_f, "float32(float32, float32)", abi="c", abi_info={"abi_name": "f"},
                               output="ltoir", cc=arch)
    return code


def f_ltoir(arch) -> bytes:
    ir = F_NVVM_IR + cubridge._core._nvvm_ir_version_metadata()
    return cubridge.nvvm_compile(ir, arch, output="ltoir")


def kernel_ltoir(arch) -> cubridge.NvrtcResult:
    return cubridge.nvrtc_compile(KERNEL_SOURCE, "transform.cu", arch, output="ltoir")


def linked_cubin(arch, f=None) -> bytes:
    """The example's cubin; ``f`` may be LTO-IR bytes from elsewhere (e.g. cubridge.compile)."""
    return cubridge.link([kernel_ltoir(arch), f if f is not None else f_ltoir(arch)], arch)


def linked_ptx(arch) -> str:
    return cubridge.link([kernel_ltoir(arch), f_ltoir(arch)], arch, output="ptx")


def reference_cubin(arch) -> bytes:
    return cubridge.nvrtc_compile(REFERENCE_SOURCE, "transform_ref.cu", arch, output="cubin").code


def gpu_reason() -> str | None:
    try:
        cubridge.device_count()
    except cubridge.CudaError as e:
        return str(e)
    try:
        import cupy  # noqa: F401
    except ImportError as e:
        return f"CuPy is needed to run the kernels here ({e})"
    return None


def load(cubin: bytes, tmpdir: str):
    """The kernel function of a cubin, through CuPy (which loads it with cuModuleLoad)."""
    import os

    import cupy as cp
    path = os.path.join(tmpdir, f"m{abs(hash(cubin))}.cubin")
    with open(path, "wb") as fh:
        fh.write(cubin)
    return cp.RawModule(path=path).get_function("transform")


def launch(kernel, a, b, out):
    import numpy as np
    n = out.size
    kernel((transform_blocks(n),), (256,), (a, b, out, np.uint64(n)))


def measure(n: int, repeats: int = 31, f=None) -> dict:
    """Runs the linked and the reference kernel and a D2D copy over n floats, interleaved; medians in ms.
    ``f``: LTO-IR of f to link instead of the hand-written NVVM IR (e.g. from cubridge.compile)."""
    import tempfile

    import cupy as cp
    arch = tuple(cubridge.Device(0).compute_capability)
    with tempfile.TemporaryDirectory() as tmp:
        k_linked, k_ref = load(linked_cubin(arch, f), tmp), load(reference_cubin(arch), tmp)
    i = cp.arange(n, dtype=cp.int64)
    a = ((i % 1024) - 512).astype(cp.float32) * 0.5
    b = (i % 77).astype(cp.float32) * 0.25
    out = cp.empty_like(a)
    launch(k_linked, a, b, out)
    assert bool(cp.all(out == a * b + 1)), "the linked kernel computed a wrong result"
    start, stop = cp.cuda.Event(), cp.cuda.Event()

    def timed(work) -> float:
        start.record()
        work()
        stop.record()
        stop.synchronize()
        return cp.cuda.get_elapsed_time(start, stop)

    runs = {
        "linked": lambda: launch(k_linked, a, b, out),
        "reference": lambda: launch(k_ref, a, b, out),
        "copy": lambda: out.data.copy_from_device_async(a.data, a.nbytes),
    }
    times = {k: [] for k in runs}
    for r in range(repeats + 3):
        for name, work in runs.items():
            t = timed(work)
            if r >= 3:
                times[name].append(t)
    med = {k: statistics.median(v) for k, v in times.items()}
    med["kernel_gbs"] = 3 * 4 * n / (med["linked"] * 1e6)
    med["copy_gbs"] = 2 * 4 * n / (med["copy"] * 1e6)
    return med


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1 << 26, help="number of floats (default 64M)")
    p.add_argument("--python", action="store_true",
                   help="take f from the Python function below through cubridge.compile instead of NVVM IR")
    args = p.parse_args(argv)
    reason = gpu_reason()
    arch = (9, 0) if reason else tuple(cubridge.Device(0).compute_capability)
    f = python_f_ltoir(arch) if args.python else None
    body = entry_body(cubridge.link([kernel_ltoir(arch), f if f is not None else f_ltoir(arch)], arch,
                                    output="ptx"))
    print(f"linked PTX of the transform kernel for sm_{arch[0]}{arch[1]} (f inlined: {'call' not in body}):")
    print(body)
    cubin = linked_cubin(arch, f)
    print(f"linked cubin: {len(cubin)} bytes")
    if reason:
        print(f"GPU steps skipped: {reason}")
        return 0
    m = measure(args.n, f=f)
    print(f"{args.n} floats: linked {m['linked']:.4f} ms, CUDA C++ {m['reference']:.4f} ms "
          f"(ratio {m['linked'] / m['reference']:.4f}); kernel {m['kernel_gbs']:.0f} GB/s = "
          f"{100 * m['kernel_gbs'] / m['copy_gbs']:.1f}% of the device copy ({m['copy_gbs']:.0f} GB/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
