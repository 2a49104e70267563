"""Helpers that kernels_calls.py reaches through a package (pkg.fn, pkg.CONST, pkg.sub.fn), as a project
keeps its device functions in modules of its own. Not a kernels_*.py module: the harness does not load it."""
from numba import cuda

from . import sub  # noqa: F401  (reached as helpers_pkg.sub.fn)

OFFSET = 0.25
WEIGHTS = (1.0, 2.0, 3.0)


@cuda.jit(device=True)
def shift(x):
    return x + OFFSET
