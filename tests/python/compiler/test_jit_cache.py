"""@cubridge.jit's PTX in the on-disk code cache: a second process compiling the same kernel reads it back
(cubridge.compile_cache_stats() counts hits, misses and stores; the entry's file is not rewritten), and
any change of source, signature or option is a different entry. The GPU test launches the cached kernel
from the second process."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import cubridge

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAXPY_SIG = "void(float32, float32[::1], float32[::1], float32[::1])"

# Run in a fresh interpreter: compile (and with "launch", run) the corpus's saxpy, print what happened.
CHILD = """
import json, sys
import numpy as np
import cubridge
sys.path.insert(0, {here!r})
from corpus.kernels_elementwise import saxpy
k = cubridge.jit({sig!r})(saxpy)
result = None
if {launch!r}:
    x = cubridge.to_device(np.arange(300, dtype=np.float32))
    out = cubridge.to_device(np.zeros(300, np.float32))
    k[3, 128](np.float32(2), x, x, out)
    result = out.copy_to_host().tolist()
(ptx,) = k.inspect_ptx().values()
print(json.dumps({{"stats": cubridge.compile_cache_stats(), "ptx": ptx, "result": result}}))
"""


def run_child(cache_dir, launch=False):
    env = dict(os.environ, CUBRIDGE_CACHE_DIR=str(cache_dir))
    env.pop("CUBRIDGE_DISABLE_CACHE", None)
    code = CHILD.format(here=HERE, sig=SAXPY_SIG, launch=launch)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"the child process failed:\n{p.stderr[-3000:]}"
    return json.loads(p.stdout.strip().splitlines()[-1])


def entries(cache_dir):
    """Each cache file and its modification time (ns)."""
    return {f: os.stat(os.path.join(cache_dir, f)).st_mtime_ns for f in os.listdir(cache_dir) if f.endswith(".cbc")}


def test_a_second_process_reads_the_ptx_from_the_cache(tmp_path):
    first = run_child(tmp_path)
    assert first["stats"] == {"hits": 0, "misses": 1, "stores": 1}, first["stats"]
    files = entries(tmp_path)
    assert files, "nothing was written to the cache directory"
    second = run_child(tmp_path)
    assert second["stats"] == {"hits": 1, "misses": 0, "stores": 0}, second["stats"]
    assert second["ptx"] == first["ptx"]
    assert entries(tmp_path) == files, "the second process rewrote cache entries instead of reading them"


def saxpy_twice(alpha, x, y, out):
    i = cubridge.grid(1)
    if i < x.size:
        out[i] = 2 * alpha * x[i] + y[i]


def stats_delta(before):
    now = cubridge.compile_cache_stats()
    return {k: now[k] - before[k] for k in now}


def test_source_signature_and_options_are_part_of_the_key(tmp_path, monkeypatch):
    sys.path.insert(0, HERE)
    from corpus.kernels_elementwise import saxpy
    monkeypatch.setenv("CUBRIDGE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("CUBRIDGE_DISABLE_CACHE", raising=False)
    before = cubridge.compile_cache_stats()
    cubridge.jit(SAXPY_SIG)(saxpy)
    assert stats_delta(before) == {"hits": 0, "misses": 1, "stores": 1}
    variants = [cubridge.jit(SAXPY_SIG)(saxpy_twice),  # another source
                cubridge.jit("void(float32, float32[:], float32[::1], float32[::1])")(saxpy),  # another signature
                cubridge.jit(SAXPY_SIG, fastmath=True)(saxpy),
                cubridge.jit(SAXPY_SIG, lineinfo=True)(saxpy),
                cubridge.jit(SAXPY_SIG, opt=False)(saxpy)]
    assert stats_delta(before) == {"hits": 0, "misses": 6, "stores": 6}
    assert len({p for d in variants for p in d.inspect_ptx().values()}) == len(variants)
    again = cubridge.jit(SAXPY_SIG, fastmath=True)(saxpy)
    assert stats_delta(before) == {"hits": 1, "misses": 6, "stores": 6}
    assert again.inspect_ptx() == variants[2].inspect_ptx()


def test_cache_false_and_the_environment_switch_compile_every_time(tmp_path, monkeypatch):
    sys.path.insert(0, HERE)
    from corpus.kernels_elementwise import saxpy
    monkeypatch.setenv("CUBRIDGE_CACHE_DIR", str(tmp_path))
    before = cubridge.compile_cache_stats()
    cubridge.jit(SAXPY_SIG, cache=False)(saxpy)
    assert stats_delta(before) == {"hits": 0, "misses": 0, "stores": 0}
    monkeypatch.setenv("CUBRIDGE_DISABLE_CACHE", "1")
    cubridge.jit(SAXPY_SIG)(saxpy)
    cubridge.jit(SAXPY_SIG)(saxpy)
    assert stats_delta(before) == {"hits": 0, "misses": 2, "stores": 0}


@pytest.mark.gpu
def test_a_second_process_launches_the_cached_kernel(tmp_path):
    want = (3 * np.arange(300, dtype=np.float32)).tolist()
    first = run_child(tmp_path, launch=True)
    assert first["stats"]["misses"] == 1 and first["result"] == want, first["stats"]
    second = run_child(tmp_path, launch=True)
    assert second["stats"] == {"hits": 1, "misses": 0, "stores": 0}, second["stats"]
    assert second["result"] == want, "the kernel read from the cache computed something else"
