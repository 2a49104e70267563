"""Driver layer from Python: import and CPU work without a GPU, the clear first-GPU-call error, and on
a GPU: enumeration against nvidia-smi, stream ordering, events, external streams, close()."""
import os
import shutil
import subprocess
import sys

import pytest

import cubridge

from conftest import GPU_REASON


def test_import_needs_no_gpu():
    out = subprocess.run([sys.executable, "-c", "import cubridge; print(cubridge.__version__)"],
                         capture_output=True, text=True, env={**os.environ, "CUBRIDGE_LIBCUDA": "/nonexistent/libcuda.so.1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == cubridge.__version__


def test_first_gpu_call_raises_the_clear_error_without_a_driver():
    code = ("import cubridge\n"
            "try:\n    cubridge.stream()\nexcept cubridge.DriverUnavailable as e:\n"
            "    print('OK', e.name, e.call, '|', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "CUBRIDGE_LIBCUDA": "/nonexistent/libcuda.so.1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("OK CUDA_ERROR_NO_DEVICE dlopen |"), out.stdout
    assert "no usable CUDA driver or device" in out.stdout
    assert "/nonexistent/libcuda.so.1" in out.stdout


def test_driver_unavailable_is_a_cuda_error_and_runtime_error():
    assert issubclass(cubridge.DriverUnavailable, cubridge.CudaError)
    assert issubclass(cubridge.CudaError, RuntimeError)


@pytest.mark.skipif(GPU_REASON is None, reason="a GPU is usable here")
def test_no_gpu_here_every_gpu_entry_point_raises():
    for call in (cubridge.stream, cubridge.event, cubridge.current_context, lambda: len(cubridge.devices)):
        with pytest.raises(cubridge.DriverUnavailable, match="no usable CUDA driver or device"):
            call()
    assert cubridge.driver_available() is False
    assert "unavailable" in repr(cubridge.devices)
    cubridge.close()  # closing with nothing open is fine


def test_cli_info_works_and_exits_zero():
    out = subprocess.run([sys.executable, "-m", "cubridge", "info"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"cubridge {cubridge.__version__}")
    assert "CUDA toolkit components:" in out.stdout
    if GPU_REASON is not None:
        assert f"GPU: none usable here: {GPU_REASON}" in out.stdout
        assert out.stdout.count("still succeed") <= 1, out.stdout  # the driver's message says it once


def test_external_stream_rejects_bad_values():
    with pytest.raises(TypeError, match="is not a stream"):
        cubridge.external_stream("abc")
    with pytest.raises(ValueError, match="handle 0"):
        cubridge.external_stream(0)
    with pytest.raises(TypeError, match=r"__cuda_stream__\(\) must return \(version, handle\)"):
        class Bad:
            def __cuda_stream__(self):
                return 5
        cubridge.external_stream(Bad())


def test_external_stream_keeps_its_owner_and_reports_itself():
    class Foreign:
        def __cuda_stream__(self):
            return (0, 0x1234)
    s = cubridge.external_stream(Foreign())
    assert s.handle == 0x1234 and s.external and not s.is_default
    assert s.__cuda_stream__() == (0, 0x1234)
    assert s.cai_value == 0x1234
    assert cubridge.legacy_default_stream().cai_value == 1
    assert cubridge.per_thread_default_stream().cai_value == 2
    assert cubridge.default_stream().is_default


# ---- GPU -------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_devices_match_nvidia_smi():
    smi = shutil.which("nvidia-smi")
    if smi is None:
        pytest.skip("nvidia-smi not on PATH")
    out = subprocess.run([smi, "--query-gpu=index,name,uuid,pci.bus_id,memory.total",
                          "--format=csv,noheader,nounits"], capture_output=True, text=True, check=True)
    rows = [[c.strip() for c in line.split(",")] for line in out.stdout.strip().splitlines()]
    assert len(cubridge.devices) == len(rows)
    ours = {d.uuid: d for d in cubridge.devices}
    for index, name, uuid, bus, mem_mib in rows:
        d = ours[uuid]
        assert d.name == name
        assert d.pci_bus_id.lower().lstrip("0") in bus.lower().lstrip("0")
        assert abs(d.total_memory / 2**20 - float(mem_mib)) < 1024
    assert cubridge.devices[0].compute_capability >= (7, 0)


@pytest.mark.gpu
def test_stream_and_event_order_work():
    s = cubridge.stream()
    e = cubridge.event(timing=True)
    start = cubridge.event(timing=True)
    start.record(s)
    e.record(s)
    e.synchronize()
    assert e.query() and s.query()
    assert start.elapsed_time(e) >= 0.0
    other = cubridge.stream()
    e.wait(other)
    other.synchronize()
    assert s != other and s == s


@pytest.mark.gpu
def test_external_streams_from_cupy_and_torch_are_used_not_destroyed():
    used = 0
    try:
        import cupy
        cs = cupy.cuda.Stream(non_blocking=True)
        s = cubridge.external_stream(cs)
        assert s.handle == cs.ptr
        ev = cubridge.event()
        ev.record(s)
        s.synchronize()
        del s
        cs.synchronize()  # still alive: we never destroyed it
        x = cupy.arange(10)
        with cs:
            assert int((x * 2).sum()) == 90
        used += 1
    except ImportError:
        pass
    try:
        import torch
        ts = torch.cuda.Stream()
        s = cubridge.external_stream(ts)
        assert s.handle == ts.cuda_stream
        s.synchronize()
        del s
        ts.synchronize()
        used += 1
    except ImportError:
        pass
    if not used:
        pytest.skip("neither CuPy nor PyTorch is importable")


CLOSE_SCRIPT = """
import cubridge
s = cubridge.stream()
ctx = cubridge.current_context()
cubridge.close()
assert not ctx.valid
try:
    s.synchronize()
    raise SystemExit("a stream of the closed context still synchronized")
except cubridge.CudaError as e:
    assert "cubridge.close" in str(e), str(e)
t = cubridge.stream()
t.synchronize()
cubridge.default_stream().synchronize()  # no context is current after close(): still works
assert cubridge.current_context().valid
print("OK")
"""


@pytest.mark.gpu
def test_close_invalidates_streams_and_recreates_on_next_use():
    # In a child process: close() resets the primary context under every library of the process, which
    # would pull it from under the CuPy and PyTorch objects that other tests of this file created.
    out = subprocess.run([sys.executable, "-c", CLOSE_SCRIPT], capture_output=True, text=True)
    assert out.returncode == 0 and "OK" in out.stdout, out.stderr
