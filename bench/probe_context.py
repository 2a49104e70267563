"""What a launch costs in a program that imports nothing but cubridge (issue 22): there no CUDA runtime has made
the primary context current, so every cubridge call that needs it pushes and pops it. The same lazy launches
are timed with no context current and with device 0's primary context made current (ctypes, cuCtxSetCurrent),
batches in turn, beside the floor. Run it in a fresh process: importing CuPy, PyTorch or numba first would make
the context current for good.

    python bench/probe_context.py
"""
from __future__ import annotations

import ctypes
import os
import statistics
import sys
import time

import numpy as np

import cubridge

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hooks import bench_hooks  # noqa: E402


@cubridge.jit
def zero():
    pass


@cubridge.jit
def one(a):
    pass


@cubridge.jit
def four(a, b, c, d):
    pass


def main() -> None:
    cu = ctypes.CDLL("libcuda.so.1")
    current = ctypes.c_void_p()
    cu.cuCtxGetCurrent(ctypes.byref(current))
    print("current context at start:", hex(current.value or 0), flush=True)
    a = cubridge.to_device(np.zeros(256, dtype=np.float32))
    arrs = [cubridge.to_device(np.zeros(256, dtype=np.float32)) for _ in range(4)]
    primary = ctypes.c_void_p()
    device = ctypes.c_int()
    assert cu.cuDeviceGet(ctypes.byref(device), 0) == 0
    assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(primary), device) == 0
    cu.cuCtxGetCurrent(ctypes.byref(current))
    print("current context after cubridge's first calls:", hex(current.value or 0), flush=True)

    from bench_kernels import EMPTY_PTX
    hooks = bench_hooks()
    p = a.device_ctypes_pointer.value if hasattr(a, "device_ctypes_pointer") else a.__cuda_array_interface__["data"][0]
    ctx = cubridge.current_context()
    rows = {
        "zero[1, 32]()": lambda: zero[1, 32](),
        "one[1, 32](a)": lambda: one[1, 32](a),
        "four[1, 32](4 arrays)": lambda: four[1, 32](*arrs),
        "cubridge.current_context().synchronize()": lambda: ctx.synchronize(),
    }
    for fn in rows.values():
        fn()
    calls, batches = 4000, 15
    means = {(name, state): [] for name in rows for state in ("none current", "primary current")}
    floor = []
    for _ in range(batches):
        for name, fn in rows.items():
            for state, handle in (("none current", None), ("primary current", primary)):
                ctx.synchronize()
                assert cu.cuCtxSetCurrent(handle) == 0
                t = time.perf_counter()
                for _ in range(calls):
                    fn()
                means[(name, state)].append((time.perf_counter() - t) / calls * 1e6)
        assert cu.cuCtxSetCurrent(primary) == 0
        floor.append(hooks.bare_launch_ns(EMPTY_PTX, "k", [p, p, p, 256], calls) / 1e3)
    print(f"{statistics.median(floor):8.3f} us (min {min(floor):7.3f})  floor: bare cuLaunchKernel, C++ loop")
    for call, ns in hooks.driver_call_ns():
        print(f"{ns / 1e3:8.3f} us  {call} (C++ loop, primary current)")
    for (name, state), m in means.items():
        print(f"{statistics.median(m):8.3f} us (min {min(m):7.3f})  {name}  [{state}]", flush=True)


if __name__ == "__main__":
    main()
