"""numba-cuda's cache-hinted loads and stores (cuda.ldca/ldcg/ldcs/ldlu/ldcv, cuda.stcg/stcs/stwb/stwt), and
float32 division under fastmath: the kernels of the peer suite's wrong results (test_cache_hints.test_stores,
test_stores_2d, test_fastmath.test_divf_exception), compared value for value with numba-cuda's."""
import numpy as np
from numba import cuda

from .cases import case, rng

N = 64


def cache_hint_loads(x, ca, cg, cs, lu, cv):
    i = cuda.grid(1)
    if i < x.size:
        ca[i] = cuda.ldca(x, i)
        cg[i] = cuda.ldcg(x, i)
        cs[i] = cuda.ldcs(x, i)
        lu[i] = cuda.ldlu(x, i)
        cv[i] = cuda.ldcv(x, i)


case(cache_hint_loads, lambda: [rng().integers(-100, 100, N).astype(np.int16)] + [np.zeros(N, np.int16)] * 5,
     grid=1, block=N, outs=[1, 2, 3, 4, 5])


def cache_hint_stores(x, cg, cs, wb, wt):
    i = cuda.grid(1)
    if i < x.size:
        cuda.stcg(cg, i, x[i])
        cuda.stcs(cs, i, x[i] * 2)
        cuda.stwb(wb, i, x[i] + 1.5)  # cast to the element type (float32)
        cuda.stwt(wt, i, -x[i])


case(cache_hint_stores, lambda: [rng().random(N, np.float32)] + [np.zeros(N, np.float32)] * 4,
     grid=1, block=N, outs=[1, 2, 3, 4])


def cache_hint_stores_cast(x, r):
    i = cuda.grid(1)
    if i < x.size:
        cuda.stcg(r, i, x[i] * 3.7)  # float64 -> int32, as numba casts it


case(cache_hint_stores_cast, lambda: [rng().uniform(-50, 50, N), np.zeros(N, np.int32)], grid=1, block=N, outs=[1])


def cache_hint_2d(x, r):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        cuda.stwt(r, (i, j), cuda.ldcg(x, (i, j)) * 2)
        at = (i, j)
        cuda.stcs(r, at, cuda.ldcs(r, at) + cuda.ldlu(x, at))


case(cache_hint_2d, lambda: [rng().integers(0, 1000, (8, 12)).astype(np.uint64), np.zeros((8, 12), np.uint64)],
     grid=(1, 1), block=(8, 12), outs=[1])


def cache_hint_float16(x, r):
    i = cuda.grid(1)
    if i < x.size:
        cuda.stcg(r, i, cuda.ldcg(x, i))


case(cache_hint_float16, lambda: [rng().random(N).astype(np.float16), np.zeros(N, np.float16)], grid=1, block=N,
     outs=[1])


def fastmath_divide_by_zero(r, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = x / y


# numba-cuda: float32 / float32 under fastmath is __nv_fast_fdividef, which does not raise even with
# debug=True; both give inf here.
case(fastmath_divide_by_zero, lambda: [np.zeros(10, np.float32), np.float32(10.0), np.float32(0.0)],
     sig="void(float32[::1], float32, float32)", grid=1, block=10, outs=[0],
     options={"fastmath": True, "debug": True, "opt": False})
