"""PyTorch's caching allocator as a cubridge memory manager."""
from __future__ import annotations

import contextlib

import torch

from .._memory import GetIpcHandleMixin, HostOnlyCUDAMemoryManager, MemoryInfo, MemoryPointer


class TorchMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """Allocates with ``torch.cuda.caching_allocator_alloc`` (freed with caching_allocator_delete)."""

    def initialize(self):
        torch.cuda.init()

    def memalloc(self, size, stream=None):
        device = self.context.device.id if self.context is not None else 0
        if stream is None or stream == 1:
            ptr = torch.cuda.caching_allocator_alloc(size, device=device)
        else:
            ptr = torch.cuda.caching_allocator_alloc(size, device=device, stream=stream)
        return MemoryPointer(self.context, ptr, size, finalizer=lambda: torch.cuda.caching_allocator_delete(ptr))

    def get_memory_info(self):
        free, total = torch.cuda.mem_get_info(self.context.device.id if self.context is not None else 0)
        return MemoryInfo(free, total)

    def reset(self):
        super().reset()
        torch.cuda.empty_cache()

    @contextlib.contextmanager
    def defer_cleanup(self):
        with super().defer_cleanup():
            yield


_cubridge_memory_manager = TorchMemoryManager
