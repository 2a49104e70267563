"""Diagnostics plugin: `pytest -p memwatch` prints the GPU memory in use (nvidia-smi, every process)
after each test, to find a test that leaves device memory behind. Not loaded by default."""
import subprocess

import pytest


def _used_mib():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10).stdout.split()
        return int(out[0]) if out else None
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield  # after the test's fixtures are torn down
    print(f"\n[memwatch] after {item.nodeid}: {_used_mib()} MiB in use on GPU 0", flush=True)
