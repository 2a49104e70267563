"""Toolkit discovery, libNVVM and NVRTC from Python, ptxas, the code cache, and `cubridge info`."""
import os
import subprocess
import sys

import pytest

import cubridge

IR_F = """target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define float @f(float %x, float %y) {
  %m = fmul float %x, %y
  %r = fadd float %m, 1.0
  ret float %r
}
"""
IR_SQRT = """target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare float @__nv_sqrtf(float)
define float @g(float %x) {
  %r = call float @__nv_sqrtf(float %x)
  ret float %r
}
"""


def with_version(ir):
    return ir + cubridge._core._nvvm_ir_version_metadata()


def test_toolkit_info_reports_every_component():
    info = cubridge.toolkit_info()
    assert [c["name"] for c in info] == ["libNVVM", "libdevice", "nvJitLink", "NVRTC", "ptxas"]
    for c in info:
        assert set(c) == {"name", "found", "path", "version", "source", "origin", "searched", "error"}
        assert c["found"], c["error"]  # both machines have the whole toolkit
        assert os.path.isfile(c["path"])
        assert c["version"]
        assert c["searched"] and c["searched"][-1] == c["path"]
    nvvm = info[0]
    assert "NVVM IR 2." in nvvm["version"]


def test_cli_info_prints_the_toolkit():
    out = subprocess.run([sys.executable, "-m", "cubridge", "info"], capture_output=True, text=True,
                         check=True).stdout
    assert "libNVVM" in out and "nvJitLink" in out and "NVRTC" in out and "libdevice" in out


def test_nvvm_supported_archs():
    archs = cubridge.nvvm_supported_archs()
    assert archs == sorted(archs)
    assert (9, 0) in archs
    assert archs[0] >= (5, 0)


def test_nvvm_compile_ptx_and_ltoir():
    ptx = cubridge.nvvm_compile(with_version(IR_F), (9, 0))
    assert isinstance(ptx, str)
    assert ".visible .func  (.param .b32 func_retval0) f(" in ptx
    assert ".target sm_90" in ptx
    assert cubridge.ptxas_check(ptx, (9, 0))
    lto = cubridge.nvvm_compile(with_version(IR_F), "sm_90", output="ltoir")
    assert isinstance(lto, bytes) and lto[:4] == b"\xedCN\x7f"
    default = cubridge.nvvm_compile(with_version(IR_F))  # arch: max(5.0, lowest supported)
    lowest = max((5, 0), cubridge.nvvm_supported_archs()[0])
    assert f".target sm_{lowest[0]}{lowest[1]}" in default


def test_nvvm_libdevice_and_fastmath():
    ir = with_version(IR_SQRT)
    assert "__nv_sqrtf" in cubridge.nvvm_compile(ir, (9, 0))  # left external without libdevice
    precise = cubridge.nvvm_compile(ir, (9, 0), libdevice=True)
    assert "__nv_sqrtf" not in precise and "sqrt.rn.f32" in precise
    fast = cubridge.nvvm_compile(ir, (9, 0), libdevice=True, fastmath=True)
    assert "sqrt.approx.ftz.f32" in fast


def test_nvvm_several_modules_and_bytes():
    caller = with_version('target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"\n'
                          'target triple = "nvptx64-nvidia-cuda"\ndeclare float @f(float, float)\n'
                          "define float @h(float %x) {\n  %r = call float @f(float %x, float %x)\n"
                          "  ret float %r\n}\n")
    ptx = cubridge.nvvm_compile([caller.encode(), with_version(IR_F)], (9, 0))
    assert " h(" in ptx and " f(" in ptx


def test_nvvm_errors():
    bad = with_version('target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"\n'
                       "define float @f(float %x) {\n  ret i32 %x\n}\n")
    with pytest.raises(cubridge.NvvmError, match="libNVVM failed: nvvmCompileProgram") as info:
        cubridge.nvvm_compile(bad, (9, 0))
    assert info.value.log and info.value.log in str(info.value)
    assert isinstance(info.value, cubridge.ToolkitError) and isinstance(info.value, RuntimeError)
    with pytest.raises(ValueError, match="output 'sass' is not valid; expected 'ptx' or 'ltoir'"):
        cubridge.nvvm_compile(IR_F, (9, 0), output="sass")
    with pytest.raises(ValueError, match="opt level 7 is not valid; libNVVM accepts 0 to 3"):
        cubridge.nvvm_compile(with_version(IR_F), (9, 0), opt=7)
    if (3, 0) not in cubridge.nvvm_supported_archs():
        with pytest.raises(ValueError, match=r"compute capability 3\.0 is not supported by this libNVVM; "
                                             r"it accepts compute capabilities \d+\.\d to \d+\.\d"):
            cubridge.nvvm_compile(with_version(IR_F), (3, 0))
    with pytest.raises(TypeError, match=r"arch 9\.0 is not a compute capability; expected a \(major, minor\)"):
        cubridge.nvvm_compile(IR_F, 9.0)
    with pytest.raises(TypeError, match="nvvm_compile: module: expected str or bytes, got int"):
        cubridge.nvvm_compile([IR_F, 42], (9, 0))
    with pytest.raises(ValueError, match="compute capability 'sm_nine' is not valid"):
        cubridge.nvvm_compile(IR_F, "sm_nine")


SAXPY = """extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}"""


def test_nvrtc_outputs():
    r = cubridge.nvrtc_compile(SAXPY, "saxpy.cu", (9, 0))
    assert isinstance(r.code, str) and ".visible .entry saxpy(" in r.code
    assert cubridge.ptxas_check(r.code, "sm_90")
    lto = cubridge.nvrtc_compile(SAXPY, "saxpy.cu", 90, output="ltoir")
    assert isinstance(lto.code, bytes) and lto.code[:4] == b"\xedCN\x7f"
    cubin = cubridge.nvrtc_compile(SAXPY, "saxpy.cu", "9.0", output="cubin")
    assert cubin.code[:4] == b"\x7fELF"


def test_nvrtc_headers_and_lowered_names():
    r = cubridge.nvrtc_compile(
        '#include "twice.h"\ntemplate <class T> __global__ void scale(T* p) { p[threadIdx.x] = twice(p[threadIdx.x]); }\n',
        "scale.cu", (9, 0), headers={"twice.h": "template <class T> __device__ T twice(T x) { return x + x; }\n"},
        name_expressions=["&scale<float>"])
    assert r.lowered_names == {"&scale<float>": "_Z5scaleIfEvPT_"}


def test_nvrtc_errors():
    with pytest.raises(cubridge.NvrtcError, match="NVRTC failed: nvrtcCompileProgram of 'broken.cu'") as info:
        cubridge.nvrtc_compile("__global__ void k() { undeclared_thing(); }", "broken.cu", (9, 0))
    assert "undeclared_thing" in info.value.log
    with pytest.raises(ValueError, match="output 'exe' is not valid; expected 'ptx', 'ltoir' or 'cubin'"):
        cubridge.nvrtc_compile(SAXPY, "s.cu", (9, 0), output="exe")
    with pytest.raises(ValueError, match="compute capability 2.0 is not supported by this NVRTC"):
        cubridge.nvrtc_compile(SAXPY, "s.cu", (2, 0))


def test_nvrtc_needs_an_arch_without_a_gpu():
    if cubridge.driver_available():
        pytest.skip("a GPU is present: arch defaults to its compute capability")
    with pytest.raises(ValueError, match="nvrtc_compile: arch is required on a machine without a usable GPU"):
        cubridge.nvrtc_compile(SAXPY)


def test_ptxas_check_failure():
    r = cubridge.ptxas_check(".version 8.0\n.target sm_90\n.address_size 64\nnot ptx\n", (9, 0))
    assert not r and r.exit_code != 0 and r.log
    assert "ok=False" in repr(r)


def test_code_cache_roundtrip(tmp_path, monkeypatch):
    monkeypatch.delenv("CUBRIDGE_DISABLE_CACHE", raising=False)
    cache = cubridge.CodeCache(str(tmp_path / "cache"))
    key = cubridge.CodeCache.make_key(["def f(x): return x", "float32(float32)", "-opt=3"])
    assert key != cubridge.CodeCache.make_key(["def f(x): return x", "float32(float32)", "-opt=0"])
    assert cache.get(key) is None
    assert cache.put(key, b"\x00ltoir\xff")
    assert cache.get(key) == b"\x00ltoir\xff"
    path = cache.path_for(key)
    with open(path, "r+b") as fh:  # corrupt it: a miss, not an error
        fh.seek(-1, 2)
        fh.write(b"!")
    assert cache.get(key) is None
    assert cache.clear() == 1


def test_code_cache_refuses_a_directory_others_may_write_with_one_warning(tmp_path, monkeypatch):
    """Issue 25 class 5 (docs/code-cache.md): a cache directory group or others may write to is not used;
    Python gets one RuntimeWarning per directory, and compiling goes on without the cache."""
    import warnings
    monkeypatch.delenv("CUBRIDGE_DISABLE_CACHE", raising=False)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    cache = cubridge.CodeCache(str(shared))
    with pytest.warns(RuntimeWarning, match=r"the code cache directory .*shared is writable by group or others "
                                            r"\(mode 0777.*; compiling without the on-disk cache"):
        assert not cache.put("k", b"v")
    assert "writable by group or others (mode 0777" in cache.problem
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per directory: no second warning
        assert cache.get("k") is None
    assert os.listdir(shared) == []
    monkeypatch.setenv("CUBRIDGE_CACHE_DIR", str(shared))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ptx, _ = cubridge.compile_ptx(add_two, "float32(float32, float32)", device=True, cc=(9, 0))
    assert ".func" in ptx
    assert cubridge.CodeCache(str(tmp_path / "mine")).problem == ""  # not created yet: no problem


def add_two(x, y):
    return x + y


def test_code_cache_default_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("CUBRIDGE_CACHE_DIR", str(tmp_path))
    assert cubridge.CodeCache.default_directory() == str(tmp_path)
    assert cubridge.CodeCache().directory == str(tmp_path)
