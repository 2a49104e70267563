"""The package as a user installs it: `pip wheel .` **with build isolation** (pip brings scikit-build-core
and nanobind from PyPI into a throw-away environment: no jax, nothing of this environment's packages) gives a
wheel that installs into a fresh virtual environment pulling only numpy; with the `[cu13,jax]` extras, and the
system's CUDA toolkit hidden from discovery (CUBRIDGE_TOOLKIT_SEARCH without "system", no CUDA variables),
`cubridge info --json` finds libNVVM, libdevice, NVRTC and nvJitLink in NVIDIA's wheels, the XLA FFI adapter is
built, and `cubridge demo` (its CPU steps) and every CPU example of the README run as written, the custom
call included.

One build: the wheel is built in the package's build tree (build/py, the tree scripts/test's install just
built), so only what isolation changes is rebuilt (nanobind's own sources, found in the isolated environment).
It needs PyPI (or pip's cache), so it runs where CUBRIDGE_WHEEL_TEST=1: scripts/test sets it; the GPU machine,
which reaches no index, does not."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from test_readme import blocks, run_block

ROOT = pathlib.Path(__file__).resolve().parents[3]
TOOLKIT_WHEELS = {"nvidia-nvvm", "nvidia-cuda-nvrtc", "nvidia-nvjitlink"}

pytestmark = pytest.mark.skipif(os.environ.get("CUBRIDGE_WHEEL_TEST") != "1",
                                reason="builds and installs a wheel from PyPI: runs where CUBRIDGE_WHEEL_TEST=1 "
                                       "(scripts/test sets it)")


def run(step, *cmd, timeout=900, **kw):
    out = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)
    if out.returncode != 0:
        pytest.fail(f"wheel check: {step} failed (exit {out.returncode}): {' '.join(map(str, cmd))}\n"
                    f"--- stdout:\n{out.stdout[-4000:]}\n--- stderr:\n{out.stderr[-4000:]}", pytrace=False)
    return out.stdout


def without_system_toolkit(env):
    """`env` where the only toolkit cubridge may find is NVIDIA's wheels in the venv."""
    env = {k: v for k, v in env.items() if k not in ("CUBRIDGE_CUDA_HOME", "CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX")}
    env["CUBRIDGE_TOOLKIT_SEARCH"] = "variables,wheels,conda"  # not /usr/local/cuda, nvcc, the loader's path
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep)
                                  if d and not os.path.exists(os.path.join(d, "nvcc")))
    return env


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A fresh virtual environment with the wheel installed: its bin folder, the wheel, the environment to run
    in, and `pip list` before the extras."""
    work = tmp_path_factory.mktemp("wheel")
    run("pip wheel . (isolated build)", sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
        "-C", "build-dir=build/py", "-w", work, ROOT, cwd=ROOT)
    wheels = list(work.glob("cubridge-*.whl"))
    assert len(wheels) == 1, f"pip wheel . left {wheels} in {work}"
    run("python -m venv", sys.executable, "-m", "venv", work / "venv")
    bin_dir = work / "venv" / "bin"
    # A clean environment for pip and for what runs in the venv: nothing of this one's packages leaks in.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    run("pip install the wheel", bin_dir / "python", "-m", "pip", "install", "-q", wheels[0], env=env)
    installed = run("pip list", bin_dir / "python", "-m", "pip", "list", "--format=freeze", env=env)
    run("pip install the [cu13,jax] extras", bin_dir / "python", "-m", "pip", "install", "-q",
        f"{wheels[0]}[cu13,jax]", env=env)
    # The README's drop-in example compiles a numba program: numba's own numba.cuda is enough on a machine
    # without a GPU (the [numba] extra brings numba-cuda, which GPU users want), and pip's cache has it.
    run("pip install numba", bin_dir / "python", "-m", "pip", "install", "-q", "numba", env=env)
    return bin_dir, wheels[0], without_system_toolkit(env), installed


def test_the_wheel_brings_numpy_and_nothing_else(venv):
    _, _, _, installed = venv
    names = {line.split("==")[0].lower() for line in installed.splitlines() if "==" in line}
    assert names - {"pip", "setuptools"} == {"cubridge", "numpy"}, names  # setuptools: Python < 3.12's venv


def test_the_command_runs_in_the_fresh_venv(venv):
    bin_dir, wheel, env, _ = venv
    version = run("cubridge --version", bin_dir / "cubridge", "--version", env=env)
    assert version.split()[-1] in wheel.name, (version, wheel.name)
    info = run("cubridge info", bin_dir / "cubridge", "info", env=env)
    assert str(bin_dir / "python") in info and "CUDA toolkit components:" in info, info
    demo = run("cubridge demo", bin_dir / "cubridge", "demo", env=env)
    assert "cubridge demo: every check passed" in demo, demo


def test_info_finds_the_toolkit_in_the_wheels_alone(venv):
    bin_dir, _, env, _ = venv
    report = json.loads(run("cubridge info --json", bin_dir / "cubridge", "info", "--json", env=env))
    site = run("site-packages", bin_dir / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))",
               env=env).strip()
    found = {c["name"]: c for c in report["toolkit"]}
    for name in ("libNVVM", "libdevice", "nvJitLink", "NVRTC"):
        c = found[name]
        assert c["found"] and c["source"] == "wheels", c
        assert c["path"].startswith(os.path.join(site, "nvidia", "cu13") + os.sep), (c["path"], site)
    assert all(h["source"] != "system" for h in report["toolkit_homes"]), report["toolkit_homes"]
    assert report["xla_ffi_adapter"]["built"], report["xla_ffi_adapter"]
    assert TOOLKIT_WHEELS <= {k for k, v in report["peers"].items() if v}, report["peers"]
    assert report["environment"]["CUBRIDGE_TOOLKIT_SEARCH"] == "variables,wheels,conda"


@pytest.mark.parametrize("code", blocks("cpu"))
def test_readme_cpu_examples_run_as_written(venv, code, tmp_path):
    bin_dir, _, env, _ = venv
    run_block(code, tmp_path, python=bin_dir / "python", env=env)
