"""Compile-time markers of the CUDA intrinsics for kernels compiled by cubridge, re-exported by cubridge.

Inside a function given to ``@cubridge.jit`` or ``cubridge.compile_ptx``, ``cubridge.grid(1)``,
``cubridge.threadIdx.x``, ``cubridge.shared.array(shape, dtype)``, ``cubridge.atomic.add(a, i, v)`` ...
mean what numba-cuda's ``cuda.grid(1)``, ``cuda.threadIdx.x``, ... mean (both spellings compile). The
compiler reads them from the source; CPython never calls them, and calling one raises.
"""
from __future__ import annotations

__all__ = ["grid", "gridsize", "threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize",
           "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or", "syncwarp", "threadfence",
           "threadfence_block", "threadfence_system", "shared", "local", "atomic", "shfl_sync", "shfl_up_sync",
           "shfl_down_sync", "shfl_xor_sync", "all_sync", "any_sync", "eq_sync", "ballot_sync", "match_any_sync",
           "match_all_sync", "activemask", "lanemask_lt", "popc", "clz", "ffs", "brev", "fma", "cbrt", "selp", "const", "cg",
           "ldca", "ldcg", "ldcs", "ldlu", "ldcv", "stcg", "stcs", "stwb", "stwt", "nanosleep"]


class Intrinsic:
    """A name that only compiled kernels use (cubridge.grid, cubridge.atomic.add, ...)."""

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"cubridge.{self._name}() exists only inside kernels compiled by cubridge "
                           f"(@cubridge.jit, cubridge.compile_ptx); Python cannot call it")

    def __repr__(self) -> str:
        return f"<cubridge intrinsic {self._name}>"


class _Namespace(Intrinsic):
    """cubridge.threadIdx (.x/.y/.z), cubridge.shared (.array), cubridge.const (.array_like),
    cubridge.atomic (.add, ...)."""

    __slots__ = ("_members",)

    def __init__(self, name: str, members: tuple[str, ...]):
        super().__init__(name)
        self._members = {m: Intrinsic(f"{name}.{m}") for m in members}

    def __getattr__(self, attr: str):
        try:
            return self._members[attr]
        except KeyError:
            raise AttributeError(f"cubridge.{self._name} has no attribute {attr!r}; it offers "
                                 f"{', '.join(self._members)}") from None


_DIM3 = ("x", "y", "z")
threadIdx, blockIdx, blockDim, gridDim = (_Namespace(n, _DIM3) for n in ("threadIdx", "blockIdx", "blockDim", "gridDim"))
shared = _Namespace("shared", ("array",))
local = _Namespace("local", ("array",))
const = _Namespace("const", ("array_like",))
cg = _Namespace("cg", ("this_grid",))
atomic = _Namespace("atomic", ("add", "sub", "max", "min", "nanmax", "nanmin", "and_", "or_", "xor", "exch", "inc",
                               "dec", "cas", "compare_and_swap"))
(grid, gridsize, laneid, warpsize, syncthreads, syncthreads_count, syncthreads_and, syncthreads_or, syncwarp,
 threadfence, threadfence_block, threadfence_system, shfl_sync, shfl_up_sync, shfl_down_sync, shfl_xor_sync,
 all_sync, any_sync, eq_sync, ballot_sync, activemask, lanemask_lt, popc, clz, ffs, brev, fma, cbrt, selp) = (
    Intrinsic(n) for n in ("grid", "gridsize", "laneid", "warpsize", "syncthreads", "syncthreads_count",
                           "syncthreads_and", "syncthreads_or", "syncwarp", "threadfence", "threadfence_block",
                           "threadfence_system", "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync",
                           "all_sync", "any_sync", "eq_sync", "ballot_sync", "activemask", "lanemask_lt", "popc",
                           "clz", "ffs", "brev", "fma", "cbrt", "selp"))
# numba-cuda's cache-hinted loads and stores: ldcg(array, i) reads a[i] with ld.global.cg, stcg(array, i, v)
# writes it with st.global.cg (i an integer, or a tuple of integers for a multi-dimensional array).
ldca, ldcg, ldcs, ldlu, ldcv, stcg, stcs, stwb, stwt = (
    Intrinsic(n) for n in ("ldca", "ldcg", "ldcs", "ldlu", "ldcv", "stcg", "stcs", "stwb", "stwt"))
# match_any_sync(mask, value): the int32 mask of the lanes holding the same value; match_all_sync(mask, value):
# (that mask or 0, whether every lane holds it). Values: int32, int64, float32, float64 (sm_70+).
match_any_sync, match_all_sync = Intrinsic("match_any_sync"), Intrinsic("match_all_sync")
nanosleep = Intrinsic("nanosleep")  # cuda.nanosleep(ns): suspends the thread for about ns nanoseconds (sm_70+)
