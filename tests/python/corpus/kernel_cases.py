"""The kernel corpus as test cases: each kernel of kernels_elementwise.py, kernels_cooperative.py and
kernels_slices.py with
its signature, its launch (grid, block, dynamic shared memory), inputs made by NumPy and the NumPy result
of the outputs it writes. tests/python/compiler/test_jit_kernels.py compiles and ptxas-checks every one (CPU);
tests/python/kernels/test_jit_kernels_gpu.py runs them on CuPy, PyTorch and cubridge arrays and compares."""
import numpy as np

from . import kernels_cooperative as co
from . import kernels_elementwise as el
from . import kernels_slices as sl

N = 1000  # elements of the 1-d cases
TPB = co.TPB


class View:
    """An argument that is a view of a larger array: `take` slices the base (NumPy, CuPy, PyTorch and
    cubridge arrays all slice and transpose the same way), so strided and F-order inputs reach the kernel."""

    def __init__(self, base, take):
        self.base, self.take = base, take


class Case:
    def __init__(self, fn, sig, make, ref, outs, grid=(N + TPB - 1) // TPB, block=TPB, shared=0, atol=0.0, rtol=0.0,
                 check=None):
        # ref(*inputs) -> the expected value of each output (None: not compared exactly); check(*outputs)
        # asserts what an order-dependent result must satisfy instead.
        self.fn, self.sig, self.make, self.ref, self.outs, self.check = fn, sig, make, ref, outs, check
        self.grid, self.block, self.shared, self.atol, self.rtol = grid, block, shared, atol, rtol
        self.name = fn.__name__

    def host_args(self):
        """The inputs as NumPy values (views applied)."""
        return [a.take(a.base) if isinstance(a, View) else a for a in self.make()]


def rng():
    return np.random.default_rng(1234)


def f32(n=N, lo=-4, hi=4):
    return rng().uniform(lo, hi, n).astype(np.float32)


def f64(n=N, lo=-4, hi=4):
    return rng().uniform(lo, hi, n)


def i32(n=N, lo=-1000, hi=1000):
    return rng().integers(lo, hi, n).astype(np.int32)


def zeros(n, dtype):
    return np.zeros(n, dtype)


def copy_out(args, k):
    return args[k].copy()


CASES = []


def case(fn, sig, make, ref, outs, **kw):
    CASES.append(Case(fn, sig, make, ref, outs, **kw))


F32 = dict(rtol=1e-5, atol=1e-5)
# ---- elementwise, 1-d
case(el.add_f32, "void(const float32[::1], const float32[::1], float32[::1])",
     lambda: [f32(), f32()[::-1].copy(), zeros(N, np.float32)], lambda a, b, o: [a + b], [2])
case(el.saxpy, "void(float32, float32[::1], float32[::1], float32[::1])",
     lambda: [np.float32(2.5), f32(), f32()[::-1].copy(), zeros(N, np.float32)],
     lambda s, x, y, o: [s * x + y], [3], **F32)
case(el.scale_inplace, "void(float64[::1], float64)", lambda: [f64(), 3.0], lambda x, s: [x * s], [0])
case(el.square_f64, "void(float64[::1], float64[::1])", lambda: [f64(), zeros(N, np.float64)], lambda x, o: [x * x], [1])
case(el.abs_diff_i32, "void(int32[::1], int32[::1], int32[::1])",
     lambda: [i32(), i32()[::-1].copy(), zeros(N, np.int32)], lambda a, b, o: [np.abs(a.astype(np.int64) - b)], [2])
case(el.clamp_f32, "void(float32[::1], float32, float32, float32[::1])",
     lambda: [f32(), np.float32(-1), np.float32(2), zeros(N, np.float32)], lambda x, lo, hi, o: [np.clip(x, lo, hi)], [3])
case(el.sqrt_f32, "void(float32[::1], float32[::1])", lambda: [f32(lo=0), zeros(N, np.float32)],
     lambda x, o: [np.sqrt(x)], [1], **F32)
case(el.exp_f64, "void(float64[::1], float64[::1])", lambda: [f64(), zeros(N, np.float64)],
     lambda x, o: [np.exp(x)], [1], rtol=1e-12)
case(el.relu, "void(float32[::1], float32[::1])", lambda: [f32(), zeros(N, np.float32)],
     lambda x, o: [np.maximum(x, 0)], [1])
case(el.horner, "void(const float64[::1], float64[::1], float64[::1])",
     lambda: [np.array([1.0, -2.0, 0.5, 3.0]), f64(), zeros(N, np.float64)],
     lambda c, x, o: [np.polyval(c, x)], [2], rtol=1e-12, atol=1e-12)
case(el.floordiv_mod_i64, "void(int64[::1], int64[::1], int64[::1], int64[::1])",
     lambda: [rng().integers(-10**6, 10**6, N), rng().integers(1, 50, N) * rng().choice([-1, 1], N),
              zeros(N, np.int64), zeros(N, np.int64)],
     lambda a, b, q, r: [a // b, a % b], [2, 3])
case(el.cast_f32_to_i32, "void(float32[::1], int32[::1])", lambda: [f32(lo=-100, hi=100), zeros(N, np.int32)],
     lambda x, o: [np.trunc(x).astype(np.int32)], [1])
case(el.positive_mask, "void(float64[::1], bool[::1])", lambda: [f64(), zeros(N, np.bool_)], lambda x, o: [x > 0], [1])
case(el.grid_stride_add, "void(float32[::1], float32[::1], float32[::1])",
     lambda: [f32(), f32(), zeros(N, np.float32)], lambda a, b, o: [a + b], [2], grid=3, block=64)
case(el.uint8_wrap, "void(uint8[::1])", lambda: [np.arange(N, dtype=np.uint64).astype(np.uint8)],
     lambda x: [(x + np.uint8(200)).astype(np.uint8)], [0])
case(el.half_add, "void(float16[::1], float16[::1], float16[::1])",
     lambda: [f32().astype(np.float16), f32()[::-1].astype(np.float16), zeros(N, np.float16)],
     lambda a, b, o: [a + b], [2], rtol=1e-3, atol=1e-3)
case(el.complex_mul, "void(complex64[::1], complex64[::1], complex64[::1])",
     lambda: [(f32() + 1j * f32()[::-1]).astype(np.complex64), (f32()[::-1] - 2j * f32()).astype(np.complex64),
              zeros(N, np.complex64)],
     lambda a, b, o: [a * b], [2], **F32)
case(el.reverse_copy, "void(int32[::1], int32[::1])", lambda: [i32(), zeros(N, np.int32)], lambda x, o: [x[::-1]], [1])
case(el.negative_index_reverse, "void(int32[::1], int32[::1])", lambda: [i32(), zeros(N, np.int32)],
     lambda x, o: [x[::-1]], [1])
case(el.broadcast_last, "void(float64[::1], float64[::1])", lambda: [f64(), zeros(N, np.float64)],
     lambda x, o: [x[-1] + np.arange(N)], [1])
case(el.strided_add, "void(float32[:], float32[:], float32[:])",
     lambda: [View(f32(2 * N), lambda a: a[::2]), View(f32(3 * N), lambda a: a[1::3]),
              View(zeros(2 * N, np.float32), lambda a: a[::2])],
     lambda a, b, o: [a + b], [2])
case(el.shifts_u32, "void(uint32[::1], uint32[::1], uint32[::1])",
     lambda: [rng().integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32), zeros(N, np.uint32), zeros(N, np.uint32)],
     lambda x, l, r: [(x << np.uint32(3)).astype(np.uint32), x >> np.uint32(2)], [1, 2])
case(el.thread_ids, "void(int32[::1])", lambda: [zeros(N, np.int32)],
     lambda o: [np.arange(N) % TPB + 1000 * (np.arange(N) // TPB)], [0])
case(el.launch_dims, "void(int32[::1])", lambda: [zeros(3, np.int32)],
     lambda o: [np.array([TPB, (N + TPB - 1) // TPB, 32])], [0])
case(el.attrs, "void(float64[:, ::1], int64[::1])", lambda: [np.zeros((7, 5)), zeros(6, np.int64)],
     lambda x, o: [np.array([35, 2, 5, 40, 8, 7])], [1], grid=1, block=32)
case(el.int_accumulate, "void(int64[::1], int64[::1])", lambda: [np.arange(300, dtype=np.int64), zeros(300, np.int64)],
     lambda x, o: [np.cumsum(x)], [1])
case(el.bump_last, "void(int32[::1])", lambda: [np.zeros(10, np.int32)],
     lambda x: [np.array([0] * 8 + [-1, 1], np.int32)], [0], grid=1, block=32)
case(el.unpack_shape, "void(float64[:, ::1], float64[::1])", lambda: [f64(600).reshape(100, 6), zeros(100, np.float64)],
     lambda x, o: [x.sum(axis=1)], [1], rtol=1e-12, atol=1e-12)
case(el.int32_index, "void(int32[::1], int32[::1])", lambda: [i32(), zeros(N, np.int32)], lambda x, o: [x * 2], [1])
case(el.uint_index, "void(int64[::1], int64[::1])", lambda: [np.arange(N, dtype=np.int64), zeros(N, np.int64)],
     lambda x, o: [x + 1], [1])
case(el.calls_device_function, "void(float32[::1], float32[::1])", lambda: [f32(), zeros(N, np.float32)],
     lambda x, o: [x * 2 + 1], [1], **F32)
case(el.local_scratch, "void(float32[::1], float32[::1])", lambda: [f32(), zeros(N, np.float32)],
     lambda x, o: [x + 4], [1], **F32)
# ---- 2-d and 3-d
G2, B2 = (4, 4), (16, 16)  # 64 x 64 threads over arrays up to 50 x 60
case(el.add_2d, "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])",
     lambda: [f32(50 * 60).reshape(50, 60), f32(50 * 60)[::-1].reshape(50, 60).copy(), zeros((50, 60), np.float32)],
     lambda a, b, o: [a + b], [2], grid=G2, block=B2)
case(el.transpose, "void(int32[:, ::1], int32[:, ::1])", lambda: [i32(50 * 60).reshape(50, 60), zeros((60, 50), np.int32)],
     lambda x, o: [x.T], [1], grid=G2, block=B2)
case(el.scale_f_order, "void(float64[::1, :], float64)", lambda: [View(f64(50 * 60).reshape(60, 50), lambda a: a.T), 2.0],
     lambda x, s: [x * s], [0], grid=G2, block=B2)
case(el.add_2d, "void(float32[:, :], float32[:, :], float32[:, :])",
     lambda: [View(f32(50 * 120).reshape(50, 120), lambda a: a[:, ::2]), View(f32(60 * 50).reshape(60, 50), lambda a: a.T),
              View(zeros((100, 60), np.float32), lambda a: a[::2])],
     lambda a, b, o: [a + b], [2], grid=G2, block=B2)
case(el.row_sums, "void(float32[:, :], float32[::1])", lambda: [View(f32(80 * 30).reshape(80, 30), lambda a: a[::2, 1:]),
                                                                 zeros(40, np.float32)],
     lambda x, o: [x.sum(axis=1, dtype=np.float64)], [1], **F32)
case(el.chained_index, "void(int32[:, ::1], int32[:, ::1])", lambda: [i32(50 * 60).reshape(50, 60), zeros((50, 60), np.int32)],
     lambda x, o: [x * 10], [1], grid=G2, block=B2)
case(el.row_view, "void(float64[:, ::1], float64[::1])", lambda: [f64(70 * 9).reshape(70, 9), zeros(70, np.float64)],
     lambda x, o: [x[:, 0] + x[:, -1]], [1])
case(el.explicit_2d_ids, "void(int64[:, ::1])", lambda: [zeros((50, 60), np.int64)],
     lambda o: [100 * np.arange(50)[:, None] + np.arange(60)[None, :]], [0], grid=G2, block=B2)
case(el.fill_3d, "void(int32[:, :, ::1])", lambda: [zeros((6, 7, 8), np.int32)],
     lambda o: [np.fromfunction(lambda i, j, k: 100 * i + 10 * j + k, (6, 7, 8)).astype(np.int32)], [0],
     grid=(2, 2, 2), block=(4, 4, 4))
case(el.gridsize_2d, "void(int64[:, ::1])", lambda: [zeros((70, 90), np.int64)],
     lambda o: [np.arange(70)[:, None] - np.arange(90)[None, :]], [0], grid=(2, 2), block=(8, 8))
# ---- bit and math intrinsics (popc, clz, ffs, brev, fma, cbrt, selp), against Python's integers


def _bits(x, width, f):
    mask = (1 << width) - 1
    return np.array([f(int(v) & mask) for v in x])


def _u32_edges():
    x = rng().integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    x[:4] = [0, 1, 2**31, 2**32 - 1]
    return x


def _i64_edges():
    x = rng().integers(-2**63, 2**63 - 1, N, dtype=np.int64)
    x[:5] = [0, 1, -1, -2**63, 2**62]
    return x


case(el.bit_ops_u32, "void(uint32[::1], uint32[::1], uint32[::1], uint32[::1], uint32[::1])",
     lambda: [_u32_edges()] + [zeros(N, np.uint32) for _ in range(4)],
     lambda x, p, l, f, r: [_bits(x, 32, lambda v: bin(v).count("1")), _bits(x, 32, lambda v: 32 - v.bit_length()),
                            _bits(x, 32, lambda v: (v & -v).bit_length()), _bits(x, 32, lambda v: int(f"{v:032b}"[::-1], 2))],
     [1, 2, 3, 4])
case(el.bit_ops_i64, "void(int64[::1], int64[::1], int64[::1], uint32[::1])",
     lambda: [_i64_edges(), zeros(N, np.int64), zeros(N, np.int64), zeros(N, np.uint32)],
     lambda x, p, l, f: [_bits(x, 64, lambda v: bin(v).count("1")), _bits(x, 64, lambda v: 64 - v.bit_length()),
                         _bits(x, 64, lambda v: (v & -v).bit_length())],
     [1, 2, 3])
case(el.fma_cbrt_selp, "void(float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64[::1])",
     lambda: [f64(), f64()[::-1].copy(), f64(lo=-1, hi=1), zeros(N, np.float64), zeros(N, np.float64), zeros(N, np.float64)],
     lambda a, b, c, fu, r, m: [a * b + c, np.cbrt(a), np.where(a > b, a, b)], [3, 4, 5], rtol=1e-14, atol=1e-14)

# ---- module-level NumPy arrays as constant memory (directly and through const.array_like)


def _stencil3(x, w):
    o = np.zeros_like(x)
    o[1:-1] = w[0] * x[:-2] + w[1] * x[1:-1] + w[2] * x[2:]
    return o


case(el.const_stencil, "void(float32[::1], float32[::1])", lambda: [f32(), zeros(N, np.float32)],
     lambda x, o: [_stencil3(x, el.STENCIL_WEIGHTS)], [1], **F32)
case(el.const_lookup, "void(int64[::1], int64[::1])",
     lambda: [rng().integers(0, 1000, N), zeros(N, np.int64)],
     lambda idx, o: [el.LOOKUP[idx % 3, np.arange(N) % 4]], [1])

# ---- tuples of arrays, and arrays of different layouts unified (C with strided: 'A')
case(el.tuple_of_views, "void(float64[::1], float64[::1])", lambda: [f64(), zeros(N, np.float64)],
     lambda x, o: [np.append((x[1:] - x[:-1]) * 2.0, 0.0)], [1], rtol=1e-15)
case(el.pick_by_flag, "void(float32[::1], float32[:], float32[::1], bool)",
     lambda: [f32(), View(f32(2 * N), lambda a: a[::2]), zeros(N, np.float32), False],
     lambda x, y, o, flag: [y - 2 * x], [2], **F32)

# ---- shared memory, barriers, atomics, warps
NB = (N + TPB - 1) // TPB
case(co.block_sum, "void(float32[::1], float32[::1])", lambda: [f32(), zeros(NB, np.float32)],
     lambda x, p: [np.add.reduceat(np.pad(x, (0, NB * TPB - N)).astype(np.float64), np.arange(0, NB * TPB, TPB))],
     [1], rtol=1e-5, atol=1e-4)
case(co.atomic_sum_f32, "void(float32[::1], float32[::1])", lambda: [f32(), zeros(1, np.float32)],
     lambda x, o: [np.array([x.astype(np.float64).sum()])], [1], rtol=1e-4, atol=1e-3)
case(co.atomic_count, "void(float64[::1], int32[::1])", lambda: [f64(), zeros(1, np.int32)],
     lambda x, o: [np.array([(x > 0).sum()])], [1])
case(co.histogram, "void(int32[::1], int32[::1])", lambda: [i32(lo=0, hi=10**6), zeros(16, np.int32)],
     lambda x, b: [np.bincount(x % 16, minlength=16)], [1])
case(co.atomic_max_i32, "void(int32[::1], int32[::1])", lambda: [i32(), np.full(1, -2**31, np.int32)],
     lambda x, o: [np.array([x.max()])], [1])
case(co.atomic_min_f32, "void(float32[::1], float32[::1])", lambda: [f32(), np.full(1, np.inf, np.float32)],
     lambda x, o: [np.array([x.min()])], [1])
case(co.atomic_max_f64, "void(float64[::1], float64[::1])", lambda: [f64(), np.full(1, -np.inf)],
     lambda x, o: [np.array([x.max()])], [1])
case(co.atomic_sub_i64, "void(int64[::1], int64[::1])", lambda: [np.arange(N, dtype=np.int64), np.full(1, 10**9, np.int64)],
     lambda x, o: [np.array([10**9 - x.sum()])], [1])
case(co.atomic_bits_u32, "void(uint32[::1], uint32[::1])",
     lambda: [rng().integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32), np.array([2**32 - 1, 0, 0], np.uint32)],
     lambda x, o: [np.array([np.bitwise_and.reduce(x), np.bitwise_or.reduce(x), np.bitwise_xor.reduce(x)], np.uint32)], [1])
case(co.atomic_exch_collect, "void(int32[::1], int32[::1])", lambda: [zeros(1, np.int32), zeros(N, np.int32)],
     # every value 0..N is seen exactly once: the initial 0 and each thread's i + 1 but the last one written
     lambda o, s: [None, None], [0, 1],
     check=lambda o, s: np.testing.assert_array_equal(np.sort(np.append(s, o)), np.arange(N + 1)))
case(co.atomic_cas_increment, "void(int32[::1], int64)", lambda: [zeros(1, np.int32), N],
     lambda c, n: [np.array([N])], [0])
case(co.atomic_inc_dec_u32, "void(uint32[::1], int64)", lambda: [np.array([0, 50], np.uint32), 25],
     # inc with limit 9 wraps 0..9: 25 increments leave 25 % 10; dec from 50 by 25 leaves 25
     lambda o, n: [np.array([25 % 10, 25], np.uint32)], [0], grid=1, block=32)
case(co.atomic_2d_index, "void(int32[::1], int32[:, ::1])", lambda: [i32(lo=0, hi=1000), zeros((2, 3), np.int32)],
     lambda x, o: [np.histogram2d(x % 2, x % 3, bins=[2, 3], range=[[0, 2], [0, 3]])[0].astype(np.int32)], [1])
case(co.atomic_returns_old, "void(int32[::1], int32[::1])", lambda: [zeros(1, np.int32), zeros(N, np.int32)],
     lambda o, t: [np.array([N]), None], [0, 1],
     check=lambda o, t: np.testing.assert_array_equal(np.sort(t), np.arange(N)))
case(co.count_positive_per_block, "void(float32[::1], int32[::1])", lambda: [f32(), zeros(NB, np.int32)],
     lambda x, o: [np.add.reduceat((np.pad(x, (0, NB * TPB - N)) > 0).astype(np.int64), np.arange(0, NB * TPB, TPB))], [1])
case(co.all_any_per_block, "void(float32[::1], int32[:, ::1])",
     lambda: [np.concatenate([np.full(TPB, 1.0), np.full(TPB, 7.0), f32(TPB)]).astype(np.float32), zeros((3, 2), np.int32)],
     lambda x, o: [(np.stack([(x.reshape(3, TPB) > 0).all(1), (x.reshape(3, TPB) > 5).any(1)], 1) != 0).astype(np.int32)],
     [1], grid=3)
case(co.block_prefix_sum, "void(int64[::1], int64[::1])", lambda: [rng().integers(-50, 50, N), zeros(N, np.int64)],
     lambda x, o: [np.concatenate([np.cumsum(c) for c in np.split(x, range(TPB, N, TPB))])], [1])
M, K, P = 40, 50, 30
case(co.matmul_tiled, "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])",
     lambda: [f32(M * K).reshape(M, K), f32(K * P).reshape(K, P), zeros((M, P), np.float32)],
     lambda a, b, c: [a.astype(np.float64) @ b], [2], grid=(3, 2), block=(co.TILE, co.TILE), rtol=1e-4, atol=1e-3)
case(co.matmul_naive, "void(float64[:, :], float64[:, :], float64[:, ::1])",
     lambda: [View(f64(K * M).reshape(K, M), lambda a: a.T), f64(K * P).reshape(K, P), zeros((M, P), np.float64)],
     lambda a, b, c: [a @ b], [2], grid=(3, 2), block=(16, 16), rtol=1e-12, atol=1e-12)
case(co.stencil_1d, "void(float64[::1], float64[::1])", lambda: [f64(), zeros(N, np.float64)],
     lambda x, o: [np.concatenate([[0], 0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:], [0]])], [1], rtol=1e-12, atol=1e-12)
case(co.stencil_1d_shared, "void(float32[::1], float32[::1])", lambda: [f32(), zeros(N, np.float32)],
     lambda x, o: [np.concatenate([[0], x[:-2] + x[1:-1] + x[2:], [0]])], [1], **F32)
case(co.stencil_2d, "void(float64[:, ::1], float64[:, ::1])", lambda: [f64(50 * 60).reshape(50, 60), zeros((50, 60), np.float64)],
     lambda x, o: [np.pad(x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:] - 4 * x[1:-1, 1:-1], 1)], [1],
     grid=G2, block=B2, rtol=1e-12, atol=1e-12)
W = 1024  # whole warps
case(co.warp_sum, "void(float32[::1], float32[::1])", lambda: [f32(W), zeros(W // 32, np.float32)],
     lambda x, o: [x.reshape(-1, 32).astype(np.float64).sum(1)], [1], grid=W // TPB, rtol=1e-5, atol=1e-4)
case(co.warp_broadcast_and_butterfly, "void(int64[::1], int64[::1], int64[::1])",
     lambda: [rng().integers(-2**40, 2**40, W), zeros(W, np.int64), zeros(W, np.int64)],
     lambda x, f, t: [np.repeat(x.reshape(-1, 32)[:, 0], 32), np.repeat(x.reshape(-1, 32).sum(1), 32)], [1, 2],
     grid=W // TPB)
case(co.warp_scan, "void(int32[::1], int32[::1])", lambda: [i32(W, -100, 100), zeros(W, np.int32)],
     lambda x, o: [np.cumsum(x.reshape(-1, 32), axis=1).reshape(-1)], [1], grid=W // TPB)
case(co.warp_votes, "void(float64[::1], uint32[:, ::1])",
     lambda: [np.concatenate([np.ones(32), -np.ones(32), f64(W - 64)]), zeros((W // 32, 3), np.uint32)],
     lambda x, o: [np.stack([(x.reshape(-1, 32) > 0).all(1), (x.reshape(-1, 32) > 0).any(1),
                             ((x.reshape(-1, 32) > 0) * (1 << np.arange(32, dtype=np.uint64))).sum(1)], 1).astype(np.uint32)],
     [1], grid=W // TPB)
case(co.lane_and_warp, "void(int32[::1])", lambda: [zeros(N, np.int32)], lambda o: [np.arange(N) % 32 * 100 + 32], [0])
case(co.dynamic_shared_reverse, "void(float32[::1], float32[::1])", lambda: [f32(W), zeros(W, np.float32)],
     lambda x, o: [x.reshape(-1, 128)[:, ::-1].reshape(-1)], [1], grid=W // 128, block=128, shared=128 * 4)
case(co.fence_and_flag, "void(float32[::1], float32[::1], int32[::1])",
     lambda: [f32(), zeros(N, np.float32), zeros(1, np.int32)], lambda x, o, f: [x + 1, np.array([N])], [1, 2], **F32)


# ---- slices inside kernels
def _window(x, lo, hi, o):
    w = x[lo:hi][::-1]
    o = o.copy()
    o[:len(w)] = w
    o[-1] = len(w)
    return [o]


def _strided_block(a, step, o):
    blk = a[1:-1:2, ::step]
    o = o.copy()
    o[:blk.shape[0], :blk.shape[1]] = blk
    o[-1, -1] = blk.shape[0] * 1000 + blk.shape[1]
    return [o]


case(sl.shifted_difference, "void(const float32[:], float32[::1])", lambda: [View(f32(2 * N), lambda a: a[::2]),
                                                                            zeros(N, np.float32)],
     lambda x, o: [np.concatenate([x[1:] - x[:-1], [0]])], [1], **F32)
case(sl.even_times_odd, "void(const float64[::1], float64[::1])", lambda: [f64(), zeros(N // 2, np.float64)],
     lambda x, o: [x[::2] * x[1::2]], [1], rtol=1e-12, atol=1e-12)
case(sl.window_reversed, "void(const int32[::1], int64, int64, int32[::1])",
     lambda: [i32(), -700, 2000, zeros(N, np.int32)], _window, [3])
case(sl.row_minus_column, "void(const float64[:, :], float64[::1])",
     lambda: [View(f64(60 * 60).reshape(60, 60), lambda a: a[5:55, 5:55].T), zeros(50, np.float64)],
     lambda a, o: [a.sum(1) - a.sum(0)], [1], grid=1, block=64, rtol=1e-12, atol=1e-12)
case(sl.strided_block, "void(const float32[:, ::1], int64, float32[:, ::1])",
     lambda: [f32(50 * 60).reshape(50, 60), -3, zeros((30, 30), np.float32)], _strided_block, [2], grid=G2, block=B2)
