"""cubridge.jax.kernel_call without a GPU: how operands, results and static scalars map to a kernel's
parameters, the packed parameter buffer built at trace time, the call site's opaque bytes (encoded and
decoded by the C++ the target uses), and every refusal's message (argument count, dtypes, traced
scalars, launch extents, vmap)."""
import struct

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import cubridge  # noqa: E402
import cubridge.jax as cj  # noqa: E402
import cubridge.xla as cx  # noqa: E402
from cubridge import _core  # noqa: E402



class FakeKernel:
    """Stands in for a loaded cubridge.Kernel: everything kernel_call reads before the GPU."""

    def __init__(self, signature, name="k"):
        self.signature = cubridge.KernelSignature(signature)
        self.name = name
        self.image = b".version 8.0\n"


def words(buf, start, count):
    return list(struct.unpack_from(f"<{count}q", buf, start))


def spec(shape, dtype=jnp.float32):
    return jax.ShapeDtypeStruct(shape, dtype)


TRANSFORM = "void(const float32*, const float32*, float32*, uint64)"


def test_pointer_kernel_operands_results_and_static_scalars():
    kc = cj.kernel_call(FakeKernel(TRANSFORM), spec((1000,)), griddim=lambda a, b: (a[0] + 255) // 256, blockdim=256)
    a = jnp.zeros(1000, jnp.float32)
    kernel, operands, packed, grid, block = kc.plan(a, a, 1000)
    assert operands == [a, a] and grid == [4] and block == [256]
    assert words(packed, 0, 4) == [0, 0, 0, 1000]  # data pointers are written by the target per call


def test_numba_abi_results_are_the_trailing_array_parameters():
    kc = cj.kernel_call(FakeKernel("void(const float32[:, ::1], float64, int32[:], float32[:, :])"),
                        (spec((6,), jnp.int32), spec((4, 5))), griddim=(2, 1), blockdim=(8, 8, 1))
    x = jnp.zeros((3, 7), jnp.float32)
    _, operands, packed, grid, block = kc.plan(x, 2.5)
    assert operands == [x] and grid == [2, 1] and block == [8, 8, 1]
    # x: meminfo parent nitems itemsize data shape strides; the float64; then the two results.
    assert words(packed, 0, 9) == [0, 0, 21, 4, 0, 3, 7, 28, 4]
    assert struct.unpack_from("<d", packed, 72)[0] == 2.5
    assert words(packed, 80, 7) == [0, 0, 6, 4, 0, 6, 4]  # int32[:] of 6: flat shape and stride
    assert words(packed, 136, 9) == [0, 0, 20, 4, 0, 4, 5, 20, 4]


@pytest.mark.parametrize("args, error, message", [
    ((1,), TypeError, r"kernel_call: kernel 'k' void\(const float32\*, const float32\*, float32\*, uint64\) "
                      r"with 1 result\(s\) takes 3 arguments \(const float32\*, const float32\*, uint64\), got 1"),
    (("x", "y", 3), TypeError, r"kernel_call: argument 0 \(const float32\*\) must be an array \(a jax.Array or a "
                               r"traced value\), got str 'x'"),
    ("f64", TypeError, r"kernel_call: kernel 'k': argument 1: a float64 array \(typestr '<f8'\) was passed where "
                       r"the signature says const float32\*"),
    ("bf16", TypeError, r"kernel_call: argument 0 \(const float32\*\) has dtype bfloat16, which no kernel "
                        r"parameter type matches"),
    ("array_n", TypeError, r"kernel_call: argument 3 \(uint64\) must be a Python or NumPy number, known at trace "
                           r"time; got "),
    ("negative_n", ValueError, r"kernel_call: kernel 'k': argument 3: -1 is out of range for uint64"),
])
def test_refusals_name_the_argument_and_the_signature(args, error, message):
    a = jnp.zeros(8, jnp.float32)
    args = {"f64": (a, jnp.zeros(8, jnp.float64) if jax.config.jax_enable_x64 else np.zeros(8, np.float64), 8),
            "bf16": (jnp.zeros(8, jnp.bfloat16), a, 8),
            "array_n": (a, a, jnp.asarray(8)),
            "negative_n": (a, a, -1)}.get(args, args)
    kc = cj.kernel_call(FakeKernel(TRANSFORM), spec((8,)), 1, 8)
    with pytest.raises(error, match=message):
        kc.plan(*args)


def test_a_traced_scalar_is_refused_with_the_fix():
    kc = cj.kernel_call(FakeKernel(TRANSFORM), spec((8,)), 1, 8)
    with pytest.raises(TypeError, match=r"argument 3 \(uint64\) must be a Python or NumPy number, known at trace "
                                        r"time; .*pass e.g. x.shape\[0\]"):
        jax.make_jaxpr(lambda a, n: kc(a, a, n))(jnp.zeros(8, jnp.float32), 8)


def test_dtype_and_layout_of_results_are_checked_against_the_signature():
    with pytest.raises(TypeError, match=r"argument 2: a int32 array \(typestr '<i4'\) was passed where the "
                                        r"signature says float32\*"):
        cj.kernel_call(FakeKernel(TRANSFORM), spec((8,), jnp.int32), 1, 8).plan(
            jnp.zeros(8, jnp.float32), jnp.zeros(8, jnp.float32), 8)
    with pytest.raises(TypeError, match=r"argument 0: an array that is not F-contiguous \(strides \(12, 4\)\)"):
        cj.kernel_call(FakeKernel("float32[::1, :], float32[:]"), spec((4,)), 1, 8).plan(jnp.zeros((2, 3), jnp.float32))
    with pytest.raises(ValueError, match=r"kernel_call: 2 results, but kernel 'k' has only 1 array or pointer "
                                         r"parameters to write them"):
        cj.kernel_call(FakeKernel("float32[:], int32"), (spec((4,)), spec((4,))), 1, 8).plan(3)


@pytest.mark.parametrize("griddim, message", [
    ((1, 2, 3, 4), r"griddim \(1, 2, 3, 4\) is not an int or a tuple of 1 to 3 ints"),
    (lambda *shapes: 2.5, r"griddim 2.5 is not an int"),
    ("8", r"griddim '8' is not an int"),
])
def test_bad_launch_extents(griddim, message):
    kc = cj.kernel_call(FakeKernel("float32[:]"), spec((4,)), griddim, 8)
    with pytest.raises(TypeError, match=message):
        kc.plan()


def test_constructor_refusals():
    with pytest.raises(TypeError, match=r"kernel_call: 3 \(int\) is not a cubridge.Kernel"):
        cj.kernel_call(3, spec((4,)), 1, 1)
    with pytest.raises(ValueError, match=r"sharedmem=-1 is not a number of bytes"):
        cj.kernel_call(FakeKernel("float32[:]"), spec((4,)), 1, 1, sharedmem=-1)
    with pytest.raises(TypeError, match=r"result 4 has no .shape and .dtype"):
        cj.kernel_call(FakeKernel("float32[:]"), 4, 1, 1)


def test_opaque_round_trips_through_the_targets_decoder():
    kc = cj.kernel_call(FakeKernel(TRANSFORM), spec((1000,)), 4, 256, sharedmem=1024)
    a = jnp.zeros(1000, jnp.float32)
    _, _, packed, grid, block = kc.plan(a, a, 1000)
    opaque = kc.opaque(7, 0xFEEDFACECAFEBEEF, packed, grid, block)
    entries = cx.decode_opaque(opaque)
    assert entries["kernel"] == 7 and entries["grid"] == [4] and entries["block"] == [256]
    assert entries["shared"] == 1024 and entries["args"] == packed
    assert entries["fingerprint"] & (2**64 - 1) == 0xFEEDFACECAFEBEEF
    assert _core._xla_kernel_call_decode(opaque) == (7, 0xFEEDFACECAFEBEEF, "4", "256", 1024, packed)


@pytest.mark.parametrize("fields, message", [
    ({"fingerprint": 1, "grid": [1], "block": [1], "shared": 0, "args": b""}, r"'kernel'"),
    ({"kernel": 1, "fingerprint": 1, "grid": [], "block": [1], "shared": 0, "args": b""},
     r"'grid' has 0 values; a launch extent has 1 to 3"),
    ({"kernel": 1, "fingerprint": 1, "grid": [1], "block": [1], "shared": -5, "args": b""},
     r"'shared' is -5; dynamic shared memory is 0 or more bytes"),
    ({"kernel": 1, "fingerprint": 1, "grid": 3, "block": [1], "shared": 0, "args": b""}, r"'grid'"),
])
def test_the_targets_decoder_refuses_bad_opaque(fields, message):
    with pytest.raises((ValueError, IndexError), match=message):
        _core._xla_kernel_call_decode(cx.encode_opaque(fields))


def test_vmap_is_refused_with_a_message(monkeypatch):
    monkeypatch.setattr(cj, "_register", lambda kernel: (1, 2))  # no GPU here: nothing to load
    monkeypatch.setattr(cj, "_prepare", lambda *args: None)
    kc = cj.kernel_call(FakeKernel("const float32[:], float32[:]", name="add"), spec((8,)), 1, 8)
    with pytest.raises(NotImplementedError, match=r"kernel_call: jax.vmap of kernel 'add' is not supported"):
        jax.make_jaxpr(jax.vmap(kc))(jnp.zeros((3, 8), jnp.float32))
    # Without vmap the same call traces to one custom call of the built-in target.
    jaxpr = jax.make_jaxpr(kc)(jnp.zeros(8, jnp.float32))
    assert cj.TARGET in str(jaxpr)


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled"])
def test_vmap_method_sequential_loops_over_the_unbatched_call(monkeypatch, method):
    monkeypatch.setattr(cj, "_register", lambda kernel: (1, 2))
    monkeypatch.setattr(cj, "_prepare", lambda *args: None)
    kc = cj.kernel_call(FakeKernel("const float32[:], float32[:]", name="add"), spec((8,)), 1, 8, vmap_method=method)
    jaxpr = str(jax.make_jaxpr(jax.vmap(kc))(jnp.zeros((3, 8), jnp.float32)))
    assert cj.TARGET in jaxpr and "f32[3,8]" in jaxpr
    assert "scan" in jaxpr or "while" in jaxpr  # JAX's loop around the unbatched (f32[8]) call
    assert "f32[8]" in jaxpr and ("unroll=3" in jaxpr) == (method == "sequential_unrolled")


@pytest.mark.parametrize("method, message", [
    ("broadcast_all", r"vmap_method='broadcast_all' would launch the kernel once on the batched buffers"),
    ("expand_dims", r"vmap_method='expand_dims' would launch"),
    ("loop", r"vmap_method='loop' is not one of None \(jax.vmap refused\), 'sequential' or 'sequential_unrolled' .*'fold'"),
])
def test_batched_vmap_methods_are_refused(method, message):
    with pytest.raises(ValueError, match=message):
        cj.kernel_call(FakeKernel("const float32[:], float32[:]"), spec((8,)), 1, 8, vmap_method=method)


def fake_calls(monkeypatch):
    monkeypatch.setattr(cj, "_register", lambda kernel: (1, 2))
    monkeypatch.setattr(cj, "_prepare", lambda *args: None)
    fwd = cj.kernel_call(FakeKernel("void(const float32[:], const float32[:], int64, float32[:])", name="mul"),
                         spec((8,)), 1, 8)
    bwd = cj.kernel_call(FakeKernel("void(const float32[:], const float32[:], int64, const float32[:], float32[:], "
                                    "float32[:])", name="mul_grad"), (spec((8,)), spec((8,))), 1, 8)
    return fwd, bwd


def test_kernel_vjp_pairs_the_forward_and_the_backward(monkeypatch):
    fwd, bwd = fake_calls(monkeypatch)
    f = cj.kernel_vjp(fwd, bwd)
    x = jnp.ones(8, jnp.float32)
    jaxpr = str(jax.make_jaxpr(jax.grad(lambda a, b: f(a, b, 8).sum(), argnums=(0, 1)))(x, x))
    assert jaxpr.count("target_name=cubridge_kernel_call") == 2  # the forward, then the backward
    pulled = jax.make_jaxpr(lambda a, b: jax.vjp(lambda a, b: f(a, b, 8), a, b)[1](a))(x, x)
    assert [v.shape for v in pulled.out_avals] == [(8,), (8,)]


def test_kernel_vjp_checks_the_backward_results(monkeypatch):
    fwd, _ = fake_calls(monkeypatch)
    one = cj.kernel_call(FakeKernel("void(const float32[:], const float32[:], int64, const float32[:], float32[:])",
                                    name="half_grad"), spec((8,)), 1, 8)
    f = cj.kernel_vjp(fwd, one)
    x = jnp.ones(8, jnp.float32)
    with pytest.raises(ValueError, match=r"kernel_vjp: the backward kernel 'half_grad' returns 1 results, but the "
                                         r"forward takes 2 array arguments"):
        jax.make_jaxpr(jax.grad(lambda a, b: f(a, b, 8).sum()))(x, x)


def test_kernel_vjp_refuses_what_is_not_a_kernel_call(monkeypatch):
    fwd, _ = fake_calls(monkeypatch)
    with pytest.raises(TypeError, match=r"kernel_vjp: backward <function .*> \(function\) is not a kernel_call"):
        cj.kernel_vjp(fwd, lambda *a: a)


def test_export_checks_name_the_target():
    checks = cj.EXPORT_CHECKS
    assert len(checks) == 1 and cj.TARGET in repr(checks[0])
    with pytest.raises(AttributeError, match=r"module 'cubridge.jax' has no attribute 'nope'"):
        cj.nope
