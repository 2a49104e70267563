"""The memory face: the External Memory Management plugin interface v1 (Numba's NBEP 7).

Plug a manager in with ``set_memory_manager`` (a ``BaseCUDAMemoryManager`` subclass written in Python,
a built-in name: ``"default"``, ``"caching"``, ``"async"``, or a plugin library path), or choose it with
the ``CUBRIDGE_MEMORY_MANAGER`` environment variable (which then wins over ``set_memory_manager``).
One manager instance serves each context; ``cubridge.close()`` lets the next context pick up a new one.
"""
from __future__ import annotations

import abc
import contextlib
import importlib
import inspect
import os
import warnings
from collections import namedtuple

from . import _core
from ._core import (AutoFreePointer, IpcHandle, MappedMemory, MemoryPointer, OutOfMemory, PinnedMemory,
                    get_ipc_handle, memalloc, memhostalloc, memory_manager_description, mempin)

__all__ = ["OutOfMemory", "BaseCUDAMemoryManager", "HostOnlyCUDAMemoryManager", "GetIpcHandleMixin",
           "MemoryPointer", "AutoFreePointer", "MappedMemory", "PinnedMemory", "MemoryInfo", "IpcHandle",
           "set_memory_manager", "defer_cleanup", "memalloc", "memhostalloc", "mempin", "get_ipc_handle",
           "get_memory_info", "memory_reset", "memory_stats", "memory_manager_description"]

INTERFACE_VERSION = 1
_ENV = "CUBRIDGE_MEMORY_MANAGER"
_BUILTIN = ("default", "caching", "async")

MemoryInfo = namedtuple("MemoryInfo", ["free", "total"])
MemoryInfo.__doc__ = "Free and total device memory in bytes."


def _accepts_stream(fn) -> bool:
    try:
        return "stream" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


class BaseCUDAMemoryManager(abc.ABC):
    """Base of every memory-manager plugin (EMM v1). cubridge makes one instance per context
    (``cls(context=ctx)``) and alone calls its methods, with that context current.

    Extension: a ``memalloc(self, size, stream=None)`` that accepts ``stream`` receives the stream's
    handle (an int; 1 is the legacy default stream) and may order the allocation on it.
    """

    def __init__(self, *args, **kwargs):
        if "context" in kwargs:
            self.context = kwargs.pop("context")
        elif args:
            self.context = args[0]
        else:
            raise TypeError(f"{type(self).__name__}(): missing the context argument (cubridge passes context=...)")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._cubridge_stream_aware = _accepts_stream(cls.memalloc)

    @abc.abstractmethod
    def memalloc(self, size):
        """Device memory of ``size`` bytes as a MemoryPointer."""

    @abc.abstractmethod
    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        """Pinned host memory: MappedMemory when ``mapped``, else PinnedMemory."""

    @abc.abstractmethod
    def mempin(self, owner, pointer, size, mapped=False):
        """Pins host memory at ``pointer`` owned by ``owner`` (kept alive)."""

    @abc.abstractmethod
    def initialize(self):
        """Called before the first allocation; may be called again and must not reset state."""

    @abc.abstractmethod
    def get_ipc_handle(self, memory):
        """An IpcHandle for ``memory`` (see GetIpcHandleMixin)."""

    @abc.abstractmethod
    def get_memory_info(self):
        """MemoryInfo(free, total); may raise when the manager cannot tell."""

    @abc.abstractmethod
    def reset(self):
        """Frees everything that can be freed now. May be called before initialize()."""

    @abc.abstractmethod
    def defer_cleanup(self):
        """A context manager during which no memory is given back (nestable, thread-safe)."""

    @property
    def interface_version(self):
        return INTERFACE_VERSION


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """Host memory (memhostalloc, mempin) through the driver with deferred frees; subclasses bring
    ``memalloc`` and ``get_memory_info``. A subclass that overrides ``reset`` or ``defer_cleanup``
    must call this class's (``super().reset()``, ``with super().defer_cleanup(): ...``), or host
    memory stops being given back."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._host = None

    def _host_base(self):
        if self._host is None:
            self._host = _core._HostOnlyBase(self.context)
        return self._host

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        return self._host_base().memhostalloc(size, mapped=mapped, portable=portable, wc=wc)

    def mempin(self, owner, pointer, size, mapped=False):
        return self._host_base().mempin(owner, pointer, size, mapped=mapped)

    def initialize(self):
        pass

    def reset(self):
        if self._host is not None:
            self._host.reset()

    @contextlib.contextmanager
    def defer_cleanup(self):
        guard = self._host_base().defer_cleanup()
        try:
            yield
        finally:
            guard.release()


class GetIpcHandleMixin:
    """The default get_ipc_handle: the allocation base from cuMemGetAddressRange, cuIpcGetMemHandle,
    and the pointer's offset from the base recorded in the handle."""

    def get_ipc_handle(self, memory):
        return _core._ipc_handle_for(memory)


def _describe(plugin) -> str:
    if isinstance(plugin, type):
        return f"python:{plugin.__module__}.{plugin.__qualname__}"
    return repr(plugin)


def _is_library_path(v: str) -> bool:
    return "/" in v or v.endswith(".so") or ".so." in v


def _class_version(cls):
    v = getattr(cls, "interface_version", None)
    if isinstance(v, property):
        try:
            v = v.fget(None)
        except Exception:  # the property needs an instance: cubridge checks the instance instead
            return INTERFACE_VERSION
    return v


def _check_version(cls, v):
    if v != INTERFACE_VERSION:
        raise RuntimeError(f"memory manager {_describe(cls)} implements EMM interface version {v!r}; "
                           f"cubridge accepts version {INTERFACE_VERSION}")


def _install(plugin, from_environment: bool) -> None:
    if isinstance(plugin, str):
        if plugin in _BUILTIN:
            _core._set_builtin_manager(plugin, from_environment)
        elif _is_library_path(plugin):
            _core._set_library_manager(plugin, from_environment)
        else:
            raise ValueError(f"set_memory_manager({plugin!r}): not a built-in manager ({', '.join(map(repr, _BUILTIN))}) "
                             "nor a plugin library path (contains '/' or ends in '.so'); pass the plugin class itself")
        return
    if not isinstance(plugin, type):
        raise TypeError(f"set_memory_manager: expected a BaseCUDAMemoryManager subclass, a built-in name "
                        f"({', '.join(map(repr, _BUILTIN))}) or a plugin library path; got {plugin!r}")
    for name in ("memalloc", "memhostalloc", "mempin", "initialize", "get_ipc_handle", "get_memory_info",
                 "reset", "defer_cleanup"):
        if not callable(getattr(plugin, name, None)):
            raise TypeError(f"set_memory_manager({_describe(plugin)}): the class has no method {name}() "
                            "(EMM v1 requires memalloc, memhostalloc, mempin, initialize, get_ipc_handle, "
                            "get_memory_info, reset, defer_cleanup)")
    _check_version(plugin, _class_version(plugin))
    _core._set_python_manager(lambda ctx: plugin(context=ctx), _describe(plugin), from_environment)


def set_memory_manager(plugin) -> None:
    """Chooses the memory manager for contexts created from now on (``cubridge.close()`` recreates
    the existing ones). Ignored, with a warning, when CUBRIDGE_MEMORY_MANAGER is set."""
    if _core._manager_env_locked():
        warnings.warn(f"set_memory_manager({_describe(plugin)}) is ignored: the environment variable "
                      f"{_ENV}={os.environ.get(_ENV)!r} chooses the memory manager", RuntimeWarning, stacklevel=2)
        return
    _install(plugin, from_environment=False)


def _load_environment_module(name: str):
    module = importlib.import_module(name)
    cls = getattr(module, "_cubridge_memory_manager", None)
    if cls is None:
        raise ImportError(f"{_ENV}={name!r}: the module has no global _cubridge_memory_manager (the plugin class)")
    _check_version(cls, _class_version(cls))
    return cls


def _install_from_environment() -> None:
    value = os.environ.get(_ENV, "")
    if not value or value in _BUILTIN or _is_library_path(value):
        return  # the C++ registry resolves these itself on first use
    # Imported on first allocation, not now: the plugin module may import cubridge.
    _core._set_python_manager(lambda ctx: _load_environment_module(value)(context=ctx), f"python:{value}", True)


@contextlib.contextmanager
def defer_cleanup():
    """No memory is given back while the block runs (nestable; the current context's manager)."""
    guard = _core._defer_cleanup()
    try:
        yield
    finally:
        guard.release()


def get_memory_info() -> MemoryInfo:
    """Free and total bytes as the current context's manager reports them (it may raise)."""
    return MemoryInfo(*_core._memory_info())


def memory_reset() -> None:
    """Asks the current context's manager to free everything it can now (pending frees, caches)."""
    _core._memory_reset()


def memory_stats() -> dict:
    """Statistics of every live context's manager, summed, with one entry per device under 'devices'."""
    devices = _core._memory_stats()
    out = {"manager": memory_manager_description(), "devices": devices}
    for key in ("bytes_in_use", "peak_bytes", "allocations", "total_allocations", "pending_frees", "pending_bytes"):
        out[key] = sum(d[key] for d in devices)
    return out


_install_from_environment()
