"""RMM's current device resource as a cubridge memory manager (import fails cleanly without rmm)."""
from __future__ import annotations

import contextlib

import rmm

from .._memory import GetIpcHandleMixin, HostOnlyCUDAMemoryManager, MemoryInfo, MemoryPointer


class RMMMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """Allocates ``rmm.DeviceBuffer`` objects; the buffer is the pointer's owner."""

    def initialize(self):
        pass

    def memalloc(self, size, stream=None):
        if stream is None or stream == 1:
            buf = rmm.DeviceBuffer(size=size)
        else:
            from rmm.pylibrmm.stream import Stream  # rmm >= 24.12 layout
            from .._driver import external_stream  # has __cuda_stream__, which rmm's Stream accepts
            buf = rmm.DeviceBuffer(size=size, stream=Stream(obj=external_stream(stream)))
        return MemoryPointer(self.context, buf.ptr, size, owner=buf)

    def get_memory_info(self):
        raise RuntimeError("the RMM memory manager cannot tell free/total memory (the resource may be a pool)")

    @contextlib.contextmanager
    def defer_cleanup(self):
        with super().defer_cleanup():
            yield


_cubridge_memory_manager = RMMMemoryManager
