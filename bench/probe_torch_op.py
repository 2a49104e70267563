"""Where a cubridge.torch op's eager call spends its host time (issue 26): each piece of Op.__call__ and
_Op.launch timed alone beside the whole call and the direct launch.

    python bench/probe_torch_op.py
"""
from __future__ import annotations

import os
import sys

import torch

import cubridge
import cubridge.torch as ct
from cubridge import _core

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_torch_ops import N, add  # noqa: E402  (the same kernel and size as the bench)
from interleaved import interleaved_us  # noqa: E402


def main() -> None:
    x, y = torch.randn(N, device="cuda"), torch.randn(N, device="cuda")
    out = torch.empty_like(x)
    op = ct.custom_op(add, out="x", ntasks=N, name="cubridge_probe::add")
    inner = op._op
    kernel = add.specialize(x, y, x)
    index = torch.cuda.current_device()
    stream = torch._C._cuda_getCurrentRawStream(index) or 1
    compiled = add.compile("void(const float32[::1], const float32[::1], float32[::1])")
    loaded = cubridge.load_kernel(compiled.ptx, compiled.entry_name,
                                  "void(const float32[::1], const float32[::1], float32[::1])")
    lop = ct.custom_op(loaded, out="arg0", ntasks=N, name="cubridge_probe::loaded_add")
    rows = {
        "loaded-kernel op(x, y)": lambda: lop(x, y),
        "loaded-kernel op._call(x, y)": lambda: lop._call(x, y),
        "op(x, y)": lambda: op(x, y),
        "op._op.launch(x, y)": lambda: inner.launch(x, y),
        "op._call(x, y)": lambda: op._call(x, y),
        "direct: empty_like + Kernel.forall": lambda: kernel.forall(N, torch._C._cuda_getCurrentRawStream(index) or 1)(x, y, torch.empty_like(x)),
        "Kernel.forall(N, s)(x, y, out)": lambda: kernel.forall(N, stream)(x, y, out),
        "dispatcher.forall(N, s)(x, y, out)": lambda: add.forall(N, stream)(x, y, out),
        "_core._lazy_forall(add, N, s, 0, args)": lambda: _core._lazy_forall(add, N, stream, 0, (x, y, out)),
        "torch.empty_like(x)": lambda: torch.empty_like(x),
        "empty_like(x, contiguous_format)": lambda: torch.empty_like(x, memory_format=torch.contiguous_format),
        "torch.empty(N, dtype, device)": lambda: torch.empty((N,), dtype=torch.float32, device=index),
        "x.new_empty(x.shape)": lambda: x.new_empty(x.shape),
        "_cuda_getCurrentRawStream": lambda: torch._C._cuda_getCurrentRawStream(index),
        "_cuda_getDevice": lambda: torch._C._cuda_getDevice(),
        "x.get_device()": lambda: x.get_device(),
        "torch.compiler.is_compiling()": lambda: torch.compiler.is_compiling(),
        "results_for": lambda: inner.results_for((x, y), index),
        "lambda: None": lambda: None,
        "op.overload(x, y)": lambda: op.overload(x, y),
    }
    print("direct:", op._direct, "asked:", ct._ASKED is not None, flush=True)
    if ct._ASKED is not None:
        for f in ct._ASKED:
            rows[f"check {f.__name__}"] = f
    rows["x.is_cuda, requires_grad, type"] = lambda: (type(x) is torch.Tensor, x.is_cuda, x.requires_grad)
    for fn in rows.values():
        fn()
    for name, (median, least) in interleaved_us(rows, 3000, 21, torch.cuda.synchronize).items():
        print(f"{median:8.3f} us (min {least:7.3f})  {name}", flush=True)


if __name__ == "__main__":
    main()
