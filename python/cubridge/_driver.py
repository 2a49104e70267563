"""Devices, contexts, streams and events (the driver layer), re-exported by cubridge."""
from __future__ import annotations

from . import _core
from ._core import (CudaError, Context, Device, DriverUnavailable, Event, Stream, close,
                    current_context, default_stream, device_count, driver_available,
                    external_stream, legacy_default_stream, per_thread_default_stream, event,
                    stream)

__all__ = ["CudaError", "DriverUnavailable", "Device", "Context", "Stream", "Event", "devices",
           "device_count", "driver_available", "current_context", "close", "stream", "event",
           "default_stream", "legacy_default_stream", "per_thread_default_stream",
           "external_stream"]


class _Devices:
    """The machine's CUDA devices, enumerated on first use (importing cubridge needs no GPU)."""

    def __len__(self) -> int:
        return _core.device_count()

    def __getitem__(self, ordinal: int) -> Device:
        n = len(self)
        if not isinstance(ordinal, int) or isinstance(ordinal, bool):
            raise TypeError(f"devices[{ordinal!r}]: the index must be an int in 0..{n - 1}")
        if ordinal < 0:
            ordinal += n
        return Device(ordinal)

    def __iter__(self):
        return (Device(i) for i in range(len(self)))

    def __repr__(self) -> str:
        try:
            return f"<cubridge.devices: {len(self)} device(s)>"
        except CudaError as e:
            return f"<cubridge.devices: unavailable ({e.name})>"


devices = _Devices()
