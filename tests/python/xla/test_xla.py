"""XLA custom calls on the CPU through real jaxlib: the documentation's seed examples written once in the
classic signature, served by cubridge's typed-FFI adapter inside jax.jit (and by XLA's classic path
where the installed jaxlib still takes it)."""
import ctypes

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import cubridge.xla as cx  # noqa: E402



def test_adapter_is_in_every_build():
    assert cx.adapter_available()
    assert cx._core._xla_ffi_api_version() == "0.3"

LIB = cx.examples_library()
CDLL = ctypes.CDLL(str(LIB))
F32 = jnp.float32


def spec(*shape):
    return jax.ShapeDtypeStruct(shape, F32)


@pytest.fixture(scope="module", autouse=True)
def targets():
    for name in ("cubridge_example_add_mod_fixed", "cubridge_example_add_mod", "cubridge_example_check_nonnegative",
                 "cubridge_example_tuple", "cubridge_example_sum_diff"):
        cx.register(LIB, name, "cpu")


@pytest.fixture(autouse=True)
def on_the_cpu():
    # The targets here are registered for the CPU; on a GPU machine jax would otherwise pick the GPU.
    with jax.default_device(jax.devices("cpu")[0]):
        yield


def add_mod_expected(b, c):
    b, c = np.asarray(b), np.asarray(c)
    return b[np.arange(c.size) % b.size] + c


def test_seed_fixed_sizes_through_the_adapter():
    b = jnp.arange(128, dtype=F32)
    c = jnp.arange(2048, dtype=F32) * 10
    out = jax.jit(lambda b, c: cx.custom_call("cubridge_example_add_mod_fixed", spec(2048), b, c))(b, c)
    np.testing.assert_array_equal(np.asarray(out), add_mod_expected(b, c))


@pytest.mark.parametrize("n,m", [(2048, 128), (1000, 7), (1, 1), (0, 3)])
def test_seed_with_sizes_through_opaque(n, m):
    b = jnp.linspace(-1, 1, m, dtype=F32)
    c = jnp.arange(n, dtype=F32)
    f = jax.jit(lambda b, c: cx.custom_call("cubridge_example_add_mod", spec(n), b, c,
                                            opaque={"n": c.size, "m": b.size}))
    np.testing.assert_array_equal(np.asarray(f(b, c)), add_mod_expected(b, c))


def test_failing_status_message_is_the_python_exception():
    x = jnp.array([1.0, 2.0, -3.0], F32)
    f = jax.jit(lambda x: cx.custom_call("cubridge_example_check_nonnegative", spec(3), x, opaque={"n": 3}))
    with pytest.raises(Exception, match=r"custom call 'cubridge_example_check_nonnegative' \(Host\) failed: "
                                        r"check_nonnegative: x\[2\] = -3 is negative"):
        jax.block_until_ready(f(x))
    ok = jnp.array([1.0, 0.0, 3.0], F32)
    np.testing.assert_array_equal(np.asarray(f(ok)), np.asarray(ok))


def test_malformed_opaque_fails_with_the_readers_message():
    b, c = jnp.ones(4, F32), jnp.ones(8, F32)
    f = jax.jit(lambda b, c: cx.custom_call("cubridge_example_add_mod", spec(8), b, c, opaque=b"junk"))
    with pytest.raises(Exception, match="opaque: malformed at byte 0: the header needs 8 bytes but there are 4"):
        jax.block_until_ready(f(b, c))
    g = jax.jit(lambda b, c: cx.custom_call("cubridge_example_add_mod", spec(8), b, c, opaque={"n": 8}))
    with pytest.raises(Exception, match=r"opaque has no entry 'm' \(entries: 'n'\)"):
        jax.block_until_ready(g(b, c))


def tuple_expected(a, b, c, d):
    a, b, c, d = map(np.asarray, (a, b, c, d))
    i, j = np.arange(1024), np.arange(512)
    scratch = b[i % 64] * c[i % 128]
    return a[j % 32] + d[j % 256] + scratch[j] + scratch[j + 512], scratch


def test_tuple_operand_and_tuple_result_with_scratch():
    a, b, c, d = (jnp.arange(n, dtype=F32) * (k + 1) for k, n in enumerate((32, 64, 128, 256)))
    f = jax.jit(lambda a, b, c, d: cx.custom_call("cubridge_example_tuple", (spec(512), spec(1024)),
                                                  (a, (b, c), d))[0])  # element 1 is scratch space
    expected, _ = tuple_expected(a, b, c, d)
    np.testing.assert_array_equal(np.asarray(f(a, b, c, d)), expected)
    out0, scratch = cx.custom_call("cubridge_example_tuple", (spec(512), spec(1024)), (a, (b, c), d))
    np.testing.assert_array_equal(np.asarray(scratch), tuple_expected(a, b, c, d)[1])


def test_two_results_come_back_as_a_tuple():
    x, y = jnp.arange(5, dtype=F32), jnp.full(5, 2.0, F32)
    s, d = jax.jit(lambda x, y: cx.custom_call("cubridge_example_sum_diff", (spec(5), spec(5)), x, y,
                                               opaque={"n": 5}))(x, y)
    np.testing.assert_array_equal(np.asarray(s), np.asarray(x + y))
    np.testing.assert_array_equal(np.asarray(d), np.asarray(x - y))


def test_two_hundred_chained_calls_in_one_jit():
    b = jnp.ones(128, F32)

    def chain(c):
        for _ in range(200):
            c = cx.custom_call("cubridge_example_add_mod", spec(256), b, c, opaque={"n": 256, "m": 128})
        return c
    np.testing.assert_array_equal(np.asarray(jax.jit(chain)(jnp.zeros(256, F32))), np.full(256, 200.0))


def test_capsule_and_ctypes_function_targets():
    cx.register(jax.ffi.pycapsule(CDLL.cubridge_example_add_mod), "capsule_add_mod", "cpu", api_version=3)
    cx.register(CDLL.cubridge_example_add_mod, "ctypes_add_mod", "Host", api_version=3)
    b, c = jnp.arange(3, dtype=F32), jnp.arange(9, dtype=F32)
    for name in ("capsule_add_mod", "ctypes_add_mod"):
        out = cx.custom_call(name, spec(9), b, c, opaque={"n": 9, "m": 3})
        np.testing.assert_array_equal(np.asarray(out), add_mod_expected(b, c))
    assert ("capsule_add_mod", "Host", 3, "ffi") in cx.registered()


def classic_or_skip(fn):
    try:
        return fn()
    except Exception as e:  # jaxlib versions that refuse the classic API say so at compile or run time
        if "not supported" in str(e) or "removed" in str(e) or "UNIMPLEMENTED" in str(e):
            pytest.skip(f"this jaxlib refuses XLA's classic custom-call API: {e}")
        raise


def test_classic_path_api_version_1():
    cx.register(CDLL.cubridge_example_add_mod_fixed, "classic_add_mod_fixed", "cpu", api_version=1,
                via="classic")
    b, c = jnp.arange(128, dtype=F32), jnp.arange(2048, dtype=F32)
    out = classic_or_skip(lambda: np.asarray(jax.jit(
        lambda b, c: cx.custom_call("classic_add_mod_fixed", spec(2048), b, c))(b, c)))
    np.testing.assert_array_equal(out, add_mod_expected(b, c))


def test_classic_path_api_version_3_with_opaque():
    cx.register(CDLL.cubridge_example_add_mod, "classic_add_mod", "cpu", api_version=3, via="classic")
    b, c = jnp.arange(16, dtype=F32), jnp.arange(100, dtype=F32)
    out = classic_or_skip(lambda: np.asarray(jax.jit(
        lambda b, c: cx.custom_call("classic_add_mod", spec(100), b, c, opaque={"n": 100, "m": 16}))(b, c)))
    np.testing.assert_array_equal(out, add_mod_expected(b, c))
    with pytest.raises(ValueError, match="the classic path passes opaque as text, so bytes ≥ 0x80"):
        cx.custom_call("classic_add_mod", spec(100), b, c, opaque={"n": -1, "m": 16})
    with pytest.raises(ValueError, match="tuple operands need via='ffi'"):
        cx.custom_call("classic_add_mod", spec(100), (b, c))


def test_registration_errors_name_the_problem():
    with pytest.raises(ValueError, match="xla platform 'TPU' is not known: use 'Host' \\(or 'cpu'\\) or 'CUDA'"):
        cx.register(LIB, "cubridge_example_add_mod", "TPU")
    with pytest.raises(ValueError, match="'cubridge_example_add_mod' is already registered for Host"):
        cx.register(LIB, "cubridge_example_add_mod", "cpu")
    with pytest.raises(ValueError, match="the library registers this target for 'Host', not 'CUDA'"):
        cx.register(LIB, "cubridge_example_copy1", "cuda")
    with pytest.raises(ValueError, match="a PyCapsule does not say its signature: pass api_version"):
        cx.register(jax.ffi.pycapsule(CDLL.cubridge_example_copy1), "capsule_no_api", "cpu")
    with pytest.raises(ValueError, match="exports neither 'cubridge_xla_target_nope' nor 'nope'"):
        cx.register(LIB, "nope", "cpu")
    with pytest.raises(ValueError, match="api_version=2 but the library's descriptor says 1"):
        cx.register(LIB, "cubridge_example_copy1", "cpu", api_version=2)
    with pytest.raises(ValueError, match="api_version 4 is not one of 1, 2, 3"):
        cx.register(CDLL.cubridge_example_copy1, "bad_api", "cpu", api_version=4)
    with pytest.raises(ValueError, match="via='fast' is not 'ffi' or 'classic'"):
        cx.register(LIB, "cubridge_example_copy1", "cpu", via="fast")
    with pytest.raises(TypeError, match="target must be a PyCapsule, a ctypes function, a ctypes.CDLL"):
        cx.register(42, "int_target", "cpu")
    with pytest.raises(ValueError, match="registered via 'ffi' for Host; register it via 'ffi'"):
        cx.register(CDLL.cubridge_example_add_mod, "cubridge_example_add_mod", "cuda", api_version=2,
                    via="classic")


def test_call_errors_name_the_problem():
    with pytest.raises(ValueError, match="'unknown_target' is not registered through cubridge.xla.register"):
        cx.custom_call("unknown_target", spec(1), jnp.ones(1, F32))
    with pytest.raises(TypeError, match="opaque must be bytes or a mapping, not int"):
        cx.custom_call("cubridge_example_add_mod", spec(1), jnp.ones(1, F32), opaque=3)


def test_opaque_round_trip_and_validation():
    data = cx.encode_opaque(n=2048, scale=0.5, tag=b"\x00\xff", dims=[1, -2], shape=cx.OpaqueShape("float32", (4, 5)),
                            like=jax.ShapeDtypeStruct((3,), jnp.int64 if jax.config.x64_enabled else jnp.int32))
    assert cx.validate_opaque(data) == 6
    decoded = cx.decode_opaque(data)
    assert decoded["n"] == 2048 and decoded["scale"] == 0.5 and decoded["tag"] == b"\x00\xff"
    assert decoded["dims"] == [1, -2] and decoded["shape"] == cx.OpaqueShape("float32", (4, 5))
    assert decoded["like"].dims == (3,)
    assert cx.decode_opaque(cx.encode_opaque()) == {}
    with pytest.raises(ValueError, match="opaque: malformed at byte 4: version 9 is not supported"):
        cx.validate_opaque(data[:4] + b"\x09" + data[5:])
    with pytest.raises(ValueError, match=r"1 bytes follow the last of 6 entries"):
        cx.decode_opaque(data + b"!")
    with pytest.raises(ValueError, match="opaque shape dtype 'float128' is not one of bool"):
        cx.encode_opaque(s=cx.OpaqueShape("float128", (1,)))
    with pytest.raises(TypeError, match="opaque entry 'x': a dict cannot be encoded"):
        cx.encode_opaque(x={})
    with pytest.raises(ValueError, match="names have 1 to 255 bytes"):
        cx.encode_opaque({"": 1})


def test_example_gpu_kernels_assemble_with_ptxas(tmp_path):
    import os
    import shutil
    import subprocess
    ptxas = shutil.which("ptxas") or next((p for p in ("/usr/local/cuda/bin/ptxas",) if os.path.exists(p)), None)
    if ptxas is None:
        pytest.skip("ptxas is not installed here")
    CDLL.cubridge_example_gpu_ptx.restype = ctypes.c_char_p
    ptx = tmp_path / "seed.ptx"
    ptx.write_bytes(CDLL.cubridge_example_gpu_ptx())
    for arch in ("sm_75", "sm_90"):
        run = subprocess.run([ptxas, f"-arch={arch}", str(ptx), "-o", str(tmp_path / f"{arch}.cubin")],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
