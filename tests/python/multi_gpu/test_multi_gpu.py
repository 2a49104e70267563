"""Two GPUs in one process: kernels loaded on device 1 (load_kernel's device=, @cubridge.jit following the
current device as numba-cuda does) with arrays on device 1 from cubridge, CuPy and PyTorch; the error
naming both devices when a kernel meets an array of another device; one memory manager per device's
context with its own statistics (memory_stats(), `cubridge info`); CAI/DLPack imports of device-1 arrays
while device 0 is current; peer copies; allocations on a device that is not current. Skips, saying how
many GPUs there are, on a machine with fewer than two. IPC across devices: test_memory_gpu.py; JAX
sharded over every GPU and jax.distributed: test_multi_gpu_jax.py."""
import gc
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import cubridge

pytestmark = [pytest.mark.gpu, pytest.mark.multi_gpu]

ROOT = pathlib.Path(__file__).resolve().parents[3]
PTX = (ROOT / "tests" / "cpp" / "kernel" / "numba_abi_kernels.ptx").read_text()
ADD = "const float32[:], const float32[:], float32[:]"  # add_f32(a, b, out): out[i] = a[i] + b[i]


def blocks(n, block=128):
    return (n + block - 1) // block


def lib(name):
    return pytest.importorskip(name)


@pytest.fixture
def fresh():
    """Closes every context before and after the test, leaving the default manager installed; the test
    may install another with fresh(name). Only the first tests of this file use it: cubridge.close() resets
    the primary contexts, which would strand the blocks that CuPy's and PyTorch's pools keep cached, so no
    test closes contexts once those libraries have run."""
    def use(name):
        cubridge.close()
        cubridge.set_memory_manager(name)
    cubridge.close()
    yield use
    cubridge.close()
    cubridge.set_memory_manager("default")


@cubridge.jit
def axpy(a, x, y, out):
    i = cubridge.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def axpy_want(a, x, y):
    return (np.float32(a) * x + y).astype(np.float32)


# --- memory: one manager per device's context ----------------------------------------------------------

@pytest.mark.parametrize("name", ["default", "caching", "async"])
def test_one_manager_per_device_with_its_own_statistics(fresh, name):
    fresh(name)
    a = cubridge.device_array(1 << 20, np.uint8, device=0)
    b = cubridge.device_array(3 << 20, np.uint8, device=1)
    s = cubridge.memory_stats()
    per = {d["device"]: d for d in s["devices"]}
    assert sorted(per) == [0, 1], s
    assert per[0]["manager"] == per[1]["manager"] == name
    assert per[0]["bytes_in_use"] >= 1 << 20 and per[0]["allocations"] == 1
    assert per[1]["bytes_in_use"] >= 3 << 20 and per[1]["allocations"] == 1
    assert s["bytes_in_use"] == per[0]["bytes_in_use"] + per[1]["bytes_in_use"]
    assert b.pointer_attributes["device"] == 1 and a.pointer_attributes["device"] == 0
    # Imported through the interface alone (no device in it), b is device 1's whatever its manager: the
    # async pool's memory belongs to no context, and reported device -1 in the first two-GPU run.
    v = cubridge.as_cuda_array(_CaiOnly(b, b.__cuda_array_interface__))
    assert v.device_id == 1 and v.pointer_attributes["device"] == 1
    del v
    del b
    gc.collect()
    per = {d["device"]: d for d in cubridge.memory_stats()["devices"]}
    assert per[1]["bytes_in_use"] == 0 and per[0]["bytes_in_use"] >= 1 << 20
    del a


def test_cubridge_info_prints_each_devices_manager():
    code = ("import cubridge, numpy\n"
            "cubridge.set_memory_manager('caching')\n"
            "a = cubridge.device_array(1 << 20, numpy.uint8, device=0)\n"
            "b = cubridge.device_array(2 << 20, numpy.uint8, device=1)\n"
            "from cubridge import _cli\n"
            "raise SystemExit(_cli.main(['info']))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "(2 device context(s) open)" in out.stdout, out.stdout
    lines = {line.split(":")[0].strip(): line for line in out.stdout.splitlines() if " in use " in line}
    for device, size in ((0, 1 << 20), (1, 2 << 20)):
        m = re.search(r": caching  in use (\d+) B in 1 allocation\(s\)", lines.get(f"device {device}", ""))
        assert m and int(m.group(1)) >= size, out.stdout


def test_allocation_on_a_device_that_is_not_current():
    assert cubridge.current_context().device.id == 0
    host = (np.arange(1 << 16) % 253).astype(np.uint8)
    d = cubridge.to_device(host, device=1)
    assert cubridge.current_context().device.id == 0, "allocating on device 1 must not change the current device"
    assert d.device_id == 1 and d.__dlpack_device__() == (2, 1)
    pa = d.pointer_attributes
    assert pa["device"] == 1 and pa["memory_type"] == "device"
    assert pa["context"] == cubridge._core.primary_context(1).handle
    np.testing.assert_array_equal(d.copy_to_host(), host)
    s = cubridge.stream()  # a stream of the current device (0): refused for an array of device 1
    with pytest.raises(ValueError, match=r"device_array: the stream belongs to device 0 but device=1 was asked for"):
        cubridge.device_array(16, np.float32, stream=s, device=1)


def test_device_argument_errors():
    n = cubridge.device_count()
    with pytest.raises(ValueError, match=rf"device_array: device={n} is not a device of this machine "
                                         rf"\({n} CUDA device\(s\), ordinals 0\.\.{n - 1}\)"):
        cubridge.device_array(4, device=n)
    with pytest.raises(ValueError, match=r"device_array: device=-1 is not a device of this machine"):
        cubridge.device_array(4, device=-1)
    to = cubridge.device_array(3, np.float64, device=0)
    with pytest.raises(ValueError, match=r"to_device: `to` is on device 0 but device=1 was asked for"):
        cubridge.to_device(np.zeros(3), to=to, device=1)


def test_memalloc_serves_the_current_devices_manager():
    cp = lib("cupy")

    def in_use(device):
        return {d["device"]: d["bytes_in_use"] for d in cubridge.memory_stats()["devices"]}.get(device, 0)
    before0, before1 = in_use(0), in_use(1)
    with cp.cuda.Device(1):
        p = cubridge.memalloc(1 << 20)
        assert p.context.device.id == 1
    assert in_use(1) >= before1 + (1 << 20) and in_use(0) == before0
    del p


def test_cupy_plugin_reports_its_own_devices_memory_while_device_0_is_current():
    """The CuPy-pool plugin made for device 1's context answers get_memory_info for device 1 even when the
    caller's current device is 0 (the numbers come from device 1's memGetInfo, not the current one's)."""
    cp = lib("cupy")
    from types import SimpleNamespace
    from cubridge.interop import cupy as plugin
    with cp.cuda.Device(1):
        block = cp.empty(256 << 20, dtype=cp.uint8)  # makes device 1's free bytes differ from device 0's
        free1, total1 = cp.cuda.runtime.memGetInfo()
    manager = plugin.CuPyMemoryManager(context=SimpleNamespace(device=SimpleNamespace(id=1)))
    manager.initialize()
    with cp.cuda.Device(0):
        info = manager.get_memory_info()
        assert cp.cuda.runtime.getDevice() == 0  # the caller's device is left as it was
    assert info.total == total1
    assert abs((info.free - manager._pool.free_bytes()) - free1) < (64 << 20)
    del block


# --- kernels and arrays on device 1 ----------------------------------------------------------------------

def test_load_kernel_on_device_1_with_cubridge_arrays():
    n = 5000
    k = cubridge.load_kernel(PTX, "add_f32", ADD, device=1)
    assert k.module.context.device.id == 1
    a = cubridge.to_device(np.arange(n, dtype=np.float32), device=1)
    b = cubridge.to_device(np.full(n, 0.25, np.float32), device=cubridge.Device(1))
    out = cubridge.device_array(n, np.float32, device=1)
    assert (a.device_id, b.device_id, out.device_id) == (1, 1, 1)
    k[blocks(n), 128](a, b, out)
    assert cubridge.current_context().device.id == 0, "a launch on device 1 must leave device 0 current"
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(n, dtype=np.float32) + np.float32(0.25))


def test_load_kernel_takes_a_device_object_and_refuses_bad_devices():
    n = cubridge.device_count()
    assert cubridge.load_kernel(PTX, "add_f32", ADD, device=cubridge.Device(1)).module.context.device.id == 1
    with pytest.raises(IndexError, match=rf"device ordinal {n} .*ordinals 0\.\.{n - 1}"):
        cubridge.load_kernel(PTX, "add_f32", ADD, device=n)
    with pytest.raises(TypeError, match=r"load_kernel: device='1' is not an int ordinal, a cubridge.Device or None"):
        cubridge.load_kernel(PTX, "add_f32", ADD, device="1")


def test_jit_kernel_follows_the_current_device_with_cupy_arrays():
    cp = lib("cupy")
    n = 3000
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 2.0, np.float32)
    for device in (1, 0, 1):  # one dispatcher, loaded once per device
        with cp.cuda.Device(device):
            dx, dy = cp.asarray(x), cp.asarray(y)
            out = cp.zeros(n, cp.float32)
            axpy.forall(n)(3.0, dx, dy, out)
            assert out.device.id == device
            np.testing.assert_array_equal(cp.asnumpy(out), axpy_want(3.0, x, y), err_msg=f"device {device}")
    devices = {d for (_, d) in axpy._kernels}
    assert devices >= {0, 1}, f"the dispatcher should hold a kernel per device, holds {axpy._kernels}"


def test_jit_kernel_on_device_1_with_torch_tensors():
    torch = lib("torch")
    n = 4096
    x = torch.arange(n, dtype=torch.float32, device="cuda:1")
    y = torch.ones(n, dtype=torch.float32, device="cuda:1")
    out = torch.empty(n, dtype=torch.float32, device="cuda:1")
    with torch.cuda.device(1):
        axpy[blocks(n), 128](0.5, x, y, out)
    torch.cuda.synchronize(1)
    want = axpy_want(0.5, np.arange(n, dtype=np.float32), np.ones(n, np.float32))
    np.testing.assert_array_equal(out.cpu().numpy(), want)


def test_jit_kernel_on_device_1_with_cubridge_arrays_made_current_by_cupy():
    cp = lib("cupy")
    n = 1000
    x = cubridge.to_device(np.arange(n, dtype=np.float32), device=1)
    y = cubridge.to_device(np.ones(n, np.float32), device=1)
    out = cubridge.device_array(n, np.float32, device=1)
    with cp.cuda.Device(1):
        axpy.forall(n)(2.0, x, y, out)
    np.testing.assert_array_equal(out.copy_to_host(), axpy_want(2.0, np.arange(n, dtype=np.float32),
                                                                np.ones(n, np.float32)))


def test_a_kernel_refuses_an_array_on_another_device():
    n = 256
    k0 = cubridge.load_kernel(PTX, "add_f32", ADD, device=0)
    on0 = cubridge.to_device(np.ones(n, np.float32), device=0)
    on1 = cubridge.to_device(np.ones(n, np.float32), device=1)
    with pytest.raises(ValueError, match=r"argument 1: the array is on device 1 but kernel 'add_f32' was loaded "
                                         r"on device 0; copy the array to device 0 or load the kernel there"):
        k0[blocks(n), 128](on0, on1, on0)
    # @jit loads where the current device is (0 here): arrays of device 1 are refused the same way.
    with pytest.raises(ValueError, match=r"argument 1: the array is on device 1 but kernel '.*' was loaded on device 0"):
        axpy.forall(n)(1.0, on1, on1, on1)
    k0[blocks(n), 128](on0, on0, on0)  # nothing was left half-launched
    np.testing.assert_array_equal(on0.copy_to_host(), np.full(n, 2, np.float32))


def test_a_kernel_refuses_a_cupy_array_of_another_device():
    cp = lib("cupy")
    k1 = cubridge.load_kernel(PTX, "add_f32", ADD, device=1)
    with cp.cuda.Device(0):
        a = cp.ones(64, cp.float32)
    with pytest.raises(ValueError, match=r"argument 0: the array is on device 0 but kernel 'add_f32' was loaded on device 1"):
        k1[1, 64](a, a, a)


# --- peer copies ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("src_device,dst_device", [(0, 1), (1, 0)])
def test_peer_copy_between_devices(src_device, dst_device):
    host = np.random.default_rng(7).standard_normal((512, 384)).astype(np.float32)
    src = cubridge.to_device(host, device=src_device)
    dst = cubridge.device_array(host.shape, np.float32, device=dst_device)
    dst.copy_from(src)
    assert dst.device_id == dst_device
    np.testing.assert_array_equal(dst.copy_to_host(), host)
    again = cubridge.device_array(host.shape, np.float32, device=src_device)
    again.copy_to_device(dst)  # numba's spelling, the other way round
    np.testing.assert_array_equal(again.copy_to_host(), host)


def test_peer_copy_from_a_cupy_array_on_a_stream():
    cp = lib("cupy")
    dst = cubridge.device_array(1 << 18, np.int32, device=1)
    with cp.cuda.Device(0):
        s = cp.cuda.Stream(non_blocking=True)
        with s:  # the copy reads the interface here, which names s: the copy on device 1 waits for s
            x = cp.arange(1 << 18, dtype=cp.int32) - 7
            dst.copy_from(x)
    np.testing.assert_array_equal(dst.copy_to_host(), np.arange(1 << 18, dtype=np.int32) - 7)


def test_peer_copy_into_an_array_with_a_stream_of_device_1():
    cp = lib("cupy")
    host = np.arange(1 << 20, dtype=np.float32)
    src = cubridge.to_device(host, device=0)
    with cp.cuda.Device(1):
        s1 = cubridge.stream()  # a stream of the current device: 1
    dst = cubridge.device_array(1 << 20, np.float32, stream=s1, device=1)
    dst.copy_from(src)  # on s1, in device 1's context, after device 0's default stream
    np.testing.assert_array_equal(dst.copy_to_host(), host)


# --- arrays of device 1 imported while device 0 is current --------------------------------------------

class _CaiOnly:
    """The CUDA Array Interface of a producer, and nothing else (no DLPack): the import takes the CAI path."""

    def __init__(self, producer, interface):
        self.producer, self.__cuda_array_interface__ = producer, interface


def test_cupy_array_on_device_1_through_cai_while_device_0_is_current():
    cp = lib("cupy")
    with cp.cuda.Device(1):
        s = cp.cuda.Stream(non_blocking=True)
        with s:  # produced on a stream of device 1, which the interface names (CuPy's current stream)
            x = cp.arange(1 << 20, dtype=cp.float32) * 3
            iface = x.__cuda_array_interface__
    assert iface["stream"] == s.ptr
    assert cubridge.current_context().device.id == 0
    v = cubridge.as_cuda_array(_CaiOnly(x, iface))
    assert v.device_id == 1 and v.pointer_attributes["device"] == 1
    # The copy runs in device 1's context, ordered after the producer's stream of device 1.
    np.testing.assert_array_equal(v.copy_to_host(), np.arange(1 << 20, dtype=np.float32) * 3)
    assert cubridge.current_context().device.id == 0
    # And back to CuPy, zero-copy, with device 1 current: the same memory, on device 1.
    with cp.cuda.Device(1):
        back = cp.asarray(v)
    assert back.device.id == 1 and back.data.ptr == x.data.ptr and int(back[5]) == 15
    # With device 0 current, CuPy's asarray copies an array of another device to the current one (its rule
    # for every foreign array, CuPy's own included: the first two-GPU run's "back.device.id == 0" was this
    # copy, not a wrong device in cubridge's export): a copy on device 0 holding the same values.
    copied = cp.asarray(v)
    assert copied.device.id == 0 and copied.data.ptr != x.data.ptr
    with cp.cuda.Device(0):
        assert int(copied[5]) == 15
    own = cp.asarray(x)  # CuPy's own device-1 array does the same
    assert own.device.id == 0 and own.data.ptr != x.data.ptr


@pytest.mark.parametrize("route", ["cai", "dlpack"])
def test_pool_memory_on_device_1_imported_while_device_0_is_current(route):
    """Memory of a stream-ordered pool (cudaMallocAsync: CuPy's MemoryAsyncPool here) belongs to no context,
    so the driver names no context for it: its device comes from the pointer's own attributes (the first
    two-GPU run reported device -1 for such memory, and a kernel of device 0 then took it as reachable)."""
    cp = lib("cupy")
    previous = cp.cuda.get_allocator()
    cp.cuda.set_allocator(cp.cuda.MemoryAsyncPool().malloc)
    try:
        with cp.cuda.Device(1):
            x = cp.arange(1 << 16, dtype=cp.float32) * 0.5
            cp.cuda.Device(1).synchronize()
    finally:
        cp.cuda.set_allocator(previous)
    assert cubridge.current_context().device.id == 0
    v = cubridge.as_cuda_array(_CaiOnly(x, x.__cuda_array_interface__)) if route == "cai" else cubridge.from_dlpack(x)
    assert v.device_id == 1, v.device_id
    pa = v.pointer_attributes
    assert pa["device"] == 1 and pa["memory_type"] == "device", pa
    np.testing.assert_array_equal(v.copy_to_host(), np.arange(1 << 16, dtype=np.float32) * 0.5)
    k0 = cubridge.load_kernel(PTX, "add_f32", ADD, device=0)
    with pytest.raises(ValueError, match=r"argument 0: the array is on device 1 but kernel 'add_f32' was loaded on device 0"):
        k0[1, 32](v, v, v)
    with pytest.raises(ValueError, match=r"argument 0: the array is on device 1 but kernel 'add_f32' was loaded on device 0"):
        k0[1, 32](x, x, x)  # the CuPy array itself, read by the launch
    assert cubridge.current_context().device.id == 0
    del v, x


def test_torch_tensor_on_device_1_through_dlpack_while_device_0_is_current():
    torch = lib("torch")
    t = torch.arange(4096, dtype=torch.float64, device="cuda:1") * 0.5
    v = cubridge.from_dlpack(t)
    assert v.device_id == 1 and v.__dlpack_device__() == (2, 1)
    np.testing.assert_array_equal(v.copy_to_host(), np.arange(4096) * 0.5)
    u = torch.from_dlpack(v)  # cubridge's DLPack export of a device-1 array
    assert u.device == torch.device("cuda:1")
    assert torch.equal(u, t)


