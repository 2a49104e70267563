"""Step 1: the two Python functions, compiled by cubridge's front end to LTO-IR (C ABI) and to PTX, with
NumPy twins the GPU results are checked against and numba-cuda's compile of the same as the peer."""
from __future__ import annotations

import contextlib
import functools

import math
import re
from dataclasses import dataclass

from .report import Report, median_ms, optional_import, seconds

SIGNATURE = "float32(float32, float32)"


def f(x, y):
    return x * y + 1.0


def g(x, y):
    if x > y:
        return math.sqrt(x - y) + math.exp(-y)
    elif x < 0.0:
        return math.sin(x) * y
    return math.log1p(abs(x)) - y


def f_numpy(a, b):
    import numpy as np
    return a * b + np.float32(1.0)


def g_numpy(a, b):
    import numpy as np
    with np.errstate(invalid="ignore"):  # sqrt of the branch not taken
        return np.where(a > b, np.sqrt(a - b) + np.exp(-b),
                        np.where(a < 0, np.sin(a) * b, np.log1p(np.abs(a)) - b)).astype(np.float32)


FUNCTIONS = {"f": (f, f_numpy), "g": (g, g_numpy)}

# The same functions in CUDA C++: the peers' version (all-C++ kernels, CuPy ElementwiseKernel).
CPP_BODIES = {
    "f": "return x * y + 1.0f;",
    "g": "if (x > y) return sqrtf(x - y) + expf(-y); if (x < 0.0f) return sinf(x) * y; "
         "return log1pf(fabsf(x)) - y;",
}


def cpp_definition(name: str) -> str:
    return f'extern "C" __device__ float {name}(float x, float y) {{ {CPP_BODIES[name]} }}\n'


@dataclass
class Compiled:
    name: str
    ltoir: bytes
    prototype: str


def ptx_prototype(ptx: str, name: str) -> str:
    """The `.func` declaration of `name` in PTX, on one line."""
    match = re.search(r"\.visible\s+\.func\s*(\([^)]*\))?\s*" + re.escape(name) + r"\s*\([^)]*\)", ptx)
    if match is None:
        raise ValueError(f"the PTX has no .visible .func {name}(...)")
    one_line = " ".join(match.group(0).split())
    return re.sub(r"\s+\)", ")", re.sub(r"\(\s+", "(", one_line))


WARM_REPEATS = 5


def compile_function(report: Report, name: str, cc, cold: bool) -> Compiled:
    """Compiles `name`; the table gets like-for-like rows: the first compile in the process for both (cold:
    cubridge loads libNVVM, numba-cuda sets up its pipeline), where `cold`, and the median of later ones (warm)."""
    import cubridge
    fn = FUNCTIONS[name][0]
    compile_ltoir = functools.partial(cubridge.compile, fn, SIGNATURE, abi="c", output="ltoir", cc=cc)
    (ltoir, resty), took = seconds(compile_ltoir)
    warm_ms = median_ms(compile_ltoir, WARM_REPEATS)
    ptx, _ = cubridge.compile(fn, SIGNATURE, abi="c", output="ptx", cc=cc)
    prototype = ptx_prototype(ptx, name)
    report.line(f"{name}: {len(ltoir)} bytes of LTO-IR, returns {resty}; PTX prototype:")
    report.line(f"  {prototype}")
    peer, peer_cold_ms, peer_warm_ms = numba_compile_ms(name, cc)
    if cold:
        report.time(f"compile {name} to LTO-IR, cold (first in the process)", 1e3 * took, peer, peer_cold_ms)
    report.time(f"compile {name} to LTO-IR, warm (median of {WARM_REPEATS})", warm_ms, peer, peer_warm_ms)
    return Compiled(name, ltoir, prototype)


@contextlib.contextmanager
def numpy_row_stack_for_numba():
    """numba-cuda 0.30 still uses numpy.row_stack, which NumPy 2.5 removed: lend it numpy.vstack under that
    name while numba-cuda runs, and take it back after, so the user's numpy is left as it was."""
    import numpy
    lent = not hasattr(numpy, "row_stack")
    if lent:
        numpy.row_stack = numpy.vstack
    try:
        yield
    finally:
        if lent:
            del numpy.row_stack


def numba_compile_ms(name: str, cc) -> tuple[str, float | None, float | None]:
    """numba-cuda's compile of the same function, signature and output: ("numba-cuda", first ms, median ms of
    the next WARM_REPEATS) or (a reason, None, None)."""
    with numpy_row_stack_for_numba():
        numba, why = optional_import("numba")
        if numba is None:
            return "numba-cuda not importable", None, None
        try:
            from numba import cuda
            compile_ltoir = functools.partial(cuda.compile, FUNCTIONS[name][0],
                                              numba.float32(numba.float32, numba.float32), abi="c", output="ltoir",
                                              cc=cc)
            _, took = seconds(compile_ltoir)
            warm_ms = median_ms(compile_ltoir, WARM_REPEATS)
        except Exception as e:  # a failing peer is reported in the table, never fatal
            return f"numba-cuda failed ({type(e).__name__})", None, None
    return "numba-cuda", 1e3 * took, warm_ms


def compile_step(report: Report, cc) -> list[Compiled]:
    report.step(f"1. compile f and g (Python) to LTO-IR and PTX, C ABI, sm_{cc[0]}{cc[1]}")
    return [compile_function(report, name, cc, cold=i == 0) for i, name in enumerate(FUNCTIONS)]
