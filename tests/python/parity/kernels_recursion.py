"""Self-recursion without a declared signature (numba-cuda's test_recursion fib3): the recursive call's type
comes from the function's other returns; compared value for value with numba-cuda's."""
import numpy as np
from numba import cuda

from .cases import case


@cuda.jit(device=True)
def fib_implicit(n):
    if n < 2:
        return n
    return fib_implicit(n - 1) + fib_implicit(n - 2)


@cuda.jit(device=True)
def halves(x, depth):
    if depth == 0:
        return x
    return halves(x * 0.5, depth - 1) + 1.0


def recursion_implicit(ns, out, fout):
    i = cuda.grid(1)
    if i < ns.size:
        out[i] = fib_implicit(ns[i])
        fout[i] = halves(3.0, ns[i])


case(recursion_implicit, lambda: [np.arange(12, dtype=np.int64), np.zeros(12, np.int64), np.zeros(12)], grid=1,
     block=16, outs=[1, 2])
