"""What `cubridge info` reports, as one dict (`cubridge info --json` prints it): the version, where each
toolkit component was found and why it was looked for there, whether the XLA FFI adapter is built, the code
cache, the peers' versions, the environment variables in effect, and the GPUs."""
from __future__ import annotations

import os
import platform
import sys
from importlib import metadata
from typing import Any

# Every variable cubridge reads, with what it does (the README's table lists the same names; a test checks).
ENVIRONMENT_VARIABLES: dict[str, str] = {
    "CUBRIDGE_CUDA_HOME": "the CUDA toolkit's directory, searched first (then CUDA_HOME, CUDA_PATH)",
    "CUBRIDGE_TOOLKIT_SEARCH": "where to look for the toolkit: a comma-separated subset of variables, wheels, "
                               "conda, system (default: all four, in that order)",
    "CUBRIDGE_CACHE_DIR": "the on-disk code cache's directory (default: $XDG_CACHE_HOME/cubridge or "
                          "~/.cache/cubridge)",
    "CUBRIDGE_DISABLE_CACHE": "1: compile without the on-disk code cache",
    "CUBRIDGE_MEMORY_MANAGER": "the memory manager of new contexts: default, caching, async, a module:Class or a "
                               "plugin .so (wins over set_memory_manager)",
    "CUBRIDGE_MAX_PENDING_DEALLOCS_COUNT": "deferred frees held before they are flushed (numba's "
                                           "CUDA_MAX_PENDING_DEALLOCS_COUNT)",
    "CUBRIDGE_MAX_PENDING_DEALLOCS_RATIO": "bytes of deferred frees, as a fraction of device memory, before they "
                                           "are flushed",
    "CUBRIDGE_ASYNC_POOL_RELEASE_THRESHOLD": "bytes the async manager's pool keeps after a synchronize",
    "CUBRIDGE_PER_THREAD_DEFAULT_STREAM": "1: the default stream is the per-thread one, not the legacy one",
    "CUBRIDGE_CUDA_ARRAY_INTERFACE_SYNC": "0: importing an array does not wait on its CAI stream",
    "CUBRIDGE_LIBCUDA": "the driver library to load instead of libcuda.so.1",
}
# Read by the toolkit search too, but not ours.
OTHER_VARIABLES = ("CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX")

PEERS = ("numpy", "jax", "jaxlib", "numba", "numba-cuda", "cupy-cuda13x", "torch", "cuda-python", "cuda-core",
         "cuda-pathfinder", "nvidia-nvvm", "nvidia-cuda-nvrtc", "nvidia-nvjitlink")


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def report(*, devices: bool = True) -> dict[str, Any]:
    """The whole report. Never raises for a missing piece: each part says what it found or why not."""
    import cubridge
    from . import _core, _linker

    out: dict[str, Any] = {"cubridge": cubridge.__version__, "python": platform.python_version(),
                           "executable": sys.executable}
    try:
        out["toolkit"] = _linker.toolkit_info()
        out["toolkit_homes"] = _linker.toolkit_homes()
    except cubridge.ToolkitError as e:  # e.g. a bad CUBRIDGE_TOOLKIT_SEARCH
        out["toolkit"], out["toolkit_homes"], out["toolkit_error"] = [], [], str(e)
    out["wheel_directories"] = list(_core._wheel_directories())
    out["xla_ffi_adapter"] = {"built": bool(_core._xla_adapter_available()),
                              "ffi_api_version": _core._xla_ffi_api_version()}
    cache = _core.CodeCache.default_directory()
    out["cache"] = {"directory": cache, "enabled": not _cache_disabled(), **cache_usage(cache)}
    out["peers"] = {p: _version(p) for p in PEERS}
    out["environment"] = {k: os.environ[k] for k in (*ENVIRONMENT_VARIABLES, *OTHER_VARIABLES) if k in os.environ}
    if devices:
        out["gpu"] = _gpu()
    return out


def _cache_disabled() -> bool:
    return os.environ.get("CUBRIDGE_DISABLE_CACHE", "") not in ("", "0")


# The cache's MAC key (src/compiler/cache/cache_directory.cpp's kSecretName): not an entry, and `cache clear`
# keeps it, so it is counted neither in the usage nor in what a clear removes.
_CACHE_SECRET = "secret"


def cache_usage(directory: str) -> dict[str, int]:
    """Entries (files) and bytes under the cache directory (0 and 0 where it does not exist)."""
    files = size = 0
    for root, _, names in os.walk(directory):
        for n in names:
            if root == directory and n == _CACHE_SECRET:
                continue
            try:
                size += os.lstat(os.path.join(root, n)).st_size
                files += 1
            except OSError:  # removed meanwhile by another process
                pass
    return {"files": files, "bytes": size}


def _gpu() -> dict[str, Any]:
    import cubridge
    from . import _core
    try:
        count = _core.device_count()
    except cubridge.CudaError as e:
        return {"available": False, "reason": str(e)}
    v = _core.driver_version()
    return {"available": True, "driver": f"{v // 1000}.{(v % 1000) // 10}",
            "devices": [{"id": d.id, "name": d.name, "compute_capability": list(d.compute_capability),
                         "total_memory": d.total_memory, "pci_bus_id": d.pci_bus_id, "uuid": d.uuid}
                        for d in cubridge.devices][:count]}
