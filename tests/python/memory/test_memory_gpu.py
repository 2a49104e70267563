"""Memory face on a GPU: managers through Python, plugins, OOM, IPC between processes (every manager, a
handle opened on the exporting device and, with two GPUs, on another; pickled handles; closing order; a
child killed with the handle open), peers' pools, and the Numba bridge. Each test leaves the default manager installed and the contexts closed."""
import gc
import multiprocessing as mp
import os
import subprocess
import sys

import pytest

import cubridge

pytestmark = pytest.mark.gpu


@pytest.fixture
def manager():
    """Installs a manager for one test: manager(x) then use; contexts are closed before and after."""
    def use(plugin):
        cubridge.close()
        cubridge.set_memory_manager(plugin)
    yield use
    cubridge.close()
    cubridge.set_memory_manager("default")


@pytest.mark.parametrize("name", ["default", "caching", "async"])
def test_builtin_managers_allocate_and_count(manager, name):
    manager(name)
    p = cubridge.memalloc(1 << 20)
    assert p.size == 1 << 20 and p.device_pointer != 0
    s = cubridge.memory_stats()
    assert s["devices"][0]["manager"] == name
    assert s["bytes_in_use"] >= 1 << 20 and s["peak_bytes"] >= 1 << 20
    del p
    gc.collect()
    assert cubridge.memory_stats()["bytes_in_use"] == 0
    info = cubridge.get_memory_info()
    assert 0 < info.free <= info.total


@pytest.mark.parametrize("name", ["default", "caching", "async"])
def test_out_of_memory_is_clear_and_recoverable(manager, name):
    manager(name)
    total = cubridge.Device(0).total_memory
    with pytest.raises(cubridge.OutOfMemory, match=rf"cannot allocate {2 * total} bytes .* free of \d+ bytes"):
        cubridge.memalloc(2 * total)
    with pytest.raises(MemoryError):
        cubridge.memalloc(2 * total)
    assert cubridge.memalloc(1 << 20).size == 1 << 20


def test_default_manager_defers_frees(manager):
    manager("default")
    ps = [cubridge.memalloc(4096) for _ in range(5)]
    del ps
    gc.collect()
    assert cubridge.memory_stats()["pending_frees"] == 5
    with cubridge.defer_cleanup():
        with cubridge.defer_cleanup():
            for _ in range(20):
                cubridge.memalloc(4096)
        assert cubridge.memory_stats()["pending_frees"] == 25
    cubridge.memory_reset()
    assert cubridge.memory_stats()["pending_frees"] == 0


class Recording(cubridge.GetIpcHandleMixin, cubridge.HostOnlyCUDAMemoryManager):
    log = []

    def initialize(self):
        Recording.log.append("initialize")

    def memalloc(self, size, stream=None):
        # Always called with the owning context current.
        assert cubridge.current_context().handle == self.context.handle
        Recording.log.append(("memalloc", size, stream))
        inner = Recording.upstream.memalloc(size)
        return cubridge.MemoryPointer(self.context, inner.device_pointer, size, owner=inner)

    def get_memory_info(self):
        return cubridge.MemoryInfo(1, 2)


def test_python_plugin_serves_every_allocation(manager):
    Recording.log = []
    manager(Recording)
    class Up:
        @staticmethod
        def memalloc(size):
            return cubridge.MemoryPointer(None, 0x7F0000000000, size)
    Recording.upstream = Up
    p = cubridge.memalloc(1000)
    s = cubridge.stream()
    q = cubridge.memalloc(2000, stream=s)
    assert Recording.log[0] == "initialize"
    assert Recording.log[1] == ("memalloc", 1000, 1)
    assert Recording.log[2] == ("memalloc", 2000, s.handle)
    assert cubridge.get_memory_info() == (1, 2)
    assert cubridge.memory_stats()["bytes_in_use"] == 3000
    del p, q
    gc.collect()
    assert cubridge.memory_stats()["bytes_in_use"] == 0


def test_plugin_raising_in_memalloc_leaves_nothing_behind(manager):
    class Failing(cubridge.HostOnlyCUDAMemoryManager):
        def memalloc(self, size):
            raise RuntimeError(f"no memory today for {size}")

        def get_ipc_handle(self, memory):
            raise NotImplementedError

        def get_memory_info(self):
            raise RuntimeError("unknown")
    manager(Failing)
    with pytest.raises(RuntimeError, match="no memory today for 64"):
        cubridge.memalloc(64)
    assert cubridge.memory_stats()["allocations"] == 0


def test_set_memory_manager_affects_new_contexts_only(manager):
    manager("default")
    cubridge.memalloc(64)
    cubridge.set_memory_manager("caching")
    assert cubridge._core._manager_name() == "default"
    cubridge.close()
    assert cubridge._core._manager_name() == "caching"


def test_host_memory(manager):
    manager("default")
    m = cubridge.memhostalloc(4096, mapped=True)
    assert m.kind == "mapped" and m.device_pointer != 0
    buf = bytearray(1 << 16)
    import ctypes
    addr = ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf))
    pin = cubridge.mempin(buf, addr, len(buf))
    assert pin.owner is buf and pin.host_pointer == addr
    del pin, m


class _Cai:
    """Just enough of an array to let cubridge.as_cuda_array view raw memory."""

    def __init__(self, pointer, size):
        self.__cuda_array_interface__ = {"shape": (size,), "typestr": "|u1", "data": (pointer, False),
                                         "version": 3, "strides": None, "stream": None}


def _ipc_plugin():
    """A Python plugin for the IPC tests: CuPy's pool behind cubridge's Python adapter (GetIpcHandleMixin)."""
    pytest.importorskip("cupy")
    from cubridge.interop import cupy as plugin
    return plugin._cubridge_memory_manager


def _install_for_ipc(cb, name):
    if name == "plugin":
        from cubridge.interop import cupy as plugin
        cb.set_memory_manager(plugin._cubridge_memory_manager)
    else:
        cb.set_memory_manager(name)


def _child_open(data, name, device, mode, q):
    """Opens an exported handle on `device` with manager `name` installed, reads it and reports
    (bytes, this device's memory statistics, the device the opened memory's own attributes name). `mode`: "read"; "mapping-then-close" and
    "close-then-mapping" (the order of dropping the opened memory and cubridge.close(), each followed by
    a second open); "die" (SIGKILL with the handle open, once the parent has the bytes)."""
    try:
        import gc
        import signal
        import cubridge as cb
        _install_for_ipc(cb, name)
        h = cb.IpcHandle.from_bytes(data) if isinstance(data, bytes) else data  # else unpickled by multiprocessing

        def read():
            mem = h.open(cb._core.primary_context(device))  # device 0: mapped; another device: staged copy
            return mem, bytes(cb.as_cuda_array(_Cai(mem.device_pointer, h.size)).copy_to_host())
        mem, got = read()
        stats = {d["device"]: d for d in cb.memory_stats()["devices"]}.get(device)
        lives_on = cb.as_cuda_array(_Cai(mem.device_pointer, h.size)).pointer_attributes["device"]
        if mode == "die":
            q.put((got, stats, lives_on))
            q.close()
            q.join_thread()  # the bytes reach the parent before the process dies
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "mapping-then-close":
            del mem
            gc.collect()
            mem, again = read()
            cb.close()
        elif mode == "close-then-mapping":
            cb.close()  # the opened memory outlives its context: dropping it later must be harmless
            del mem
            gc.collect()
            mem, again = read()
            del mem
            gc.collect()
        else:
            again = got
        q.put((got if got == again else "child failed: the second open read different bytes", stats, lives_on))
    except BaseException as e:  # reported to the parent, which would otherwise wait for its timeout
        q.put(f"child failed: {type(e).__name__}: {e}")
        raise


def _export(manager, name, nbytes=8192, offset=1024):
    """Installs `name`, allocates nbytes filled with a pattern, and exports the pointer at `offset`."""
    import numpy
    manager(_ipc_plugin() if name == "plugin" else name)
    p = cubridge.memalloc(nbytes)
    src = (numpy.arange(nbytes) % 241).astype(numpy.uint8)
    cubridge.to_device(src, to=cubridge.as_cuda_array(_Cai(p.device_pointer, nbytes)))
    cubridge.current_context().synchronize()
    return p, src, cubridge.get_ipc_handle(p.view(offset))


def _run_child(payload, name, device, mode, lives_on=None):
    """Runs _child_open in a spawned process: ((bytes, statistics), exit code). The opened memory must live
    on `device` (its own pointer attributes say so), or on `lives_on` when given."""
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    child = ctx.Process(target=_child_open, args=(payload, name, device, mode, q))
    child.start()
    got = q.get(timeout=120)
    child.join(timeout=60)
    assert not isinstance(got, str), f"{got} (parent: {cubridge.get_memory_info()})"
    want = device if lives_on is None else lives_on
    assert got[2] == want, f"the child's opened memory lives on device {got[2]}, not {want}"
    return got[:2], child.exitcode


IPC_DEVICES = [0, pytest.param(1, marks=pytest.mark.multi_gpu, id="1-staged")]


@pytest.mark.real_driver
@pytest.mark.parametrize("device", IPC_DEVICES)
@pytest.mark.parametrize("name", ["default", "caching", "plugin"])
def test_ipc_between_processes(manager, name, device):
    """Exported on device 0, opened by a spawned process on device 0 (mapped) or 1 (copied into memory of
    that device's manager); the handle travels as to_bytes() (default) or pickled (the others)."""
    import pickle
    p, src, h = _export(manager, name)
    assert h.offset == 1024 and h.size == p.size - 1024 and h.source_info == cubridge.Device(0).uuid_bytes
    copy = pickle.loads(pickle.dumps(h))
    assert (copy.handle, copy.size, copy.offset, copy.source_info, copy.base) == \
           (h.handle, h.size, h.offset, h.source_info, None)
    (got, stats), code = _run_child(h.to_bytes() if name == "default" else h, name, device, "read")
    assert code == 0
    assert len(got) == h.size and got[:8192 - 1024] == src[1024:].tobytes()
    if device == 0:  # mapped: the child's manager allocated nothing
        assert stats is None or stats["bytes_in_use"] == 0, stats
    else:  # staged: a copy from the child's manager on device 1
        assert stats["bytes_in_use"] >= h.size and stats["allocations"] == 1, stats
        assert stats["manager"] == name if name != "plugin" else stats["manager"].startswith("python:"), stats
    del h, copy, p
    gc.collect()
    assert cubridge.memory_stats()["bytes_in_use"] == 0


@pytest.mark.real_driver
@pytest.mark.multi_gpu
@pytest.mark.parametrize("child_manager", ["default", "caching", "async", "plugin"])
def test_ipc_opened_on_device_1_by_every_manager(manager, child_manager):
    """Exported by the default manager on device 0; the child, with each manager installed (the async
    pool's too: its memory, which no context owns, must still say device 1), opens it on device 1 while
    device 0 is its current device: a copy staged into memory of device 1's manager."""
    if child_manager == "plugin":
        _ipc_plugin()
    p, src, h = _export(manager, "default")
    (got, stats), code = _run_child(h.to_bytes(), child_manager, 1, "read")
    assert code == 0 and got[:8192 - 1024] == src[1024:].tobytes()
    assert stats["bytes_in_use"] >= h.size and stats["allocations"] == 1, stats
    del h, p
    gc.collect()
    assert cubridge.memory_stats()["bytes_in_use"] == 0


@pytest.mark.real_driver
@pytest.mark.parametrize("device", IPC_DEVICES)
@pytest.mark.parametrize("order", ["mapping-then-close", "close-then-mapping"])
def test_ipc_closing_order(manager, order, device):
    p, src, h = _export(manager, "default")
    (got, _), code = _run_child(h, "default", device, order)
    assert code == 0, f"the child exited with {code} after {order}"
    assert got[:8192 - 1024] == src[1024:].tobytes()
    del h  # the exporter drops its handle before its memory, then the memory
    gc.collect()
    assert bytes(cubridge.as_cuda_array(_Cai(p.device_pointer, 8192)).copy_to_host()) == src.tobytes()
    del p
    gc.collect()
    assert cubridge.memory_stats()["bytes_in_use"] == 0


@pytest.mark.real_driver
@pytest.mark.parametrize("device", IPC_DEVICES)
def test_ipc_child_dying_with_the_handle_open(manager, device):
    import signal
    p, src, h = _export(manager, "caching")
    (got, _), code = _run_child(h.to_bytes(), "caching", device, "die")
    assert code == -signal.SIGKILL and got[:8192 - 1024] == src[1024:].tobytes()
    # The exporter's memory is intact and its own: read it, export it again, give it back.
    assert bytes(cubridge.as_cuda_array(_Cai(p.device_pointer, 8192)).copy_to_host()) == src.tobytes()
    (again, _), code = _run_child(cubridge.get_ipc_handle(p).to_bytes(), "caching", 0, "read")
    assert code == 0 and again[:8192] == src.tobytes()
    del h, p
    gc.collect()
    assert cubridge.memory_stats()["bytes_in_use"] == 0


def test_async_manager_refuses_ipc_export_clearly(manager):
    manager("async")
    p = cubridge.memalloc(4096)
    with pytest.raises(Exception, match=r"get_ipc_handle: the async pool manager's memory comes from a cuMemPool "
                                        r"created without an export handle type.*use the default or caching manager"):
        cubridge.get_ipc_handle(p)
    del p


@pytest.mark.parametrize("peer", ["cupy", "torch", "rmm"])
def test_peer_pools_as_managers(manager, peer):
    pytest.importorskip(peer)
    import importlib
    mod = importlib.import_module(f"cubridge.interop.{peer}")
    manager(mod._cubridge_memory_manager)
    p = cubridge.memalloc(1 << 20)
    assert p.device_pointer != 0
    h = cubridge.get_ipc_handle(p)
    assert len(h.to_bytes()) == 120
    del p, h


@pytest.mark.real_driver
def test_numba_allocates_through_cubridge():
    code = ("import numpy; numpy.row_stack = numpy.vstack\n"
            "import cubridge\n"
            "cubridge.set_memory_manager('caching')\n"
            "from numba import cuda\n"
            "a = cuda.device_array(1 << 20, dtype='u1')\n"
            "s = cubridge.memory_stats()\n"
            "print(s['bytes_in_use'], s['devices'][0]['manager'])\n")
    env = dict(os.environ, NUMBA_CUDA_MEMORY_MANAGER="cubridge.numba_emm")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    used, name = out.stdout.split()
    assert int(used) >= 1 << 20 and name == "caching"


def test_million_pairs_stay_flat(manager):
    manager("caching")
    before = cubridge.get_memory_info().free
    for _ in range(1_000_000):
        cubridge.memalloc(1 << 20)
    assert cubridge.memory_stats()["bytes_in_use"] == 0
    assert abs(cubridge.get_memory_info().free - before) <= 4 << 20


def test_environment_module_plugin_serves_allocations():
    pytest.importorskip("cupy")
    code = ("import cubridge\n"
            "p = cubridge.memalloc(1 << 20)\n"
            "print(cubridge.memory_stats()['devices'][0]['manager'], p.size)\n")
    env = dict(os.environ, CUBRIDGE_MEMORY_MANAGER="cubridge.interop.cupy")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["python:cubridge.interop.cupy", str(1 << 20)]


def test_environment_module_without_the_global_says_so():
    code = "import cubridge\ncubridge.memalloc(64)\n"
    env = dict(os.environ, CUBRIDGE_MEMORY_MANAGER="json")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode != 0
    assert "CUBRIDGE_MEMORY_MANAGER='json': the module has no global _cubridge_memory_manager" in out.stderr


def test_plugin_library_refusing_a_device_is_reported(manager, tmp_path):
    import shutil
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build a plugin library")
    src = tmp_path / "plugin.c"
    src.write_text("#include <stdint.h>\n"
                   "uint32_t cubridge_memory_plugin_interface_version(void) { return 1; }\n"
                   "int cubridge_memory_plugin_create(int device, void* out) { (void)device; (void)out; return 3; }\n")
    lib = tmp_path / "librefuse.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    manager(str(lib))
    with pytest.raises(RuntimeError, match=r"cubridge_memory_plugin_create\(device 0\) refused with code 3"):
        cubridge.memalloc(64)
