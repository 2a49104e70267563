"""The parity case: a kernel, how to make its inputs, which arguments it writes, and how to launch it.

A case's kernel is an ordinary Python function in numba-cuda's spelling. `make()` returns the launch
arguments as NumPy arrays and scalars (arrays are copied to the GPU for each compiler; every array is
compared after the launch unless `outs` names the ones to compare). `sig` is a signature string in
Numba's spelling, or None to let each compiler specialise on the arguments (lazy jit)."""
from __future__ import annotations

import importlib
import pkgutil

import numpy as np


class ParityCase:
    def __init__(self, fn, make, *, sig=None, grid=1, block=32, shared=0, outs=None, atol=0.0, rtol=0.0,
                 options=None, family="", compare=None, launches=1):
        self.fn, self.make, self.sig = fn, make, sig
        self.grid, self.block, self.shared = grid, block, shared
        self.outs, self.atol, self.rtol = outs, atol, rtol
        self.options = dict(options or {})  # passed to both cubridge.jit and numba.cuda.jit
        self.family = family
        self.compare = compare  # compare(ours, theirs) -> None (asserts), for order-dependent results
        self.launches = launches
        self.name = fn.__name__

    @property
    def id(self) -> str:
        return f"{self.family}-{self.name}"

    def signature(self, typeof) -> str:
        """The case's signature, or the one `typeof` (cubridge.typeof) gives its arguments."""
        if self.sig is not None:
            return self.sig
        return "void(" + ", ".join(str(typeof(a)) for a in self.make()) + ")"

    def out_indices(self, args) -> list[int]:
        if self.outs is not None:
            return list(self.outs)
        return [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]


CASES: list[ParityCase] = []


def case(fn, make, **kw) -> ParityCase:
    """Registers a case; the family is the defining module's name less 'kernels_'."""
    family = fn.__module__.rpartition(".")[2].removeprefix("kernels_")
    c = ParityCase(fn, make, family=family, **kw)
    CASES.append(c)
    return c


# Cases numba-cuda compiles only with its runtime (NRT) enabled: outside the shared harness, run by
# numba_compat/test_nrt_parity_gpu.py with numba-cuda's CUDA_ENABLE_NRT on (cubridge allocates nothing for them).
NRT_CASES: list[ParityCase] = []


def nrt_case(fn, make, **kw) -> ParityCase:
    """Registers a case numba-cuda needs NRT for; the family is the module's, with '_nrt'."""
    family = fn.__module__.rpartition(".")[2].removeprefix("kernels_") + "_nrt"
    c = ParityCase(fn, make, family=family, **kw)
    NRT_CASES.append(c)
    return c


def load_all() -> list[ParityCase]:
    """Imports every kernels_*.py module of this package (once) and returns all cases."""
    from . import __path__ as here
    for info in sorted(pkgutil.iter_modules(here), key=lambda m: m.name):
        if info.name.startswith("kernels_"):
            importlib.import_module(f"{__package__}.{info.name}")
    return CASES


def rng(seed: int = 1234) -> np.random.Generator:
    return np.random.default_rng(seed)
