"""Variables re-bound to another type (issue 21, numba-cuda's test_ssa: issue3931, issue5493), where numba's
SSA gives each definition its own version: a parameter re-bound twice in a row (1-d then 2-d again), and a
loop counter re-bound to an array inside an inner loop and never read after it. Compared with numba-cuda."""
import numpy as np
from numba import cuda

from .cases import case

B = np.ones(1) * 2.5


def reshaped_twice(result, arr):
    if cuda.grid(1) == 0:
        for i in range(1):
            arr = arr.reshape(3 * 2)
            arr[i] += 1.0
            arr = arr.reshape(3, 2)
        for i in range(arr.shape[0]):
            for j in range(arr.shape[1]):
                result[i, j] = arr[i, j] * 2.0


case(reshaped_twice, lambda: [np.zeros((3, 2)), np.arange(6.0).reshape(3, 2)], grid=1, block=1, outs=[0])


def counter_rebound_in_inner_loop(res, m, n):
    if cuda.grid(1) == 0:
        for t in range(1, m):
            for idx in range(n):
                t = B
                if idx == 0:
                    res[0] = t[0]
                else:
                    res[0] += t[0]


case(counter_rebound_in_inner_loop, lambda: [np.zeros(1), 4, 3], grid=1, block=1, outs=[0])


# Versions by reaching definitions: a read reached by one definition has that definition's type (an int64 of
# 2**53 + 1 is stored exactly, never rounded through the float64 of an earlier definition).
def redefined_after_a_branch(out, c):
    if cuda.grid(1) == 0:
        x = 0.5
        if c:
            out[1] = x * 4
        x = 9007199254740993
        out[0] = x


case(redefined_after_a_branch, lambda: [np.zeros(2, np.int64), True], grid=1, block=1, outs=[0])


def redefined_after_a_loop_that_reads(out, n):
    if cuda.grid(1) == 0:
        x = 0.5
        for i in range(n):
            out[1] += x * 2
        x = 9007199254740993
        out[0] = x


case(redefined_after_a_loop_that_reads, lambda: [np.zeros(2, np.int64), 3], grid=1, block=1, outs=[0])


# Definitions that meet at a read unify (numba's phi): float64 where one side is 0.5.
def phi_after_if_else(out, c):
    if cuda.grid(1) == 0:
        if c:
            x = 3
        else:
            x = 0.5
        out[0] = x / 2


case(phi_after_if_else, lambda: [np.zeros(1), True], grid=1, block=1, outs=[0])


def phi_after_loop_with_continue(out, n):
    if cuda.grid(1) == 0:
        x = 1
        for i in range(n):
            x = 0.5 * i
            if i > 2:
                continue
            x = 7
        out[0] = x / 2


case(phi_after_loop_with_continue, lambda: [np.zeros(1), 5], grid=1, block=1, outs=[0])
