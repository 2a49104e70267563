"""The package as a user installs it: `pip wheel .` gives a wheel that installs into a fresh virtual
environment, pulling only numpy (from PyPI or pip's cache), where `cubridge --version`, `cubridge info`,
`cubridge demo` (its CPU steps, on a machine without a GPU) and the README's CPU examples run; the example
that needs JAX runs once the `[jax]` extra is installed, as the README says.

The wheel is packed from the package's build tree (build/py, the tree scripts/test's install just built),
so this costs the packing, a venv and the installs, not a rebuild. It needs this environment's build tools
(scikit-build-core, nanobind: --no-build-isolation) and PyPI, so it runs where CUBRIDGE_WHEEL_TEST=1:
scripts/test sets it; the GPU machine, which reaches no index, does not."""
import os
import pathlib
import subprocess
import sys

import pytest

from test_readme import blocks, run_block

ROOT = pathlib.Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(os.environ.get("CUBRIDGE_WHEEL_TEST") != "1",
                                reason="builds and installs a wheel from PyPI: runs where CUBRIDGE_WHEEL_TEST=1 "
                                       "(scripts/test sets it)")


def run(step, *cmd, timeout=600, **kw):
    out = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)
    if out.returncode != 0:
        pytest.fail(f"wheel check: {step} failed (exit {out.returncode}): {' '.join(map(str, cmd))}\n"
                    f"--- stdout:\n{out.stdout[-4000:]}\n--- stderr:\n{out.stderr[-4000:]}", pytrace=False)
    return out.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A fresh virtual environment with the wheel and its dependencies installed; its bin folder."""
    work = tmp_path_factory.mktemp("wheel")
    run("pip wheel .", sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps",
        "-C", "build-dir=build/py", "-w", work, ROOT, cwd=ROOT)
    wheels = list(work.glob("cubridge-*.whl"))
    assert len(wheels) == 1, f"pip wheel . left {wheels} in {work}"
    run("python -m venv", sys.executable, "-m", "venv", work / "venv")
    bin_dir = work / "venv" / "bin"
    # A clean environment for pip and for what runs in the venv: nothing of this one's packages leaks in.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    run("pip install the wheel", bin_dir / "python", "-m", "pip", "install", "-q", wheels[0], env=env)
    installed = run("pip list", bin_dir / "python", "-m", "pip", "list", "--format=freeze", env=env)
    return bin_dir, wheels[0], env, installed


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


@pytest.mark.parametrize("code", [p for p in blocks("cpu") if "jax" not in p.values[0]])
def test_readme_cpu_examples_run_with_numpy_alone(venv, code, tmp_path):
    bin_dir, _, env, _ = venv
    run_block(code, tmp_path, python=bin_dir / "python", env=env)


@pytest.mark.parametrize("code", [p for p in blocks("cpu") if "jax" in p.values[0]])
def test_readme_cpu_examples_run_with_the_jax_extra(venv, code, tmp_path):
    bin_dir, wheel, env, _ = venv
    run("pip install the [jax] extra", bin_dir / "python", "-m", "pip", "install", "-q", f"{wheel}[jax]", env=env)
    run_block(code, tmp_path, python=bin_dir / "python", env=env)
