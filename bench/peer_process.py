"""numba-cuda-mlir (numba-cuda's successor) as a peer of the benches. It runs in a child process of its own
(the bench script again, with `--peer mlir`), back to back with the parent on the same machine, so its CUDA
state and numba-cuda's never share a process. It is found on PYTHONPATH or in the folder named by
CUBRIDGE_BENCH_MLIR (bench/fetch_mlir.sh explains how it travels to the GPU machine)."""
from __future__ import annotations

import json
import os
import subprocess
import sys


def with_path(env: dict, *folders: str) -> dict:
    """A copy of `env` with `folders` in front of its PYTHONPATH (empty names left out)."""
    return dict(env, PYTHONPATH=os.pathsep.join(filter(None, [*folders, env.get("PYTHONPATH")])))


def mlir_env(*folders: str) -> tuple[dict, str | None]:
    """The environment numba-cuda-mlir imports in (this process's, with CUBRIDGE_BENCH_MLIR's folder and
    `folders` on PYTHONPATH) and, when it does not import there, why (else None)."""
    env = with_path(dict(os.environ), os.environ.get("CUBRIDGE_BENCH_MLIR", ""), *folders)
    probe = subprocess.run([sys.executable, "-c", "import numba_cuda_mlir"], env=env, capture_output=True,
                           text=True)
    if probe.returncode != 0:
        last = probe.stderr.strip().splitlines()[-1:] or [f"exit status {probe.returncode}"]
        return env, f"numba-cuda-mlir not importable: {last[0]}"
    return env, None


def run_child(script: str, args: list[str], env: dict) -> tuple[object | None, str | None]:
    """Runs `python script args...` in `env`; its last stdout line is JSON. Returns (that value, None), or
    (None, why) when the child fails (its exit status and the end of its stderr)."""
    r = subprocess.run([sys.executable, script, *args], env=env, capture_output=True, text=True)
    lines = r.stdout.strip().splitlines()
    if r.returncode != 0 or not lines:
        tail = r.stderr.strip()[-400:] or "no output"
        return None, f"child {os.path.basename(script)} {' '.join(args[:2])} failed (exit {r.returncode}): {tail}"
    return json.loads(lines[-1]), None
