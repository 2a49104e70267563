"""Random numbers (numba.cuda.random, xoroshiro128+): kernels draw uniforms, normals and raw uint64s from
states made by numba-cuda's create_xoroshiro128p_states and by cubridge.random's, in every spelling a
numba user writes (from-import, cuda.random.X, the module aliased). Each run gets fresh states from
make(); the draws must equal numba-cuda's bit for bit.

The states are GPU arrays (numba-cuda types a structured CuPy array by its typestr alone, and fails), so
make() needs a GPU: those cases name their signature (numba's record type, xoroshiro128p_type[::1]) and
the CPU test never calls their make(). local_states keeps its generator in a local record array instead."""
import numba.cuda.random
import numpy as np
from numba import cuda, float32, float64, int64, uint64, void
from numba.cuda.random import (init_xoroshiro128p_state, xoroshiro128p_jump, xoroshiro128p_next,
                               xoroshiro128p_normal_float32, xoroshiro128p_normal_float64, xoroshiro128p_type,
                               xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64)
from numba.cuda.random import xoroshiro128p_uniform_float64 as uniform

import cubridge.random

from .cases import case

THREADS = 256
DRAWS = 8
STATES = xoroshiro128p_type[::1]


def numba_states(seed=1234, subsequence_start=0):
    return lambda n: numba.cuda.random.create_xoroshiro128p_states(n, seed, subsequence_start)


def cubridge_states(seed=1234, subsequence_start=0):
    return lambda n: cubridge.random.create_xoroshiro128p_states(n, seed, subsequence_start)


def draws(states, dtype, extra=()):
    """make(): fresh states for THREADS threads, an output of DRAWS per thread, then `extra` arguments."""
    return lambda: [states(THREADS), np.zeros((THREADS, DRAWS), dtype), *extra]


def random_case(fn, make, maker, *types):
    c = case(fn, make, sig=void(STATES, *types), grid=THREADS // 64, block=64, outs=[1])
    c.name = f"{fn.__name__}-{maker.__name__}"  # each kernel runs on both libraries' states


def uniform_float32(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_uniform_float32(states, i)


def uniform_float64(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_uniform_float64(states, i)


def normal_float32(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_normal_float32(states, i)


def normal_float64(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_normal_float64(states, i)


def next_uint64(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_next(states, i)


def jump_then_next(states, out):
    # Each thread jumps its generator k times: its draws are the heads of later subsequences.
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(out.shape[1]):
            xoroshiro128p_jump(states, i)
            out[i, k] = xoroshiro128p_next(states, i)


def seeded_in_kernel(states, out, seed):
    # init_xoroshiro128p_state on the device: thread i seeds its own state from seed + i.
    i = cuda.grid(1)
    if i < out.shape[0]:
        init_xoroshiro128p_state(states, i, seed + i)
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_uniform_float32(states, i)


def module_spelling(states, out):
    # Stored apart, not summed: a sum could be contracted into an FMA, which is not what is tested here.
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(0, out.shape[1], 2):
            out[i, k] = cuda.random.xoroshiro128p_normal_float64(states, i)
            out[i, k + 1] = numba.cuda.random.xoroshiro128p_uniform_float32(states, i)


def aliased(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = uniform(states, i) * numba.cuda.random.uint64_to_unit_float64(
                numba.cuda.random.xoroshiro128p_next(states, i))


def strided_use(states, out):
    # Threads share generators: thread i draws from state i // 2 in two rounds (no race: one round each).
    i = cuda.grid(1)
    if i < out.shape[0] and i % 2 == 0:
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_uniform_float32(states, i // 2)
            out[i + 1, k] = xoroshiro128p_normal_float32(states, i // 2)


def local_states(out, seed):
    # A generator in local memory, seeded in the kernel: no states array comes in at all.
    i = cuda.grid(1)
    if i < out.shape[0]:
        state = cuda.local.array(1, xoroshiro128p_type)
        init_xoroshiro128p_state(state, 0, seed + i)
        xoroshiro128p_jump(state, 0)
        for k in range(out.shape[1]):
            out[i, k] = xoroshiro128p_normal_float32(state, 0) if k % 2 else xoroshiro128p_uniform_float64(state, 0)


case(local_states, lambda: [np.zeros((THREADS, DRAWS), np.float64), np.int64(2**40)], grid=THREADS // 64, block=64,
     outs=[0])

for maker in (numba_states, cubridge_states):
    random_case(uniform_float32, draws(maker(), np.float32), maker, float32[:, ::1])
    random_case(uniform_float64, draws(maker(seed=7), np.float64), maker, float64[:, ::1])
    random_case(normal_float32, draws(maker(seed=np.uint64(2**63 + 11)), np.float32), maker, float32[:, ::1])
    random_case(normal_float64, draws(maker(subsequence_start=3), np.float64), maker, float64[:, ::1])
    random_case(next_uint64, draws(maker(seed=0), np.uint64), maker, uint64[:, ::1])
    random_case(jump_then_next, draws(maker(seed=99), np.uint64), maker, uint64[:, ::1])
    random_case(seeded_in_kernel, draws(maker(), np.float32, extra=[np.int64(5)]), maker, float32[:, ::1], int64)
    random_case(module_spelling, draws(maker(seed=3), np.float64), maker, float64[:, ::1])
    random_case(aliased, draws(maker(seed=4), np.float64), maker, float64[:, ::1])
    random_case(strided_use, draws(maker(seed=5), np.float32), maker, float32[:, ::1])
