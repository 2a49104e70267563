"""Host-side cost of a kernel launch from Python, on a machine without a GPU: the driver is
bench/host_driver/host_libcuda.c (CUBRIDGE_LIBCUDA), whose cuLaunchKernel returns at once, so what is
timed is cubridge and Python alone, per argument kind. The kernel is issue 17's
`k(float* a, float* b, float* c, int64 n)`, loaded with C-style pointer parameters and with Numba-ABI
arrays. Three stand-ins for the peers (which need a GPU): `CupyLike` rebuilds its CAI dict at every access
as CuPy does (the attribute route, taken only for the type CuPy's module names); `fake_cupy` installs
modules named like CuPy's whose `ndarray` has CuPy's attributes (`shape`/`strides` properties building fresh
tuples, `data` with an int `ptr` property, a NumPy `dtype`) and whose current-stream state is what CuPy's
export reads, so the import takes its CuPy route; `host_torchlike` (host_torchlike.c, built by build.sh)
publishes a DLPack exchange table as torch.Tensor does. These are not GPU figures (bench_kernels.py on the GPU machine gives those); they show where the host time goes
and whether a change moved it. Run through bench/host_driver/profile.sh.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import types

import numpy as np

import cubridge

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from bench_memory import pair_us  # noqa: E402  (one timing loop for every host bench)

PTX = """.version 7.0
.target sm_50
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 n) { ret; }
"""
POINTERS = "void(float32*, float32*, float32*, int64)"
ARRAYS = "void(float32[::1], float32[::1], float32[::1], int64)"


class CupyLike:
    """A foreign producer whose CAI dict is a property built at every access, with CuPy's keys."""

    def __init__(self, base):
        self._base = base  # keeps the memory alive
        self._ptr = base.ptr

    @property
    def __cuda_array_interface__(self):
        return {"shape": (32,), "typestr": "<f4", "descr": [("", "<f4")], "stream": 1,
                "version": 3, "strides": None, "data": (self._ptr, False)}


class _Stream:
    def __init__(self, ptr):
        self._ptr = ptr

    @property
    def ptr(self):
        return self._ptr


class _MemoryPointer:
    def __init__(self, ptr):
        self._ptr = ptr

    @property
    def ptr(self):
        return self._ptr


def fake_cupy():
    """Installs modules named like CuPy's (cupy, cupy._util, cupy.cuda.stream, cupy_backends.cuda.stream)
    and returns their `ndarray` type: what cubridge's CuPy route reads, with the same kinds of cost. Only
    for this bench process (cubridge resolves CuPy's names once, when it first sees `cupy` imported)."""
    class ndarray:  # noqa: N801  (CuPy's name: the route matches the type by identity, not by name)
        def __init__(self, base, n):
            self._base = base
            self._shape, self._strides = [n], [4]
            self._dtype = np.dtype("float32")
            self._data = _MemoryPointer(base.ptr)

        @property
        def shape(self):
            return tuple(self._shape)

        @property
        def strides(self):
            return tuple(self._strides)

        @property
        def dtype(self):
            return self._dtype

        @property
        def data(self):
            return self._data

        @property
        def __cuda_array_interface__(self):
            return {"shape": self.shape, "typestr": "<f4", "descr": [("", "<f4")], "stream": 1,
                    "version": 3, "strides": None, "data": (self._data.ptr, False)}

    current = _Stream(0)
    mods = {name: types.ModuleType(name) for name in
            ("cupy", "cupy._util", "cupy.cuda", "cupy.cuda.stream", "cupy_backends", "cupy_backends.cuda",
             "cupy_backends.cuda.stream")}
    mods["cupy"].ndarray = ndarray
    mods["cupy"].cuda = mods["cupy.cuda"]
    mods["cupy"]._util = mods["cupy._util"]
    mods["cupy._util"].CUDA_ARRAY_INTERFACE_EXPORT_VERSION = 3
    mods["cupy.cuda"].stream = mods["cupy.cuda.stream"]
    mods["cupy.cuda.stream"].get_current_stream = lambda: current
    mods["cupy_backends"].cuda = mods["cupy_backends.cuda"]
    mods["cupy_backends.cuda"].stream = mods["cupy_backends.cuda.stream"]
    mods["cupy_backends.cuda.stream"].get_default_stream_ptr = lambda: 1  # CAI's legacy default stream
    sys.modules.update(mods)
    return ndarray


def torchlike():
    """The host_torchlike extension module built by build.sh (HOST_TORCHLIKE_DIR), or None."""
    where = os.environ.get("HOST_TORCHLIKE_DIR")
    if not where:
        return None
    sys.path.insert(0, where)
    import host_torchlike  # noqa: PLC0415  (built next to the host driver, found only through its folder)
    return host_torchlike


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--loop", default="", help="only launch on this argument kind N times (for perf record)")
    ap.add_argument("-n", type=int, default=2_000_000)
    args = ap.parse_args()
    bufs = [cubridge.device_array(32, "f4") for _ in range(3)]
    kinds = {"cubridge arrays": tuple(bufs), "raw ints": tuple(b.ptr for b in bufs),
             "CAI objects (CuPy-like)": tuple(CupyLike(b) for b in bufs),
             "CuPy stand-in (attribute route)": tuple(fake_cupy()(b, 32) for b in bufs)}
    torch = torchlike()
    if torch is not None:
        kinds["PyTorch stand-in (exchange table)"] = tuple(torch.Tensor(b.ptr, 32) for b in bufs)
    k_ptr = cubridge.load_kernel(PTX, "k", POINTERS)[1, 32]
    k_arr = cubridge.load_kernel(PTX, "k", ARRAYS)[1, 32]
    if args.loop:
        a, b, c = kinds[args.loop]
        for _ in range(args.n):
            k_ptr(a, b, c, 32)
        return 0
    print("| host path (host driver: the launch itself is free) | float32* params, µs | float32[::1] params, µs |")
    print("| --- | ---: | ---: |")
    for name, (a, b, c) in kinds.items():
        ptr_us = pair_us(lambda: k_ptr(a, b, c, 32), 9, 50_000)
        arr_us = pair_us(lambda: k_arr(a, b, c, 32), 9, 50_000) if name != "raw ints" else float("nan")
        print(f"| launch on {name} | {ptr_us:.3f} | {arr_us:.3f} |")
    desc = CupyLike(bufs[0]).__cuda_array_interface__
    for name in ("CuPy stand-in (attribute route)", "PyTorch stand-in (exchange table)"):
        if name in kinds:
            obj = kinds[name][0]
            print(f"| as_cuda_array({name}) | {pair_us(lambda: cubridge.as_cuda_array(obj), 9, 50_000):.3f} | |")
            print(f"| C API import of {name} (ns, timed in C++) | {cubridge._core._c_import_ns(obj, 200_000):.1f} | |")
    print(f"| as_cuda_array(CAI object) | {pair_us(lambda: cubridge.as_cuda_array(kinds['CAI objects (CuPy-like)'][0]), 9, 50_000):.3f} | |")
    print(f"| from_cuda_array_interface(prebuilt dict) | {pair_us(lambda: cubridge.from_cuda_array_interface(desc), 9, 50_000):.3f} | |")
    print(f"| CAI export | {pair_us(lambda: bufs[0].__cuda_array_interface__, 9, 50_000):.3f} | |")
    print(f"| C API import of a cubridge array (ns, timed in C++) | {cubridge._core._c_import_ns(bufs[0], 200_000):.1f} | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
