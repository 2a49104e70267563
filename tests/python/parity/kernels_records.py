"""Record (structured dtype) kernels in numba-cuda's spelling.

These cases are NOT registered with the shared harness (`case()`): numba-cuda builds its device array from
a CUDA Array Interface by `typestr` alone ('|V16'), so it cannot take a structured CuPy array (its typeof
fails with "NumbaNotImplementedError: |V16"). test_jit_records_gpu.py runs them instead: numba-cuda gets
`cuda.to_device(host)` copies, cubridge gets `cupy.asarray(host)` copies of the same host arrays, and the
outputs are compared byte for byte. test_jit_records.py compiles and ptxas-checks each on the CPU."""
import numba
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


# ---------------------------------------------------------------- record values: references into the array

def record_values(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i]
        out[i] = r.x + r["y"]
        r.x = r.y * 0.5  # writes a[i]: a record element refers to the array
        r["n"] += 3
        if i % 3 == 0:
            r = a[a.shape[0] - 1 - i]  # rebinding the name moves the reference, copies nothing
        r.tag = 1


record_case(record_values, lambda: [mixed(ALIGNED), np.zeros(N)], grid=N // 64, block=64)


@cuda.jit(device=True)
def bump_x(r, v):
    r.x += v  # the caller's record: numba passes a record by reference


def pass_to_device_function(a, v):
    i = cuda.grid(1)
    if i < a.shape[0]:
        bump_x(a[i], v[i])


record_case(pass_to_device_function, lambda: [mixed(PACKED), rng(2).uniform(-2, 2, N).astype(np.float32)],
            grid=N // 64, block=64, outs=[0])


def copy_records(src, dst):
    i = cuda.grid(1)
    if i < src.shape[0]:
        dst[src.shape[0] - 1 - i] = src[i]  # a whole record: its bytes


record_case(copy_records, lambda: [mixed(ALIGNED), np.zeros(N, ALIGNED)], grid=N // 64, block=64, outs=[1])

# ---------------------------------------------------------------- nested records and array fields

POINT = np.dtype([("x", np.float32), ("y", np.float32)])
PARTICLE = np.dtype([("pos", POINT), ("vel", np.float64, (3,)), ("m", np.int16, (2, 2)), ("id", np.int32)],
                    align=True)


def particles(n=N, seed=11):
    a = np.zeros(n, PARTICLE)
    r = rng(seed)
    a["pos"]["x"] = r.uniform(-1, 1, n)
    a["pos"]["y"] = r.uniform(-1, 1, n)
    a["vel"] = r.uniform(-1, 1, (n, 3))
    a["m"] = r.integers(-50, 50, (n, 2, 2))
    a["id"] = np.arange(n)
    return a


def nested_and_array_fields(p, out):
    i = cuda.grid(1)
    if i < p.shape[0]:
        s = 0.0
        for k in range(3):
            s += p[i].vel[k] * p[i]["vel"][k]
        out[i] = s + p[i].pos.x * p[i]["pos"]["y"] + p[i].m[1, 0] - p[i]["m"][0][1]
        p[i].pos.x = p[i].vel[0]
        p[i]["pos"].y += 1.5
        p[i].vel[2] = p[i].id
        p[i]["vel"][1] *= 2.0
        p[i].m[0, 1] = p[i].m[1, 1] + p[i].vel.shape[0] + p[i].m.size
        v = p[i].vel
        v[0] -= 0.25  # a view into the record: writes the array
        out[i] += len(v)


record_case(nested_and_array_fields, lambda: [particles(), np.zeros(N)], grid=N // 64, block=64)

SCALARS = np.dtype([("b", np.bool_), ("i1", np.int8), ("u2", np.uint16), ("i4", np.int32), ("u8", np.uint64),
                    ("h", np.float16), ("f", np.float32), ("d", np.float64), ("c8", np.complex64),
                    ("c16", np.complex128)], align=True)


def scalars(n=N, seed=13):
    a = np.zeros(n, SCALARS)
    r = rng(seed)
    a["b"] = r.integers(0, 2, n)
    a["i1"] = r.integers(-100, 100, n)
    a["u2"] = r.integers(0, 60000, n)
    a["i4"] = r.integers(-10**6, 10**6, n)
    a["u8"] = r.integers(0, 2**62, n, dtype=np.uint64)
    a["h"] = r.uniform(-8, 8, n)
    a["f"] = r.uniform(-8, 8, n)
    a["d"] = r.uniform(-8, 8, n)
    a["c8"] = r.uniform(-8, 8, n) + 1j * r.uniform(-8, 8, n)
    a["c16"] = r.uniform(-8, 8, n) + 1j * r.uniform(-8, 8, n)
    return a


def every_field_type(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i]
        out[i] = (r.b + r.i1 + r.u2 + r.i4 + r.h + r.f + r.d + r.c8.real + r.c16.imag) + (r.u8 >> np.uint64(40))
        r.b = not r.b
        r.i1 = r.i1 // 3
        r.u2 += 7
        r.i4 = -r.i4
        r.u8 ^= np.uint64(0xFF)
        r.h = -r.h
        r.f = r.f - r.d
        r.d = r.d * r.f
        r.c8 = -r.c8
        r.c16 = r.c16 + r.c8


record_case(every_field_type, lambda: [scalars(), np.zeros(N)], grid=N // 64, block=64)

# ---------------------------------------------------------------- records in local and shared arrays



def local_records(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        tmp = cuda.local.array(4, dtype=POINT)
        for k in range(4):
            tmp[k].x = a[i].x * k
            tmp[k]["y"] = a[i].y + k
        s = 0.0
        for k in range(4):
            s += tmp[k].x - tmp[3 - k]["y"]
        out[i] = s


def points(n=N, seed=17):
    a = np.zeros(n, POINT)
    r = rng(seed)
    a["x"] = r.uniform(-3, 3, n)
    a["y"] = r.uniform(-3, 3, n)
    return a


record_case(local_records, lambda: [points(), np.zeros(N, np.float32)], grid=N // 64, block=64, outs=[1])


def shared_records(a, out):
    buf = cuda.shared.array(64, POINT)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = a[i]
    buf[t].x += 1.0
    cuda.syncthreads()
    out[i] = buf[63 - t].x * buf[(t + 1) % 64]["y"]


record_case(shared_records, lambda: [points(), np.zeros(N, np.float32)], grid=N // 64, block=64, outs=[1])


def shared_records_numba_type(a, out):
    buf = cuda.shared.array(64, dtype=POINT_RECORD)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t].x = a[i].y
    buf[t].y = a[i].x
    cuda.syncthreads()
    out[i] = buf[63 - t].x - buf[t].y


POINT_RECORD = numba.from_dtype(POINT)  # numba's Record type object
record_case(shared_records_numba_type, lambda: [points(), np.zeros(N, np.float32)], grid=N // 64, block=64,
            outs=[1])

# ---------------------------------------------------------------- whole fields, tuples of records, returned records


@cuda.jit(device=True)
def pick(p, i, j):
    return p[i] if p[i].id > p[j].id else p[j]  # a record returned by reference


def whole_fields(p, out):
    i = cuda.grid(1)
    if i < p.shape[0] - 1:
        pair = (p[i], p[i + 1])
        out[i] = pair[0].pos.x - pair[0].vel[2] + pair[1].id  # p[i + 1].vel may be another thread's copy
        if i % 2 == 0:
            p[i].pos = p[i + 1].pos  # a record field takes a copy of the bytes
            p[i].vel = p[i + 1]["vel"]  # so does an array field
        big = pick(p, i, i + 1)
        big.m[1, 1] = 7


record_case(whole_fields, lambda: [particles(), np.zeros(N)], grid=N // 64, block=64)
