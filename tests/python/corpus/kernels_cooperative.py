"""Kernel corpus, part 2: kernels whose threads cooperate: shared memory with barriers (reductions, a
block prefix sum, a tiled matrix multiply, a stencil with halo), atomics of every kind, warp shuffles and
votes, dynamic shared memory. Block size TPB unless the case says otherwise (kernel_cases.py)."""
import cubridge

TPB = 64
TILE = 16


def block_sum(x, partial):
    s = cubridge.shared.array(TPB, cubridge.float32)
    t = cubridge.threadIdx.x
    i = cubridge.grid(1)
    s[t] = x[i] if i < x.shape[0] else 0.0
    cubridge.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cubridge.syncthreads()
        step //= 2
    if t == 0:
        partial[cubridge.blockIdx.x] = s[0]


def atomic_sum_f32(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        cubridge.atomic.add(out, 0, x[i])


def atomic_count(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0] and x[i] > 0:
        cubridge.atomic.add(out, 0, 1)


def histogram(x, bins):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        cubridge.atomic.add(bins, x[i] % bins.shape[0], 1)


def atomic_max_i32(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        cubridge.atomic.max(out, 0, x[i])


def atomic_min_f32(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        cubridge.atomic.min(out, 0, x[i])


def atomic_max_f64(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        cubridge.atomic.max(out, 0, x[i])


def atomic_sub_i64(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        cubridge.atomic.sub(out, 0, x[i])


def atomic_bits_u32(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        cubridge.atomic.and_(out, 0, x[i])
        cubridge.atomic.or_(out, 1, x[i])
        cubridge.atomic.xor(out, 2, x[i])


def atomic_exch_collect(out, seen):
    i = cubridge.grid(1)
    if i < seen.shape[0]:
        seen[i] = cubridge.atomic.exch(out, 0, i + 1)


def atomic_cas_increment(counter, n):
    i = cubridge.grid(1)
    if i < n:
        old = counter[0]
        while True:
            got = cubridge.atomic.cas(counter, 0, old, old + 1)
            if got == old:
                break
            old = got


def atomic_inc_dec_u32(out, n):
    i = cubridge.grid(1)
    if i < n:
        cubridge.atomic.inc(out, 0, 9)
        cubridge.atomic.dec(out, 1, 100)


def atomic_2d_index(x, out):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        cubridge.atomic.add(out, (x[i] % 2, x[i] % 3), 1)


def atomic_returns_old(out, tickets):
    i = cubridge.grid(1)
    if i < tickets.shape[0]:
        tickets[i] = cubridge.atomic.add(out, 0, 1)


def count_positive_per_block(x, out):
    i = cubridge.grid(1)
    v = x[i] if i < x.shape[0] else 0.0
    c = cubridge.syncthreads_count(v > 0)
    if cubridge.threadIdx.x == 0:
        out[cubridge.blockIdx.x] = c


def all_any_per_block(x, out):
    i = cubridge.grid(1)
    v = x[i]
    a = cubridge.syncthreads_and(v > 0)
    o = cubridge.syncthreads_or(v > 5)
    if cubridge.threadIdx.x == 0:
        out[cubridge.blockIdx.x, 0] = a
        out[cubridge.blockIdx.x, 1] = o


def block_prefix_sum(x, out):
    s = cubridge.shared.array(TPB, cubridge.int64)
    t = cubridge.threadIdx.x
    i = cubridge.grid(1)
    s[t] = x[i] if i < x.shape[0] else 0
    cubridge.syncthreads()
    offset = 1
    while offset < TPB:
        v = s[t - offset] if t >= offset else 0
        cubridge.syncthreads()
        s[t] += v
        cubridge.syncthreads()
        offset *= 2
    if i < x.shape[0]:
        out[i] = s[t]


def matmul_tiled(a, b, c):
    sa = cubridge.shared.array((TILE, TILE), cubridge.float32)
    sb = cubridge.shared.array((TILE, TILE), cubridge.float32)
    x, y = cubridge.grid(2)
    tx = cubridge.threadIdx.x
    ty = cubridge.threadIdx.y
    acc = cubridge.float32(0)
    for k0 in range(0, a.shape[1], TILE):
        sa[tx, ty] = a[x, k0 + ty] if x < a.shape[0] and k0 + ty < a.shape[1] else 0
        sb[tx, ty] = b[k0 + tx, y] if k0 + tx < b.shape[0] and y < b.shape[1] else 0
        cubridge.syncthreads()
        for k in range(TILE):
            acc += sa[tx, k] * sb[k, ty]
        cubridge.syncthreads()
    if x < c.shape[0] and y < c.shape[1]:
        c[x, y] = acc


def matmul_naive(a, b, c):
    i, j = cubridge.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


def stencil_1d(x, out):
    i = cubridge.grid(1)
    if 0 < i < x.shape[0] - 1:
        out[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1]


def stencil_1d_shared(x, out):
    s = cubridge.shared.array(TPB + 2, cubridge.float32)
    t = cubridge.threadIdx.x
    i = cubridge.grid(1)
    n = x.shape[0]
    s[t + 1] = x[i] if i < n else 0.0
    if t == 0:
        s[0] = x[i - 1] if i > 0 else 0.0
    if t == TPB - 1:
        s[TPB + 1] = x[i + 1] if i + 1 < n else 0.0
    cubridge.syncthreads()
    if 0 < i < n - 1:
        out[i] = s[t] + s[t + 1] + s[t + 2]


def stencil_2d(x, out):
    i, j = cubridge.grid(2)
    if 0 < i < x.shape[0] - 1 and 0 < j < x.shape[1] - 1:
        out[i, j] = x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1] - 4 * x[i, j]


def warp_sum(x, out):
    i = cubridge.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += cubridge.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cubridge.laneid == 0:
        out[i // 32] = v


def warp_broadcast_and_butterfly(x, first, total):
    i = cubridge.grid(1)
    v = x[i]
    first[i] = cubridge.shfl_sync(0xFFFFFFFF, v, 0)
    s = v
    m = 16
    while m > 0:
        s += cubridge.shfl_xor_sync(0xFFFFFFFF, s, m)
        m //= 2
    total[i] = s


def warp_scan(x, out):
    i = cubridge.grid(1)
    lane = cubridge.laneid
    v = x[i]
    d = 1
    while d < 32:
        u = cubridge.shfl_up_sync(0xFFFFFFFF, v, d)
        if lane >= d:
            v += u
        d *= 2
    out[i] = v


def warp_votes(x, out):
    i = cubridge.grid(1)
    p = x[i] > 0
    a = cubridge.all_sync(0xFFFFFFFF, p)
    b = cubridge.any_sync(0xFFFFFFFF, p)
    c = cubridge.ballot_sync(0xFFFFFFFF, p)
    if cubridge.laneid == 0:
        w = i // 32
        out[w, 0] = a
        out[w, 1] = b
        out[w, 2] = c


def lane_and_warp(out):
    i = cubridge.grid(1)
    if i < out.shape[0]:
        cubridge.syncwarp()
        out[i] = cubridge.laneid * 100 + cubridge.warpsize


def dynamic_shared_reverse(x, out):
    s = cubridge.shared.array(0, cubridge.float32)
    t = cubridge.threadIdx.x
    i = cubridge.grid(1)
    s[t] = x[i]
    cubridge.syncthreads()
    out[i] = s[s.shape[0] - 1 - t]


def fence_and_flag(x, out, flag):
    i = cubridge.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] + 1
        cubridge.threadfence()
        cubridge.threadfence_block()
        cubridge.atomic.add(flag, 0, 1)
