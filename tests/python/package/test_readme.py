"""The README's examples run as written: each ```python block after a `<!-- readme-test: cpu -->` line runs
here, each after `<!-- readme-test: gpu -->` on a GPU, each after `<!-- readme-test: multi_gpu -->` where there
are two or more; every block in its own process, once from a file and
once pasted into `python -c` (where functions have no source file: cubridge compiles them from bytecode)."""
import pathlib
import re
import subprocess
import sys

import pytest

README = pathlib.Path(__file__).resolve().parents[3] / "README.md"
BLOCK = re.compile(r"<!-- readme-test: (cpu|gpu|multi_gpu) -->\n```python\n(.*?)\n```", re.S)


def blocks(kind):
    found = [code for k, code in BLOCK.findall(README.read_text()) if k == kind]
    return [pytest.param(code, id=f"{kind}{i}") for i, code in enumerate(found)]


def run_block(code, tmp_path=None, python=sys.executable, env=None):
    """Runs one block with `python` (test_wheel.py passes a fresh venv's) from a file in tmp_path, or with
    `python -c` when tmp_path is None, and checks that it printed."""
    if tmp_path is None:
        args = ["-c", code]
    else:
        path = tmp_path / "readme_block.py"
        path.write_text(code + "\n")
        args = [str(path)]
    out = subprocess.run([str(python), *args], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, f"README block failed:\n{code}\n--- stderr:\n{out.stderr}"
    assert out.stdout.strip(), f"README block printed nothing (each shows what it did):\n{code}"


def test_the_readme_marks_blocks_of_both_kinds():
    assert len(blocks("cpu")) == 3 and len(blocks("gpu")) == 4  # arrays, memory, kernels, PyTorch op; compile,
    # drop-in mode, custom call
    assert len(blocks("multi_gpu")) == 1  # several GPUs


@pytest.mark.gpu
@pytest.mark.multi_gpu
@pytest.mark.parametrize("code", blocks("multi_gpu"))
def test_multi_gpu_block_runs(code, tmp_path):
    pytest.importorskip("cupy")
    run_block(code, tmp_path)


@pytest.mark.parametrize("code", blocks("cpu"))
def test_cpu_block_runs(code, tmp_path):
    if "jax" in code:  # the custom-call example; the compile example needs nothing more
        pytest.importorskip("jax")
    run_block(code, tmp_path)


@pytest.mark.gpu
@pytest.mark.parametrize("code", blocks("gpu"))
def test_gpu_block_runs(code, tmp_path):
    for peer in ("cupy", "torch"):
        if peer in code:
            pytest.importorskip(peer)
    run_block(code, tmp_path)


@pytest.mark.parametrize("code", blocks("cpu"))
def test_cpu_block_runs_pasted_into_python_dash_c(code):
    if "jax" in code:
        pytest.importorskip("jax")
    run_block(code)


@pytest.mark.gpu
@pytest.mark.parametrize("code", blocks("gpu"))
def test_gpu_block_runs_pasted_into_python_dash_c(code):
    for peer in ("cupy", "torch"):
        if peer in code:
            pytest.importorskip(peer)
    run_block(code)


def test_kernel_block_compiles_pasted_into_python_dash_c():
    """The kernel example's definitions, pasted into `python -c` with its launch replaced by a compile (CPU)."""
    code = next(c for c in (p.values[0] for p in blocks("gpu")) if "@cubridge.jit" in c)
    definitions = code[:code.index("\nx = ")].replace("import math, cupy, cubridge", "import math, cubridge")
    program = definitions + ('\nptx, _ = cubridge.compile_ptx(rms_rows, "void(float32[:, ::1], float32[::1])", '
                             'cc=(9, 0))\nprint(".entry" in ptx and "sqrt" in ptx)\n')
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True"]


def test_the_readme_names_the_environment_the_two_commands_install_into():
    setup = (README.parent / "scripts" / "lib" / "setup.sh").read_text()
    assert 'venv="$cubridge_root/.venv"' in setup  # where scripts/demo and scripts/test install the package
    assert "source .venv/bin/activate" in README.read_text()
