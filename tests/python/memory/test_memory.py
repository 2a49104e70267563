"""Memory face, CPU rules: pointers, IPC handle serialisation, plugin checks, host-only base, stats."""
import gc
import os
import pickle
import subprocess
import sys
import warnings

import pytest

import cubridge
from cubridge import _memory


def test_out_of_memory_is_a_cuda_error_and_a_memory_error():
    assert issubclass(cubridge.OutOfMemory, cubridge.CudaError)
    assert issubclass(cubridge.OutOfMemory, MemoryError)


def test_finalizer_runs_once_when_the_pointer_dies():
    calls = []
    p = cubridge.MemoryPointer(None, 0x1000, 64, finalizer=lambda: calls.append(1))
    assert p.refct == 1 and p.size == 64 and p.device_pointer == 0x1000
    del p
    gc.collect()
    assert calls == [1]


def test_free_runs_the_finalizer_now_and_only_once():
    calls = []
    p = cubridge.MemoryPointer(None, 0x1000, 64, finalizer=lambda: calls.append(1))
    p.free()
    p.free()
    assert calls == [1] and p.freed
    del p
    assert calls == [1]


def test_auto_free_pointer_starts_at_zero_and_views_keep_the_parent():
    calls = []
    p = cubridge.AutoFreePointer(None, 0x2000, 128, finalizer=lambda: calls.append(1))
    assert p.refct == 0
    v = p.view(32, 96)
    assert (v.device_pointer, v.size) == (0x2020, 64)
    del p
    gc.collect()
    assert calls == []
    del v
    gc.collect()
    assert calls == [1]


def test_view_out_of_range_names_the_bounds():
    p = cubridge.MemoryPointer(None, 0x1000, 64)
    with pytest.raises(IndexError, match=r"MemoryPointer.view\(0, 65\): the range must satisfy 0 <= start <= stop <= 64"):
        p.view(0, 65)


def test_pinned_memory_keeps_its_owner():
    owner = bytearray(16)
    p = cubridge.PinnedMemory(None, 0x3000, 16, owner=owner)
    assert p.owner is owner and p.kind == "pinned" and p.host_pointer == 0x3000
    m = cubridge.MappedMemory(None, 0x4000, 0x9000, 16)
    assert (m.kind, m.host_pointer, m.device_pointer) == ("mapped", 0x4000, 0x9000)


def test_ipc_handle_pickles_and_has_the_documented_layout():
    h = cubridge.IpcHandle(None, bytes(range(64)), 4096, source_info=b"U" * 16, offset=512)
    data = h.to_bytes()
    assert len(data) == 120 and data[:6] == b"CBIPC1"
    assert data[32:96] == bytes(range(64)) and data[96:112] == b"U" * 16
    back = pickle.loads(pickle.dumps(h))
    assert (back.handle, back.size, back.offset, back.source_info) == (bytes(range(64)), 4096, 512, b"U" * 16)
    assert back.base is None


def test_ipc_handle_rejects_bad_input_by_name():
    with pytest.raises(ValueError, match="handle is 3 bytes; a CUipcMemHandle is 64 bytes"):
        cubridge.IpcHandle(None, b"abc", 10)
    with pytest.raises(ValueError, match="source_info is 2 bytes; a device UUID is 16 bytes"):
        cubridge.IpcHandle(None, bytes(64), 10, source_info=b"ab")
    with pytest.raises(ValueError, match="5 bytes given; a serialised handle is 120 bytes"):
        cubridge.IpcHandle.from_bytes(b"12345")
    with pytest.raises(ValueError, match="magic"):
        cubridge.IpcHandle.from_bytes(b"X" * 120)


class _Plugin(cubridge.HostOnlyCUDAMemoryManager):
    def memalloc(self, size):
        raise AssertionError("not called in CPU tests")

    def get_ipc_handle(self, memory):
        raise NotImplementedError

    def get_memory_info(self):
        return cubridge.MemoryInfo(1, 2)


def test_set_memory_manager_checks_the_interface_version():
    class V2(_Plugin):
        @property
        def interface_version(self):
            return 2
    with pytest.raises(RuntimeError, match=r"implements EMM interface version 2; cubridge accepts version 1"):
        cubridge.set_memory_manager(V2)


def test_set_memory_manager_rejects_what_is_not_a_plugin():
    with pytest.raises(TypeError, match="expected a BaseCUDAMemoryManager subclass.*got 42"):
        cubridge.set_memory_manager(42)
    with pytest.raises(ValueError, match=r"set_memory_manager\('fastest'\): not a built-in manager"):
        cubridge.set_memory_manager("fastest")

    class NoReset:
        interface_version = 1
        memalloc = memhostalloc = mempin = initialize = get_ipc_handle = get_memory_info = defer_cleanup = lambda self: 0
    with pytest.raises(TypeError, match=r"has no method reset\(\)"):
        cubridge.set_memory_manager(NoReset)


def test_set_memory_manager_accepts_builtins_and_classes():
    cubridge.set_memory_manager(_Plugin)
    assert cubridge.memory_manager_description().endswith("_Plugin")
    cubridge.set_memory_manager("caching")
    assert cubridge.memory_manager_description() == "caching"
    cubridge.set_memory_manager("default")


def test_environment_variable_wins_with_a_warning():
    code = ("import warnings, cubridge\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    cubridge.set_memory_manager('default')\n"
            "print(cubridge.memory_manager_description(), '|', w[0].message)\n")
    env = dict(os.environ, CUBRIDGE_MEMORY_MANAGER="caching")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("caching |")
    assert "is ignored: the environment variable CUBRIDGE_MEMORY_MANAGER='caching' chooses" in out.stdout


def test_stream_aware_memalloc_is_detected():
    class Streamed(_Plugin):
        def memalloc(self, size, stream=None):
            return None
    assert Streamed._cubridge_stream_aware and not _Plugin._cubridge_stream_aware


def test_host_only_subclass_that_overrides_reset_and_defer_calls_the_base():
    class Sub(_Plugin):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.resets = 0

        def reset(self):
            self.resets += 1
            super().reset()

        def defer_cleanup(self):
            return super().defer_cleanup()

    m = Sub(context=None)
    m.reset()  # reset may come before initialize
    m.initialize()
    m.initialize()
    assert m.resets == 1
    with m.defer_cleanup():
        with m.defer_cleanup():
            assert m._host_base().deferred
        assert m._host_base().deferred
    assert not m._host_base().deferred
    assert m._host_base().pending() == (0, 0)
    assert m.interface_version == 1


def test_memory_stats_is_a_dict():
    s = cubridge.memory_stats()
    for key in ("manager", "devices", "bytes_in_use", "peak_bytes", "allocations", "pending_frees"):
        assert key in s


def test_numba_bridge_module_exposes_the_plugin():
    pytest.importorskip("numba.cuda")
    from cubridge import numba_emm
    assert numba_emm._numba_memory_manager.__name__ == "CubridgeNumbaManager"
    from numba.cuda import HostOnlyCUDAMemoryManager
    assert issubclass(numba_emm._numba_memory_manager, HostOnlyCUDAMemoryManager)


def test_host_only_base_without_a_context_says_so():
    m = _Plugin(context=None)
    with pytest.raises(ValueError, match="made with context=None, so it cannot allocate host memory"):
        m.memhostalloc(64)


def test_ipc_export_needs_a_context():
    p = cubridge.MemoryPointer(None, 0x1000, 64)
    with pytest.raises(ValueError, match=r"made without a context \(context=None\)"):
        cubridge._core._ipc_handle_for(p)


def _build_plugin(tmp_path, version):
    import shutil
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler to build a plugin library")
    src = tmp_path / "plugin.c"
    src.write_text(
        "#include <stdint.h>\n#include <stddef.h>\n"
        f"uint32_t cubridge_memory_plugin_interface_version(void) {{ return {version}; }}\n"
        "int cubridge_memory_plugin_create(int device, void* out) { (void)device; (void)out; return 1; }\n")
    lib = tmp_path / f"libplugin{version}.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return str(lib)


def test_plugin_library_version_is_checked_when_loaded(tmp_path):
    lib = _build_plugin(tmp_path, 2)
    with pytest.raises(RuntimeError, match=r"memory plugin '.*libplugin2.so' implements interface version 2; "
                                           r"cubridge accepts version 1"):
        cubridge.set_memory_manager(lib)
    good = _build_plugin(tmp_path, 1)
    cubridge.set_memory_manager(good)
    assert cubridge.memory_manager_description() == good
    cubridge.set_memory_manager("default")


def test_plugin_library_that_cannot_load_names_the_path():
    with pytest.raises(RuntimeError, match=r"memory plugin library '/nonexistent/libx.so' could not be loaded"):
        cubridge.set_memory_manager("/nonexistent/libx.so")
