"""Shared pytest set-up: the `gpu` marker skips, with the driver's reason, where no GPU is usable; the
`multi_gpu` marker skips where fewer than two GPUs are usable, saying how many there are; the
`real_driver` marker also skips under the host driver stand-in (bench/host_driver/host_libcuda.c, which
scripts/test loads through CUBRIDGE_LIBCUDA to run the memory and array layers' GPU tests on a machine
without a GPU: host memory stands in for device memory, so what those runs check is cubridge's host-side
logic, not the GPU). The run ends with one line per skip reason and its count (pytest's own -rs lists a
reason once per test function, hundreds of lines of the same driver message on a machine without a GPU)."""
import collections

import numpy

# numba-cuda 0.30 (a peer in interop tests) still calls numpy.row_stack, which numpy 2.5 removed.
if not hasattr(numpy, "row_stack"):
    numpy.row_stack = numpy.vstack

import pytest

import cubridge


def _gpu_reason():
    try:
        cubridge.device_count()
        return None
    except cubridge.CudaError as e:
        return str(e)


def _host_stand_in():
    try:
        return cubridge.Device(0).name == "host driver stand-in"
    except cubridge.CudaError:
        return False


def _multi_gpu_reason():
    if GPU_REASON is not None:
        return f"needs two GPUs: {GPU_REASON}"
    if HOST_STAND_IN:
        return "needs two GPUs: this run uses the host driver stand-in"
    n = cubridge.device_count()
    return None if n >= 2 else f"needs two GPUs: this machine has {n}"


GPU_REASON = _gpu_reason()
HOST_STAND_IN = GPU_REASON is None and _host_stand_in()
MULTI_GPU_REASON = _multi_gpu_reason()


def described_address(nbytes: int = 1 << 20):
    """(address, keep): an aligned device address for arrays a test describes (CAI dicts, fake producers)
    but never dereferences, and the object that keeps it valid. Made up where no driver is usable; where
    one is, every imported pointer is checked with it, so the middle of a real allocation of `nbytes`
    (room on both sides for negative strides)."""
    if GPU_REASON is not None:
        return 0x7F0000000000, None
    buffer = cubridge.device_array(nbytes, "u1")
    return buffer.ptr + nbytes // 2, buffer


def pytest_collection_modifyitems(config, items):
    if MULTI_GPU_REASON is not None:
        skip_multi = pytest.mark.skip(reason=MULTI_GPU_REASON)
        for item in items:
            if "multi_gpu" in item.keywords:
                item.add_marker(skip_multi)
    if HOST_STAND_IN:
        skip = pytest.mark.skip(reason="needs NVIDIA's driver; this run uses the host driver stand-in")
        for item in items:
            if "real_driver" in item.keywords:
                item.add_marker(skip)
        return
    if GPU_REASON is None:
        return
    skip = pytest.mark.skip(reason=f"needs a GPU: {GPU_REASON}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    reporter = config.pluginmanager.getplugin("terminalreporter")
    if reporter is not None:  # the summary below replaces -rs's (and -ra's) list of skips
        reporter.reportchars = reporter.reportchars.replace("s", "")
    if not config.pluginmanager.hasplugin("timeout"):  # tests that spawn processes set their own limit
        config.addinivalue_line("markers", "timeout(seconds): pytest-timeout's limit for one test (where installed)")


def _skip_reason(report) -> str:
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    return reason.removeprefix("Skipped: ")


def pytest_terminal_summary(terminalreporter):
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if r.longrepr is not None]
    if not skipped:
        return
    terminalreporter.section("skipped, by reason", sep="-")
    for reason, count in collections.Counter(map(_skip_reason, skipped)).most_common():
        terminalreporter.line(f"SKIPPED [{count}] {reason}")


def numba_typing_errors() -> tuple:
    """The classes numba-cuda's TypingError may have: numba-cuda 0.30 raises its own copy
    (numba.cuda.core.errors), older releases numba's (numba.core.errors). Importing numba is the caller's."""
    import importlib
    found = []
    for module in ("numba.cuda.core.errors", "numba.core.errors"):
        try:
            found.append(importlib.import_module(module).TypingError)
        except (ImportError, AttributeError):
            pass
    return tuple(found)


def assembled_ptx(fn, sig, cc=(8, 0)) -> str:
    """The PTX of kernel `fn` compiled for `sig` (cubridge.compile_ptx), after checking that ptxas assembles it."""
    ptx, _ = cubridge.compile_ptx(fn, sig, cc=cc)
    r = cubridge.ptxas_check(ptx, cc)
    assert r, r.log
    return ptx
