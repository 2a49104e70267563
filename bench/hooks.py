"""cubridge._bench, the timing loops the benches need without Python between iterations (the floors, the C++
rows). It is built only with CMake's CUBRIDGE_BENCH_HOOKS=ON (scripts/gpu-bench does so), never in a release
wheel; a bench that needs it says how to build it."""
from __future__ import annotations


def bench_hooks():
    try:
        from cubridge import _bench
    except ImportError:
        raise SystemExit("this bench needs cubridge._bench (the C++ timing loops), which release builds leave out: "
                         "build the package with CUBRIDGE_BENCH_HOOKS=ON, e.g. `pip install --no-build-isolation "
                         "-C cmake.define.CUBRIDGE_BENCH_HOOKS=ON .`, or run it through scripts/gpu-bench") from None
    return _bench
