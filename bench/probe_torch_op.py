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
    native, ct._NATIVE = ct._NATIVE, None
    try:
        py_op = ct.custom_op(add, out="x", ntasks=N, name="cubridge_probe::add_python_answers")
    finally:
        ct._NATIVE = native
    rows = {
        "op(x, y), torch's Python functions asked": lambda: py_op(x, y),
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
    rows["x.is_cuda"] = lambda: x.is_cuda
    rows["x.requires_grad"] = lambda: x.requires_grad
    rows["x.is_contiguous()"] = lambda: x.is_contiguous()
    for name in ("_C._is_tracing", "_C._are_functorch_transforms_active", "jit.is_tracing"):
        f = ct._resolve(name)
        if f is not None:
            rows[f"candidate {name}"] = f[0]
    # The same op rebuilt with pieces of the direct call taken away, to weigh each piece.
    saved = {k: getattr(ct, k) for k in ("_function_modes", "_dispatch_modes", "_transforms", "_tracing", "_profiling")}
    try:
        ct._function_modes = ct._dispatch_modes = ct._profiling = bool  # cheap builtins: False, None
        ct._transforms = ct._tracing = type(None)
        unguarded = ct.Op(op.overload, inner, True)
    finally:
        for k, v in saved.items():
            setattr(ct, k, v)
    rows["op without the five torch queries: op._call"] = lambda: unguarded._call(x, y)
    import copy
    loose = copy.copy(inner)
    loose.contiguous = ()
    unchecked = ct.Op(op.overload, loose, True)
    rows["op without is_contiguous: op._call"] = lambda: unchecked._call(x, y)
    # _core._DirectOp rebuilt from the op's own arguments with one piece taken away at a time.
    made = {}
    real = _core._DirectOp

    def capture(**kwargs):
        made.update(kwargs)
        return real(**kwargs)

    _core._DirectOp = capture
    try:
        ct.Op(op.overload, inner, True)
    finally:
        _core._DirectOp = real
    variants = {
        "no guards": dict(falsy_guards=[], none_guards=[]),
        "no tensor checks": dict(tensors=[], contiguous=[]),
        "no guards, no tensor checks": dict(falsy_guards=[], none_guards=[], tensors=[], contiguous=[]),
        "the loaded Kernel": dict(kernel=kernel, kernels=None, signature=None, kernel_for=None),
        "bare: no guards, no checks, the loaded Kernel": dict(falsy_guards=[], none_guards=[], tensors=[],
                                                              contiguous=[], kernel=kernel, kernels=None,
                                                              signature=None, kernel_for=None),
    }
    for name, change in variants.items():
        rows[f"_DirectOp, {name}"] = (lambda d: lambda: d(x, y))(real(**{**made, **change}))
    rows["direct with contiguous_format"] = lambda: kernel.forall(N, torch._C._cuda_getCurrentRawStream(index) or 1)(
        x, y, torch.empty_like(x, memory_format=torch.contiguous_format))
    launch = kernel.forall(N, stream)
    rows["a made forall launch(x, y, out)"] = lambda: launch(x, y, out)
    for fn in rows.values():
        fn()
    for name, (median, least) in interleaved_us(rows, 3000, 21, torch.cuda.synchronize).items():
        print(f"{median:8.3f} us (min {least:7.3f})  {name}", flush=True)


if __name__ == "__main__":
    main()
