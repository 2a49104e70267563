"""CuPy's memory pool as a cubridge memory manager."""
from __future__ import annotations

import contextlib

import cupy

from .._memory import GetIpcHandleMixin, HostOnlyCUDAMemoryManager, MemoryInfo, MemoryPointer


class CuPyMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """Allocates from ``cupy.get_default_memory_pool()`` on the context's device."""

    def initialize(self):
        self._pool = cupy.get_default_memory_pool()

    def _device(self):
        return self.context.device.id if self.context is not None else 0

    def memalloc(self, size, stream=None):
        with cupy.cuda.Device(self._device()):
            if stream is not None and stream != 1:
                with cupy.cuda.ExternalStream(stream):
                    mem = self._pool.malloc(size)
            else:
                mem = self._pool.malloc(size)
        # The CuPy MemoryPointer is the owner: the block goes back to CuPy's pool when ours dies.
        return MemoryPointer(self.context, mem.ptr, size, owner=mem)

    def get_memory_info(self):
        # The manager's device, not whichever device is current in the calling thread.
        with cupy.cuda.Device(self._device()):
            free, total = cupy.cuda.runtime.memGetInfo()
        return MemoryInfo(free + self._pool.free_bytes(), total)

    def reset(self):
        super().reset()
        self._pool.free_all_blocks()

    @contextlib.contextmanager
    def defer_cleanup(self):
        with super().defer_cleanup():
            yield


_cubridge_memory_manager = CuPyMemoryManager
