"""cuda.compute's algorithms (cuda-cccl 1.2.1) running operators cubridge compiled, on a GPU: reduce_into,
unary and binary transform, inclusive_scan and segmented_reduce with defs and lambdas, a stateful operator
(its state changed without recompiling), every operator type through a reduction (the C ABI of bool and
the small ints checked by value), each result equal to NumPy's; and no numba module imported."""
import subprocess
import sys

import numpy as np
import pytest

import cubridge.cccl as cccl

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")
compute = pytest.importorskip("cuda.compute")

rng = np.random.default_rng(26)


def maximum(a, b):
    return a if a > b else b


def test_reduce_into_sum_of_a_lambda():
    h = rng.random(100_000, dtype=np.float32)
    d, out = cp.asarray(h), cp.empty(1, np.float32)
    compute.reduce_into(d_in=d, d_out=out, op=cccl.op(lambda a, b: a + b, "float32(float32, float32)"),
                        num_items=h.size, h_init=np.zeros(1, np.float32))
    np.testing.assert_allclose(out.get()[0], h.sum(dtype=np.float64), rtol=1e-4)


@pytest.mark.parametrize("t", list(cccl.C_TYPES))
def test_reduce_into_maximum_of_every_type(t):
    if t == "bool":
        h = rng.random(5000) < 0.001
    elif np.dtype(t).kind == "f":
        h = rng.standard_normal(5000).astype(t)
    else:
        info = np.iinfo(t)
        h = rng.integers(info.min, info.max, 5000, dtype=t, endpoint=True)
    d, out = cp.asarray(h), cp.empty(1, t)
    init = np.array([False if t == "bool" else np.iinfo(t).min if np.dtype(t).kind in "iu" else -np.inf], t)
    compute.reduce_into(d_in=d, d_out=out, op=cccl.op(maximum, f"{t}({t}, {t})"), num_items=h.size, h_init=init)
    assert out.get()[0] == h.max()


def test_unary_and_binary_transform():
    h1 = rng.standard_normal(10_001)
    h2 = rng.standard_normal(10_001)
    d1, d2, out = cp.asarray(h1), cp.asarray(h2), cp.empty(10_001, np.float64)
    compute.unary_transform(d_in=d1, d_out=out, op=cccl.op(lambda x: x * x + 1.0, "float64(float64)"),
                            num_items=h1.size)
    np.testing.assert_allclose(out.get(), h1 * h1 + 1.0)
    compute.binary_transform(d_in1=d1, d_in2=d2, d_out=out,
                             op=cccl.op(lambda x, y: x * 2.0 - y, "float64(float64, float64)"), num_items=h1.size)
    np.testing.assert_allclose(out.get(), h1 * 2.0 - h2)


def test_inclusive_scan_of_maximum():
    h = rng.integers(-1000, 1000, 50_000, dtype=np.int32)
    d, out = cp.asarray(h), cp.empty_like(cp.asarray(h))
    compute.inclusive_scan(d_in=d, d_out=out, op=cccl.op(maximum, "int32(int32, int32)"),
                           init_value=np.array([-(2**31)], np.int32), num_items=h.size)
    np.testing.assert_array_equal(out.get(), np.maximum.accumulate(h))


def test_segmented_reduce_of_minimum():
    h = rng.integers(0, 1 << 30, 9_000, dtype=np.int64)
    offsets = np.array([0, 10, 10, 4000, 8999, 9000], dtype=np.int64)
    d, out = cp.asarray(h), cp.empty(5, np.int64)
    starts, ends = cp.asarray(offsets[:-1]), cp.asarray(offsets[1:])
    big = np.iinfo(np.int64).max
    compute.segmented_reduce(d_in=d, d_out=out, num_segments=5, start_offsets_in=starts, end_offsets_in=ends,
                             op=cccl.op(lambda a, b: a if a < b else b, "int64(int64, int64)"),
                             h_init=np.array([big], np.int64))
    expected = [h[s:e].min() if e > s else big for s, e in zip(offsets[:-1], offsets[1:])]
    np.testing.assert_array_equal(out.get(), expected)


def test_a_stateful_operator_takes_new_state_without_recompiling():
    h = rng.standard_normal(4096).astype(np.float32)
    d, out = cp.asarray(h), cp.empty(4096, np.float32)
    scale = lambda s, b, x: x * s + b  # noqa: E731
    for s, b in ((2.0, 1.0), (-3.0, 0.5)):
        op = cccl.op(scale, "float32(float32)", state=(np.float32(s), np.float64(b)))
        compute.unary_transform(d_in=d, d_out=out, op=op, num_items=h.size)
        np.testing.assert_allclose(out.get(), (h * np.float32(s)).astype(np.float64) + b, rtol=1e-6)


def test_no_numba_module_is_imported():
    code = ("import sys, numpy as np, cupy as cp, cuda.compute as c, cubridge.cccl as cc\n"
            "d, o = cp.arange(10, dtype=np.int32), cp.empty(1, np.int32)\n"
            "c.reduce_into(d_in=d, d_out=o, op=cc.op(cc_add, 'int32(int32, int32)'), num_items=10, "
            "h_init=np.zeros(1, np.int32))\n"
            "assert o.get()[0] == 45\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'numba_cuda_mlir')))\n")
    code = "def cc_add(a, b):\n    return a + b\n" + code
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_reduce_into_of_a_struct_operator():
    pair = compute.gpu_struct({"total": np.float64, "biggest": np.int32}, name="Pair")
    n = 20_000
    h = np.empty(n, pair.dtype)
    h["total"] = rng.standard_normal(n)
    h["biggest"] = rng.integers(-10**6, 10**6, n, dtype=np.int32)
    d, out = cp.asarray(h.view(np.uint8)).view(pair.dtype), cp.empty(1, pair.dtype)

    def combine(a, b):
        return (a[0] + b[0], a[1] if a[1] > b[1] else b[1])

    compute.reduce_into(d_in=d, d_out=out, op=cccl.op(combine, (pair, [pair, pair])), num_items=n,
                        h_init=pair(0.0, -(2**31)))
    got = out.get()[0]
    np.testing.assert_allclose(got["total"], h["total"].sum(), rtol=1e-9)
    assert got["biggest"] == h["biggest"].max()


def test_transform_of_a_struct_into_a_scalar():
    pair = compute.gpu_struct({"x": np.float32, "y": np.float32}, name="XY")
    h = np.empty(5000, pair.dtype)
    h["x"], h["y"] = rng.standard_normal(5000), rng.standard_normal(5000)
    d, out = cp.asarray(h.view(np.uint8)).view(pair.dtype), cp.empty(5000, np.float32)
    compute.unary_transform(d_in=d, d_out=out, op=cccl.op(lambda p: p[0] * p[1], ("float32", [pair])),
                            num_items=5000)
    np.testing.assert_allclose(out.get(), h["x"] * h["y"], rtol=1e-6)
