"""`cubridge demo`, the main job: without a GPU steps 1-2 run (prototype lines, inlining, ptxas) and the
GPU steps say why they were skipped, exit 0; a failed check exits 1 naming what differed; on a GPU every
step runs (three memory managers, CuPy/PyTorch inputs, jax.jit) and passes."""
import subprocess
import sys

import numpy as np
import pytest

from conftest import GPU_REASON

from cubridge import demo
from cubridge.demo import functions, gpu_run, transform
from cubridge.demo.report import CheckFailed


def run_demo(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "cubridge", "demo", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.skipif(GPU_REASON is None, reason="a GPU is usable here: the GPU test covers the full run")
def test_cpu_steps_run_and_gpu_steps_say_why_they_were_skipped():
    out = run_demo()
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert ".visible .func (.param .b32 func_retval0) f(.param .b32 f_param_0, .param .b32 f_param_1)" in text
    assert ".visible .func (.param .b32 func_retval0) g(.param .b32 g_param_0, .param .b32 g_param_1)" in text
    assert "f inlined into transform_f: no call left in the linked PTX" in text
    assert "g inlined into transform_g: no call left in the linked PTX" in text
    assert "ptxas assembles the linked PTX for sm_90" in text
    assert "kernel parameters for cubridge.load_kernel: const float32*, const float32*, float32*, uint64" in text
    assert f"== 3-4. GPU steps, skipped: no GPU: {GPU_REASON}\n" \
           "   skipped: running the kernels (step 3)\n" \
           "   skipped: the XLA custom call under jax.jit (step 4)\n" in text
    assert text.count(GPU_REASON) == 1, text  # said once, not once per skipped step
    for row in ("compile f to LTO-IR", "compile g to LTO-IR", "NVRTC + nvJitLink: kernels to cubin"):
        assert row in text, text
    assert "cubridge demo: every check passed (2 skipped)" in text


def test_bad_size_is_refused_with_the_value():
    out = run_demo("--size", "0")
    assert out.returncode == 2
    assert "cubridge demo: --size 0 is not a positive number of elements" in out.stderr


def test_a_failed_check_exits_1_and_says_what_differed(monkeypatch, capsys):
    real = transform.entry_body

    def not_inlined(ptx, name="transform"):
        return real(ptx, name) + "\n\tcall.uni (retval0), f, (param0, param1);"
    monkeypatch.setattr(transform, "entry_body", not_inlined)
    monkeypatch.setattr(demo, "gpu_unavailable", lambda: "not asked in this test")
    assert demo.main(type("Args", (), {"size": 16})()) == 1
    err = capsys.readouterr().err
    assert "cubridge demo: FAILED: f was not inlined into transform_f: the linked PTX still has " \
           "'call.uni (retval0), f, (param0, param1);'" in err


def test_compare_names_the_first_differing_element():
    want = np.arange(5, dtype=np.float32)
    got = want.copy()
    got[3] = 7
    with pytest.raises(CheckFailed, match=r"transform_f: out\[3\] = 7\.0, NumPy says 3\.0 \(1 of 5 elements differ "
                                          r"by more than rtol=1e-06, atol=0\.0\)"):
        gpu_run.compare("transform_f", got, want, 1e-6, 0.0)
    assert gpu_run.compare("transform_f", want, want, 1e-6, 0.0) == 0.0


def test_numpy_twins_follow_the_python_functions():
    a, b = gpu_run.demo_inputs(4096)
    for name, (fn, twin) in functions.FUNCTIONS.items():
        want = np.array([fn(float(x), float(y)) for x, y in zip(a[:200], b[:200])], dtype=np.float32)
        np.testing.assert_allclose(twin(a[:200], b[:200]), want, rtol=1e-5, atol=1e-5, err_msg=name)
    # Products of the inputs are exact in float32, so f's fused multiply-add equals NumPy's a * b + 1.
    np.testing.assert_array_equal(a.astype(np.float64) * b, (a * b).astype(np.float64))


def test_ptx_prototype_of_a_missing_function_says_so():
    with pytest.raises(ValueError, match=r"the PTX has no \.visible \.func h\(\.\.\.\)"):
        functions.ptx_prototype(".version 8.0\n.visible .func (.param .b32 r) f(.param .b32 p)\n", "h")


def test_child_usage_is_explained():
    out = subprocess.run([sys.executable, "-m", "cubridge.demo.gpu_run", "pinned", "x.cubin", "8"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "usage: python -m cubridge.demo.gpu_run {default,async,cupy} CUBIN N; got ['pinned', 'x.cubin', '8']" \
        in out.stderr


@pytest.mark.gpu
def test_every_step_passes_on_the_gpu():
    out = run_demo("--size", str(1 << 20), timeout=600)
    assert out.returncode == 0, f"stdout:\n{out.stdout}\nstderr:\n{out.stderr}"
    text = out.stdout
    assert "skipped:" not in text, text  # the GPU machine has CuPy, PyTorch and JAX
    for manager in ("'default'", "'async'", "'python:cubridge.interop.cupy.CuPyMemoryManager'"):
        assert f"served by {manager}" in text, text
    assert "inputs: a from CuPy, b from PyTorch" in text, text
    for name in ("f", "g"):
        assert text.count(f"transform_{name}: matches NumPy") == 3, text
        assert f"jit(transform_{name}): matches NumPy" in text, text
        assert f"jax.jit kernel_call {name}" in text, text
    assert "cubridge demo: every check passed" in text, text


def test_numpy_row_stack_is_lent_to_numba_only_while_it_runs(monkeypatch):
    import numpy
    monkeypatch.delattr(numpy, "row_stack", raising=False)  # NumPy >= 2.5 has none (conftest lends one)
    with functions.numpy_row_stack_for_numba():
        assert numpy.row_stack is numpy.vstack
    assert not hasattr(numpy, "row_stack"), "the demo left numpy.row_stack in the user's numpy"
    own = object()
    monkeypatch.setattr(numpy, "row_stack", own, raising=False)  # a NumPy that has its own is left alone
    with functions.numpy_row_stack_for_numba():
        assert numpy.row_stack is own
    assert numpy.row_stack is own
