"""The Numba bridge: ``NUMBA_CUDA_MEMORY_MANAGER=cubridge.numba_emm`` makes numba-cuda allocate device
memory through cubridge's current memory manager (host memory stays with Numba's host-only base)."""
from __future__ import annotations

import contextlib
import ctypes

from numba.cuda.cudadrv import driver as _numba_driver
try:
    from numba.cuda import GetIpcHandleMixin, HostOnlyCUDAMemoryManager, MemoryInfo, MemoryPointer
except ImportError:  # versions that stopped re-exporting them from numba.cuda
    from numba.cuda.cudadrv.driver import GetIpcHandleMixin, HostOnlyCUDAMemoryManager, MemoryInfo, MemoryPointer

import cubridge


def _device_pointer(address: int):
    # Numba's own memalloc wraps pointers in its binding's CUdeviceptr, or in ctypes on old versions.
    if getattr(_numba_driver, "USE_NV_BINDING", True):
        binding = getattr(_numba_driver, "binding", None)
        if binding is None:
            from cuda.bindings import driver as binding
        return binding.CUdeviceptr(address)
    return ctypes.c_uint64(address)


class CubridgeNumbaManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """Device memory from ``cubridge.memalloc`` in the same (primary) context Numba uses."""

    def initialize(self):
        super().initialize()

    def memalloc(self, size):
        buf = cubridge.memalloc(size)
        # The finalizer holds the cubridge pointer: Numba's object dying gives the memory back.
        return MemoryPointer(self.context, _device_pointer(buf.device_pointer), size, finalizer=buf.free)

    def get_memory_info(self):
        info = cubridge.get_memory_info()
        return MemoryInfo(free=info.free, total=info.total)

    def reset(self):
        super().reset()
        try:
            cubridge.memory_reset()
        except cubridge.CudaError:
            pass  # Numba resets contexts that cubridge may already have closed

    @contextlib.contextmanager
    def defer_cleanup(self):
        with super().defer_cleanup(), cubridge.defer_cleanup():
            yield

    @property
    def interface_version(self):
        return 1


_numba_memory_manager = CubridgeNumbaManager
