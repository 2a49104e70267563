"""numba-cuda's dispatcher attributes read from the loaded function (cuFuncGetAttribute), and specialize()
kept in specializations (GPU)."""
import numba
import numpy as np
import pytest

import cubridge

pytestmark = pytest.mark.gpu


def shared_store(x, y):
    # Indexed by the thread, across a barrier: the shared array stays (a store and load of s[0] alone folds
    # it away, and the kernel then has no static shared memory).
    s = cubridge.shared.array(64, cubridge.float32)
    i = cubridge.threadIdx.x
    s[i] = y
    cubridge.syncthreads()
    x[0] = s[63 - i]


SIG = "void(float32[::1], float32)"
ARGS = (numba.float32[::1], numba.float32)


def test_function_attributes_per_signature_and_for_all():
    d = cubridge.jit(shared_store)
    d.compile(SIG)
    k = d.specialize(np.zeros(1, np.float32), np.float32(1))
    assert d.get_shared_mem_per_block(ARGS) == k.shared_memory == 256
    assert d.get_regs_per_thread(ARGS) == k.registers > 0
    assert d.get_local_mem_per_thread(ARGS) == k.local_memory
    assert d.get_const_mem_size(ARGS) == k.const_memory
    assert 0 < d.get_max_threads_per_block(ARGS) == k.max_threads_per_block <= 1024
    assert d.get_regs_per_thread() == {d.compile(SIG).signature: k.registers}


def test_specialize_is_kept_once_per_signature():
    d = cubridge.jit(shared_store)
    a = d.specialize(np.zeros(1, np.float32), np.float32(1))
    assert d.specialize(np.zeros(1, np.float32), np.float32(2)) is a and len(d.specializations) == 1
    d.specialize(np.zeros(1, np.float64), np.float64(1))
    assert len(d.specializations) == 2 and ARGS in d.specializations
