"""nvJitLink from Python and the link example: NVRTC LTO-IR of a CUDA C++ kernel + libNVVM LTO-IR of
f(x, y) = x*y + 1, linked with LTO (f inlined); on a GPU, run through CuPy over a large array."""
import os
import sys

import pytest

import cubridge

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "link"))
import link_example as ex  # noqa: E402

ARCH = (9, 0)


def test_link_example_inlines_f():
    body = ex.entry_body(ex.linked_ptx(ARCH))
    assert "call" not in body, body
    assert "fma.rn.f32" in body
    # 16-byte loads and stores for aligned arrays, then the element-by-element tail
    assert "ld.global.nc.v4.f32" in body and "st.global.v4.f32" in body and "st.global.f32" in body, body
    assert ex.transform_blocks(1) == 1 and ex.transform_blocks(1024) == 1 and ex.transform_blocks(1025) == 2
    assert ex.transform_blocks(1 << 26) == (1 << 26) // 1024
    cubin = ex.linked_cubin(ARCH)
    assert cubin[:4] == b"\x7fELF"


def test_python_function_links_into_the_cuda_kernel():
    if not hasattr(cubridge, "compile"):
        pytest.skip("the front end (cubridge.compile) is not part of this build")
    body = ex.entry_body(cubridge.link([ex.kernel_ltoir(ARCH), ex.python_f_ltoir(ARCH)], ARCH, output="ptx"))
    assert "call" not in body, body


def test_linker_class_and_kinds(tmp_path):
    k = ex.kernel_ltoir(ARCH)
    f = ex.f_ltoir(ARCH)
    path = tmp_path / "f.ltoir"
    path.write_bytes(f)
    linker = cubridge.Linker(ARCH).add(k).add(path)  # NvrtcResult; a path (kind from the extension)
    assert linker.input_count == 2
    assert linker.options == ["-arch=sm_90", "-O3", "-lto", "-ftz=0", "-prec-div=1", "-prec-sqrt=1", "-fma=1"]
    r = linker.link(ptx=True)
    assert r.cubin[:4] == b"\x7fELF" and ".entry transform" in r.ptx
    assert "inputs=2" in repr(linker)
    fast = cubridge.Linker("sm_90", fastmath=True, lto=True)
    assert "-ftz=1" in fast.options and "-prec-div=0" in fast.options


def test_link_ptx_inputs_without_lto():
    f_ptx = cubridge.nvvm_compile(ex.F_NVVM_IR + cubridge._core._nvvm_ir_version_metadata(), ARCH)
    k_ptx = cubridge.nvrtc_compile(ex.KERNEL_SOURCE, "t.cu", ARCH, relocatable=True).code
    cubin = cubridge.link([k_ptx, ("ptx", f_ptx, "f.ptx")], ARCH, lto=False)
    assert cubin[:4] == b"\x7fELF"


def _nvcc():
    ptxas = next(c["path"] for c in cubridge.toolkit_info() if c["name"] == "ptxas")
    nvcc = os.path.join(os.path.dirname(ptxas), "nvcc")
    return nvcc if os.path.isfile(nvcc) else None


@pytest.mark.parametrize("kind, flags", [("fatbin", ["-fatbin"]), ("object", ["-c"])])
def test_links_nvcc_outputs(tmp_path, kind, flags):
    import subprocess
    nvcc = _nvcc()
    if nvcc is None:
        pytest.skip("no nvcc next to ptxas")
    src = tmp_path / "k.cu"
    src.write_text(ex.KERNEL_SOURCE)
    out = tmp_path / ("k.fatbin" if kind == "fatbin" else "k.o")
    subprocess.run([nvcc, "-gencode", "arch=compute_90,code=lto_90", "-rdc=true", *flags, str(src), "-o", str(out)],
                   check=True, capture_output=True)
    ptx = cubridge.link([out, ex.f_ltoir(ARCH)], ARCH, output="ptx")  # kind from the extension
    assert "call" not in ex.entry_body(ptx)
    assert cubridge.link([(kind, out.read_bytes()), ex.f_ltoir(ARCH)], ARCH)[:4] == b"\x7fELF"


def test_link_errors_carry_the_log():
    with pytest.raises(cubridge.LinkError, match="nvJitLink failed: nvJitLinkComplete returned") as info:
        cubridge.link([ex.kernel_ltoir(ARCH)], ARCH)
    assert info.value.log
    with pytest.raises(TypeError, match=r"link input 42 \(int\) is not code: expected bytes or str"):
        cubridge.link([42], ARCH)
    with pytest.raises(ValueError, match="cannot tell what kind of link input"):
        cubridge.link([b"\x01\x02\x03 not code"], ARCH)
    with pytest.raises(ValueError, match="kind 'elf' is not valid; expected one of 'ptx', 'ltoir'"):
        cubridge.Linker(ARCH).add(b"x", "elf")
    with pytest.raises(ValueError, match="output 'sass' is not valid; expected 'cubin' or 'ptx'"):
        cubridge.link([], ARCH, output="sass")
    with pytest.raises(ValueError, match="opt level 2 is not valid; nvJitLink accepts 0 or 3"):
        cubridge.Linker(ARCH, opt=2)
    with pytest.raises(ValueError, match="no inputs"):
        cubridge.Linker(ARCH).link()
    with pytest.raises(ValueError, match=r"linked PTX exists only with LTO \(lto=true\); got lto=false"):
        cubridge.Linker(ARCH, lto=False).add_ptx(".version 8.0\n").link(ptx=True)


def test_link_needs_an_arch_without_a_gpu():
    if cubridge.driver_available():
        pytest.skip("a GPU is present: arch defaults to its compute capability")
    with pytest.raises(ValueError, match="Linker: arch is required on a machine without a usable GPU"):
        cubridge.Linker()


@pytest.mark.gpu
def test_gpu_link_example_runs():
    pytest.importorskip("cupy")
    # measure() asserts the result; the figures are printed only (benchmarks are never timed tests: the
    # issue's targets are judged by bench/bench_link.py).
    m = ex.measure(1 << 24, repeats=11)
    print(f"linked {m['linked']:.4f} ms, CUDA C++ {m['reference']:.4f} ms, "
          f"{m['kernel_gbs']:.0f} GB/s vs copy {m['copy_gbs']:.0f} GB/s")
    assert m["linked"] > 0 and m["reference"] > 0 and m["copy"] > 0


@pytest.mark.gpu
def test_gpu_python_function_in_the_cuda_kernel():
    pytest.importorskip("cupy")
    if not hasattr(cubridge, "compile"):
        pytest.skip("the front end (cubridge.compile) is not part of this build")
    arch = tuple(cubridge.Device(0).compute_capability)
    m = ex.measure(1 << 22, repeats=5, f=ex.python_f_ltoir(arch))  # asserts out == a * b + 1
    assert m["linked"] > 0


@pytest.mark.gpu
def test_gpu_link_default_arch_is_the_device():
    cc = tuple(cubridge.Device(0).compute_capability)
    assert cubridge.Linker().arch == cc


# ---- issue 25: untrusted LTO-IR and fork() (docs/linking.md) ----

def _own_ltoir() -> bytes:
    def f(x, y):
        return x * y + 1.0
    code, _ = cubridge.compile(f, "float32(float32, float32)", device=True, abi="c", cc=(9, 0), output="ltoir")
    return code


def test_corrupt_ltoir_with_a_valid_header_is_a_link_error_not_a_crash():
    """One header byte of our own output changed made nvJitLinkComplete segfault in-process; LTO-IR that
    cubridge did not make in this process now links in a child process."""
    import subprocess
    script = ("import cubridge\n"
              "def f(x, y):\n    return x * y + 1.0\n"
              "code, _ = cubridge.compile(f, 'float32(float32, float32)', device=True, abi='c', cc=(9, 0), "
              "output='ltoir')\n"
              "bad = bytearray(code); bad[0x13] = 0x43\n"
              "try:\n    cubridge.link([('ltoir', bytes(bad), 'bad.ltoir')], (9, 0))\n"
              "except cubridge.LinkError as e:\n    print('LinkError:', e)\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 0, r.stderr
    assert "LinkError: nvJitLink crashed (signal 11" in r.stdout or "LinkError: nvJitLink failed" in r.stdout, r.stdout
    assert "'bad.ltoir' (not produced by cubridge in this process) in an isolated process" in r.stdout


def test_bytes_without_the_ltoir_magic_are_refused_naming_the_input():
    with pytest.raises(cubridge.LinkError, match=r"the ltoir input 'x\.ltoir' \(64 bytes\) is not LTO-IR: expected "
                                                 r"the LTO-IR magic 0x7F4E43ED"):
        cubridge.link([("ltoir", b"\0" * 64, "x.ltoir")], (9, 0))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_os_fork_while_another_thread_links_leaves_the_child_able_to_link():
    """About 1 fork in 15 made while another thread was inside nvJitLink gave a child stuck on its mutex."""
    import threading
    import time
    ltoir = _own_ltoir()
    stop = threading.Event()

    def keep_linking():
        while not stop.is_set():
            cubridge.link([("ltoir", ltoir, "f.ltoir")], (9, 0))

    worker = threading.Thread(target=keep_linking)
    worker.start()
    stuck = 0
    try:
        for _ in range(20):
            pid = os.fork()
            if pid == 0:
                try:
                    ok = len(cubridge.link([("ltoir", ltoir, "f.ltoir")], (9, 0))) > 0
                finally:
                    os._exit(0 if ok else 1)
            deadline = time.monotonic() + 60
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    stuck += 1
                    break
                time.sleep(0.01)
    finally:
        stop.set()
        worker.join()
    assert stuck == 0
