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


# Pickling: what names the same thing in another process is pickled; what lives only in this process's
# contexts is refused by name (pickle's own refusal would not say why).
def _reduce_device(self: Device):
    return Device, (self.id,)  # an ordinal: the same GPU on the same machine (CUDA_VISIBLE_DEVICES alike)


def _default_stream_named(cai_value: int) -> Stream:
    # A Python function: pickle takes callables by reference, and nanobind's functions have none.
    return legacy_default_stream() if cai_value == 1 else per_thread_default_stream()


def _reduce_stream(self: Stream):
    if self.cai_value in (1, 2):  # CAI v3's names for the legacy and the per-thread default stream
        return _default_stream_named, (self.cai_value,)
    raise TypeError(f"cannot pickle {self!r}: a stream other than the default streams belongs to this process's "
                    "CUDA context; create one with cubridge.stream() where it is unpickled")


def _refuse(what: str, advice: str):
    def reduce(self):
        raise TypeError(f"cannot pickle {self!r}: a {what} belongs to this process's CUDA context; {advice}")
    return reduce


Device.__reduce__ = _reduce_device
Stream.__reduce__ = _reduce_stream
Context.__reduce__ = _refuse("context", "use cubridge.current_context() where it is unpickled")
Event.__reduce__ = _refuse("event", "record a new one with cubridge.event() where it is unpickled")
