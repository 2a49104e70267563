"""The package as users lean on it: arrays never silently become object arrays, what can be pickled is and
the rest is refused by name, `cubridge info --json` / `cubridge cache info|clear`, output="llvm" and
inspect_llvm, logging, the toolkit found in NVIDIA's wheels and the environment variables documented."""
import json
import logging
import os
import pathlib
import pickle
import re
import site as site_module
import subprocess
import sys

import numpy as np
import pytest

import cubridge
from cubridge import _info

ROOT = pathlib.Path(__file__).resolve().parents[3]


@cubridge.jit
def module_level_kernel(x):
    i = cubridge.grid(1)
    if i < x.size:
        x[i] = 2.0 * x[i]


@cubridge.jit("void(float32[::1])")
def eager_kernel(x):
    x[0] = 1.0


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "cubridge", *args], capture_output=True, text=True, timeout=300,
                          env=env)


# Rule: np.asarray of a GPU array raises (as CuPy's does), naming .copy_to_host(); it never builds an object array.
@pytest.mark.gpu
def test_numpy_conversion_raises_and_names_copy_to_host():
    d = cubridge.to_device(np.arange(4, dtype=np.float32))
    with pytest.raises(TypeError, match=r"Implicit conversion of a cubridge\.DeviceArray to a NumPy array is not "
                                        r"allowed.*\.copy_to_host\(\)"):
        np.asarray(d)
    with pytest.raises(TypeError, match="copy_to_host"):
        np.array([d, d])


def test_numpy_conversion_of_a_described_array_raises_without_touching_memory():
    from conftest import described_address
    address, keep = described_address()
    a = cubridge.from_cuda_array_interface({"shape": (3,), "typestr": "<f4", "data": (address, False),
                                            "version": 3, "strides": None}, owner=keep, sync=False)
    with pytest.raises(TypeError, match=r"Implicit conversion .* \.copy_to_host\(\)"):
        np.asarray(a)


# Rule: arrays pickle through the host (as numba-cuda's and CuPy's do) and come back equal, on the current device.
@pytest.mark.gpu
@pytest.mark.parametrize("make", [
    lambda: cubridge.to_device(np.arange(12, dtype=np.float32).reshape(3, 4)),
    lambda: cubridge.to_device(np.asfortranarray(np.arange(6, dtype=np.int64).reshape(2, 3))),
    lambda: cubridge.to_device(np.arange(10, dtype=np.float64))[::2],
    lambda: cubridge.to_device(np.zeros(3, dtype=[("a", "<i4"), ("b", "<f8")])),
], ids=["c_order", "f_order", "strided", "records"])
def test_device_array_round_trips_through_pickle(make):
    d = make()
    back = pickle.loads(pickle.dumps(d))
    assert isinstance(back, cubridge.DeviceArray)
    assert back.ptr != d.ptr and back.shape == d.shape and back.dtype == d.dtype
    np.testing.assert_array_equal(back.copy_to_host(), d.copy_to_host())


@pytest.mark.gpu
def test_device_array_with_a_mask_is_refused():
    d = cubridge.to_device(np.arange(4, dtype=np.float32))
    m = cubridge.to_device(np.ones(4, dtype=np.bool_))
    cai = dict(d.__cuda_array_interface__, mask=m)
    masked = cubridge.from_cuda_array_interface(cai, owner=d)
    with pytest.raises(TypeError, match="CUDA Array Interface mask"):
        pickle.dumps(masked)


# Rule: kernels pickle by reference (module and qualified name); a kernel inside a function is refused by name.
def test_module_level_kernel_pickles_by_reference():
    data = pickle.dumps(module_level_kernel)
    assert b"module_level_kernel" in data and len(data) < 200  # a reference, not the code
    assert pickle.loads(data) is module_level_kernel


def test_local_kernel_pickles_by_value():
    @cubridge.jit
    def local(x):
        x[0] = 1

    back = pickle.loads(pickle.dumps(local))  # as numba-cuda: its code, globals and closure (test_kernel_pickle.py)
    assert back is not local and back.compile("void(float32[::1])").ptx == local.compile("void(float32[::1])").ptx


def test_kernel_pickles_into_another_process():
    code = ("import pickle, sys; sys.path.insert(0, %r); import test_package; "
            "k = pickle.loads(pickle.dumps(test_package.module_level_kernel)); "
            "print(k.__name__, k.compile('void(float32[::1])'))") % str(pathlib.Path(__file__).parent)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "module_level_kernel"


# Rule: the default streams and devices pickle as what they name; other streams, contexts, events are refused.
@pytest.mark.gpu
def test_devices_and_default_streams_pickle():
    assert pickle.loads(pickle.dumps(cubridge.Device(0))) == cubridge.Device(0)
    for s in (cubridge.legacy_default_stream(), cubridge.per_thread_default_stream()):
        assert pickle.loads(pickle.dumps(s)).cai_value == s.cai_value


@pytest.mark.gpu
def test_process_bound_objects_are_refused_by_name():
    with pytest.raises(TypeError, match="cannot pickle <cubridge.Stream.*create one with cubridge.stream"):
        pickle.dumps(cubridge.stream())
    with pytest.raises(TypeError, match="a context belongs to this process's CUDA context"):
        pickle.dumps(cubridge.current_context())
    with pytest.raises(TypeError, match="an event belongs|a event belongs"):
        pickle.dumps(cubridge.event())


# Rule: a launch with the wrong number of arguments says so as Python does, with the Python function's name.
@pytest.mark.gpu
def test_arity_error_names_the_python_function():
    d = cubridge.to_device(np.zeros(4, np.float32))
    with pytest.raises(TypeError, match=r"^eager_kernel\(\) takes 1 positional argument but 2 were given \(kernel "
                                        r"signature void\(float32\[::1\]\)\)$"):
        eager_kernel[1, 4](d, d)


# Rule: output="llvm" gives the NVVM IR text the front end hands to libNVVM; kernels show it per signature.
def test_output_llvm_is_the_nvvm_ir():
    def f(x, y):
        return x * y + 1.0

    ir, resty = cubridge.compile(f, "float32(float32, float32)", abi="c", output="llvm")
    assert isinstance(ir, str) and "define" in ir and "fmul" in ir and "@f(" in ir
    assert str(resty) == "float32"
    with pytest.raises(ValueError, match="output must be 'ptx', 'ltoir' or 'llvm'.*got 'llir'"):
        cubridge.compile(f, "float32(float32, float32)", output="llir")


def test_inspect_llvm_per_signature():
    module_level_kernel.compile("void(float32[::1])")
    llvm = module_level_kernel.inspect_llvm()
    assert [str(cubridge.KernelSignature(sig)) for sig in llvm] == module_level_kernel.signatures
    assert all("define" in text for text in llvm.values())


# Rule: compile timings and cache hits/misses go to logging.getLogger("cubridge") at DEBUG.
def test_compile_logs_timings(caplog):
    def g(x):
        return x + 1

    from cubridge import _compiler
    _compiler._toolkit_logged = False  # the toolkit is logged once per process, at the first compile logged
    with caplog.at_level(logging.DEBUG, logger="cubridge"):
        cubridge.compile(g, "int32(int32)")
    assert any(r.name == "cubridge" and re.search(r"compiled g for int32\(int32\) to ptx: parse .* libNVVM .* ms",
                                                  r.getMessage()) for r in caplog.records), caplog.text
    assert any(re.match(r"toolkit: libNVVM .* from .*libnvvm\.so.* \(.+\); searched ", r.getMessage())
               for r in caplog.records), caplog.text


# Rule: `cubridge info --json` reports each component with where it came from, the adapter, cache, peers, variables.
def test_info_json_reports_every_part():
    out = cli("info", "--json", env=dict(os.environ, CUBRIDGE_DISABLE_CACHE="1"))
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["cubridge"] == cubridge.__version__
    assert [c["name"] for c in r["toolkit"]] == ["libNVVM", "libdevice", "nvJitLink", "NVRTC", "ptxas"]
    for c in r["toolkit"]:
        assert set(c) >= {"found", "path", "version", "source", "origin", "searched", "error"}
        if c["found"]:
            assert c["source"] in ("variables", "wheels", "conda", "system", "loader") and c["origin"], c
    assert r["xla_ffi_adapter"] == {"built": True, "ffi_api_version": "0.3"}
    assert r["cache"]["enabled"] is False and r["cache"]["directory"]
    assert r["peers"]["numpy"] == np.__version__
    assert r["environment"]["CUBRIDGE_DISABLE_CACHE"] == "1"
    assert "available" in r["gpu"]


def test_info_text_says_where_each_component_came_from():
    out = cli("info")
    assert out.returncode == 0, out.stderr
    assert "(from " in out.stdout and "searched, in order:" in out.stdout and "XLA FFI adapter: built" in out.stdout


def test_cache_info_and_clear(tmp_path):
    env = dict(os.environ, CUBRIDGE_CACHE_DIR=str(tmp_path))
    cache = cubridge.CodeCache(str(tmp_path))
    cache.put(cubridge.CodeCache.make_key(["a"], False, False, False), b"x" * 100)
    # the entry, with its header (the cache's MAC key beside it is no entry)
    size = sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file() and p.name != "secret")
    assert size >= 100
    info = cli("cache", "info", env=env)
    assert info.returncode == 0, info.stderr
    assert info.stdout.strip() == f"{tmp_path}: 1 file(s), {size} B"
    cleared = cli("cache", "clear", env=env)
    assert cleared.returncode == 0 and cleared.stdout.strip() == f"cleared {tmp_path}: 1 file(s), {size} B removed"
    assert cli("cache", "info", env=env).stdout.strip() == f"{tmp_path}: 0 file(s), 0 B"
    bad = cli("cache", "shrink", env=env)
    assert bad.returncode == 2 and "invalid choice: 'shrink'" in bad.stderr


# Rule: NVIDIA's wheels (site-packages/nvidia/cu13) are found with no system toolkit, and reported as such.
def test_toolkit_found_in_a_wheel_layout_alone(tmp_path):
    site = tmp_path / "site"
    home = site / "nvidia" / "cu13"
    (home / "lib").mkdir(parents=True)
    (home / "nvvm" / "libdevice").mkdir(parents=True)
    found = {c["name"]: c["path"] for c in cubridge.toolkit_info()}
    for name in ("libNVVM", "nvJitLink", "NVRTC"):
        os.symlink(found[name], home / "lib" / os.path.basename(found[name]))
    os.symlink(found["libdevice"], home / "nvvm" / "libdevice" / "libdevice.10.bc")
    env = {k: v for k, v in os.environ.items() if k not in ("CUBRIDGE_CUDA_HOME", "CUDA_HOME", "CUDA_PATH")}
    env.update(PYTHONPATH=os.pathsep.join([str(site), env.get("PYTHONPATH", "")]), CUBRIDGE_TOOLKIT_SEARCH="wheels")
    code = ("import cubridge, json\n"
            "def f(x):\n    return x * 2.0\n"
            "ptx, _ = cubridge.compile(f, 'float32(float32)')\n"
            "print(json.dumps([cubridge.toolkit_component(n) for n in ('libNVVM', 'libdevice', 'NVRTC', 'nvJitLink')]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    # The search reads the environment's own site-packages before sys.path's other entries (cuda-pathfinder's
    # order), component by component: where the interpreter itself has some of NVIDIA's wheels (the GPU
    # machine's venv has NVRTC and nvJitLink but not libNVVM), those components come from there.
    own = [p for p in [*site_module.getsitepackages(), site_module.getusersitepackages()]
           if os.path.isdir(os.path.join(p, "nvidia", "cu13"))]
    candidates = [pathlib.Path(p) for p in own] + [site]
    prefix = "nvidia-* wheels in "
    for c in json.loads(out.stdout):
        assert c["found"] and c["source"] == "wheels", c
        homes = [s for s in candidates if os.path.normpath(c["path"]).startswith(os.path.normpath(s / "nvidia" / "cu13"))]
        assert homes, c
        assert c["origin"].startswith(prefix) and os.path.samefile(c["origin"][len(prefix):], homes[0]), c


def test_missing_toolkit_says_which_wheel_to_install(tmp_path):
    env = dict(os.environ, CUBRIDGE_TOOLKIT_SEARCH="wheels", PYTHONPATH=os.environ.get("PYTHONPATH", ""))
    code = "import cubridge\ndef f(x):\n    return x\ncubridge.compile(f, 'int32(int32)')\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env,
                         cwd=tmp_path)
    assert out.returncode != 0
    assert "cubridge.ToolkitError: cannot find libNVVM" in out.stderr
    assert "`pip install cubridge[cu13]`; libNVVM comes in nvidia-nvvm" in out.stderr


def test_bad_toolkit_search_is_refused_by_name():
    out = cli("info", "--json", env=dict(os.environ, CUBRIDGE_TOOLKIT_SEARCH="pip"))
    assert out.returncode == 0, out.stderr
    assert "CUBRIDGE_TOOLKIT_SEARCH='pip': 'pip' is not a place to search" in json.loads(out.stdout)["toolkit_error"]


# Rule: the README's environment-variable table lists every variable cubridge reads, and no other.
def test_readme_lists_every_environment_variable():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Finding the toolkit, diagnostics, environment variables"):]
    section = section[:section.index("\n## ", 4)]
    listed = set(re.findall(r"^\| `(CUBRIDGE_[A-Z_]+)`", section, re.M))
    assert listed == set(_info.ENVIRONMENT_VARIABLES)
