"""Record (structured dtype) kernels in numba-cuda's spelling.

These cases are NOT registered with the shared harness (`case()`): numba-cuda builds its device array from
a CUDA Array Interface by `typestr` alone ('|V16'), so it cannot take a structured CuPy array (its typeof
fails with "NumbaNotImplementedError: |V16"). test_jit_records_gpu.py runs them instead: numba-cuda gets
`cuda.to_device(host)` copies, cubridge gets `cupy.asarray(host)` copies of the same host arrays, and the
outputs are compared byte for byte. test_jit_records.py compiles and ptxas-checks each on the CPU."""
import numpy as np
from numba import cuda

from .cases import ParityCase, rng

N = 128
RECORD_CASES: list[ParityCase] = []


def record_case(fn, make, name=None, **kw) -> ParityCase:
    c = ParityCase(fn, make, family="records", **kw)
    c.name = name or c.name
    RECORD_CASES.append(c)
    return c


STATE = np.dtype([("s0", np.uint64), ("s1", np.uint64)])  # numba's xoroshiro128p state
# numba-cuda refuses a field at an offset its type's alignment does not divide, so a packed record keeps
# its fields at such offsets; its item size (17) still leaves every other element misaligned, which packed
# records survive because both compilers read and write them with byte alignment.
PACKED = np.dtype([("x", np.float32), ("n", np.int32), ("y", np.float64), ("tag", np.int8)])
ALIGNED = np.dtype([("tag", np.int8), ("x", np.float32), ("y", np.float64), ("n", np.int32)], align=True)


def states(n=N, seed=3):
    a = np.zeros(n, STATE)
    r = rng(seed)
    a["s0"] = r.integers(1, 2**63, n, dtype=np.uint64)
    a["s1"] = r.integers(1, 2**63, n, dtype=np.uint64)
    return a


def mixed(dtype, n=N, seed=5):
    a = np.zeros(n, dtype)
    r = rng(seed)
    a["tag"] = r.integers(-100, 100, n)
    a["x"] = r.uniform(-4, 4, n).astype(np.float32)
    a["y"] = r.uniform(-4, 4, n)
    a["n"] = r.integers(-1000, 1000, n)
    return a


def xoroshiro_step(st, out):
    # The state update of numba's xoroshiro128p_next, spelt with both field syntaxes.
    i = cuda.grid(1)
    if i < st.shape[0]:
        s0 = st[i]["s0"]
        s1 = st[i].s1
        out[i] = s0 + s1
        s1 ^= s0
        st[i]["s0"] = ((s0 << np.uint32(55)) | (s0 >> np.uint32(9))) ^ s1 ^ (s1 << np.uint32(14))
        st[i].s1 = (s1 << np.uint32(36)) | (s1 >> np.uint32(28))


record_case(xoroshiro_step, lambda: [states(), np.zeros(N, np.uint64)], grid=N // 64, block=64)


def read_packed_fields(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i].x * a[i]["tag"] + a[i].y - a[i]["n"]


record_case(read_packed_fields, lambda: [mixed(PACKED), np.zeros(N)], grid=N // 64, block=64, outs=[1])


def read_aligned_fields(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i].x * a[i]["tag"] + a[i].y - a[i]["n"]


record_case(read_aligned_fields, lambda: [mixed(ALIGNED), np.zeros(N)], grid=N // 64, block=64, outs=[1])


def write_fields(a, v):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i].x = v[i]
        a[i]["y"] = v[i] * 2.5
        a[i].n = v[i] * 3.0  # a float stored into an int field: truncated, as numba-cuda casts
        a[i]["tag"] += 1
        a[i].y += a[i].x
        a[i].n -= 7


record_case(write_fields, lambda: [mixed(PACKED), rng(9).uniform(-50, 50, N)], grid=N // 64, block=64, outs=[0])
record_case(write_fields, lambda: [mixed(ALIGNED), rng(9).uniform(-50, 50, N)], grid=N // 64, block=64, outs=[0],
            name="write_fields_aligned")
