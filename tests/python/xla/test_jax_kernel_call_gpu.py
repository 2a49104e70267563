"""cubridge.jax.kernel_call on CUDA through real jaxlib: a Numba-ABI PTX kernel (tests/cpp/kernel), numba-cuda's
compile_ptx output and an NVRTC-compiled CUDA C++ kernel with pointer parameters (examples/link's transform),
each under jax.jit and checked against NumPy; calls chained in one jit (captured in a CUDA graph and
replayed); failures at trace time and at run time surfacing as Python exceptions; shard_map over every GPU."""
import functools
import importlib.util
import inspect
import os
import pathlib

import numpy as np
import pytest

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX shares the GPU with other tests
jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import cubridge  # noqa: E402
import cubridge.jax as cj  # noqa: E402
import cubridge.xla as cx  # noqa: E402

pytestmark = pytest.mark.gpu

F32 = jnp.float32
ROOT = pathlib.Path(__file__).resolve().parents[3]
PTX = (ROOT / "tests" / "cpp" / "kernel" / "numba_abi_kernels.ptx").read_text()
ADD = "const float32[:], const float32[:], float32[:]"
TRANSFORM = "void(const float32*, const float32*, float32*, uint64)"


def gpu_devices():
    try:
        return jax.devices("gpu")
    except RuntimeError:
        return []


@pytest.fixture(scope="module", autouse=True)
def gpu():
    if not gpu_devices():
        pytest.skip("jax has no GPU backend here")
    return gpu_devices()[0]


def spec(*shape):
    return jax.ShapeDtypeStruct(shape, F32)


def blocks(n, block=128):
    return (n + block - 1) // block


@functools.cache
def transform_kernel():
    """examples/link's transform(const float* a, const float* b, float* out, unsigned long long n), f in
    CUDA C++ (its REFERENCE_SOURCE), compiled by NVRTC to a cubin for this GPU."""
    path = ROOT / "examples" / "link" / "link_example.py"
    module_spec = importlib.util.spec_from_file_location("link_example", path)
    link_example = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(link_example)
    cc = cubridge.Device(0).compute_capability
    cubin = cubridge.nvrtc_compile(link_example.REFERENCE_SOURCE, "transform.cu", cc, output="cubin").code
    return cubridge.load_kernel(cubin, "transform", TRANSFORM)


def transform_call(n):
    return cj.kernel_call(transform_kernel(), spec(n), griddim=lambda a, b: blocks(a[0], 256), blockdim=256)


def test_numba_abi_ptx_kernel_under_jit(gpu):
    add = cj.kernel_call(cubridge.load_kernel(PTX, "add_f32", ADD), spec(1000),
                         griddim=lambda a, b: blocks(a[0]), blockdim=128)
    a = jax.device_put(jnp.arange(1000, dtype=F32), gpu)
    b = jax.device_put(jnp.full(1000, 0.5, F32), gpu)
    out = jax.jit(add)(a, b)
    assert out.devices() == {gpu} and out.shape == (1000,) and out.dtype == F32
    np.testing.assert_array_equal(np.asarray(out), np.arange(1000, dtype=np.float32) + np.float32(0.5),
                                  err_msg="add_f32 through kernel_call != a + b")


def test_nvrtc_pointer_kernel_with_a_static_scalar_under_jit(gpu):
    n = 100_003
    a = jax.device_put(jnp.arange(n, dtype=F32) * 0.5, gpu)
    b = jax.device_put(jnp.full(n, 3.0, F32), gpu)
    f = transform_call(n)
    out = jax.jit(lambda a, b: f(a, b, a.size))(a, b)
    want = np.arange(n, dtype=np.float32) * np.float32(0.5) * np.float32(3) + np.float32(1)
    np.testing.assert_array_equal(np.asarray(out), want, err_msg="transform(a, b, out, n) != a * b + 1")
    # The scalar is static: a smaller n leaves the tail as XLA allocated it, so compare the head only.
    head = jax.jit(lambda a, b: f(a, b, 10))(a, b)
    np.testing.assert_array_equal(np.asarray(head)[:10], want[:10], err_msg="n=10")


def test_numba_compile_ptx_kernel_under_jit(gpu):
    numba_cuda = pytest.importorskip("numba.cuda")

    def axpy(a, x, y, out):
        i = numba_cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    sig = "void(float32, float32[::1], float32[::1], float32[::1])"
    ptx, _ = numba_cuda.compile_ptx(axpy, sig, cc=(7, 5))
    (name,) = cubridge.ptx_entry_names(ptx)
    k = cubridge.load_kernel(ptx, name, sig)
    f = cj.kernel_call(k, spec(777), griddim=lambda x, y: blocks(x[0]), blockdim=128)
    x = jax.device_put(jnp.arange(777, dtype=F32), gpu)
    y = jax.device_put(jnp.ones(777, F32), gpu)
    out = jax.jit(lambda x, y: f(3.0, x, y))(x, y)
    np.testing.assert_array_equal(np.asarray(out), 3 * np.arange(777, dtype=np.float32) + 1,
                                  err_msg="numba-cuda axpy through kernel_call != 3 * x + y")


def test_calls_feeding_each_other_in_one_jit(gpu):
    add = cj.kernel_call(cubridge.load_kernel(PTX, "add_f32", ADD), spec(256), 2, 128)
    x = jax.device_put(jnp.arange(256, dtype=F32), gpu)
    y, z = jax.jit(lambda x: (add(x, x), add(x, add(x, x))))(x)
    np.testing.assert_array_equal(np.asarray(y), 2 * np.arange(256, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(z), 3 * np.arange(256, dtype=np.float32))


@pytest.mark.parametrize("calls", [1, 50])
def test_chained_calls_in_one_jit_replay(gpu, calls):
    n = 4096
    f = transform_call(n)
    ones = jax.device_put(jnp.ones(n, F32), gpu)

    @jax.jit
    def chain(x):
        for _ in range(calls):  # long enough for XLA to put the calls in a command buffer
            x = f(x, ones, n)   # x * 1 + 1
        return x
    x0 = jax.device_put(jnp.arange(n, dtype=F32), gpu)
    for run in range(3):  # later runs replay the captured graph
        np.testing.assert_array_equal(np.asarray(chain(x0)), np.arange(n, dtype=np.float32) + calls,
                                      err_msg=f"run {run} of {calls} chained calls")


def test_a_bad_launch_configuration_is_a_python_exception_at_trace_time(gpu):
    f = cj.kernel_call(transform_kernel(), spec(64), griddim=1, blockdim=2048)
    a = jax.device_put(jnp.ones(64, F32), gpu)
    with pytest.raises(ValueError, match="2048"):
        jax.jit(lambda a: f(a, a, 64))(a)


def test_a_failing_launch_is_a_python_exception_at_run_time(gpu):
    a = jax.device_put(jnp.ones(64, F32), gpu)
    jax.block_until_ready(jax.jit(lambda a: transform_call(64)(a, a, 64))(a))  # registers the target
    # A call site naming a kernel id this process never registered (as a cached executable from another
    # process could): the target's failure becomes the jitted call's exception.
    opaque = cj.KernelCall(transform_kernel(), spec(64), 1, 64).opaque(10 ** 6, 1, bytes(32), [1], [64])
    g = jax.jit(lambda a: cx.custom_call(cj.TARGET, spec(64), a, a, opaque=opaque))
    with pytest.raises(Exception, match=r"custom call 'cubridge_kernel_call' \(CUDA\) failed: kernel_call: kernel "
                                        r"id 1000000 is not registered in this process"):
        jax.block_until_ready(g(a))


def test_vmap_is_refused(gpu):
    f = transform_call(8)
    with pytest.raises(NotImplementedError, match="kernel_call: jax.vmap of kernel 'transform' is not supported"):
        jax.jit(jax.vmap(lambda a: f(a, a, 8)))(jax.device_put(jnp.ones((3, 8), F32), gpu))


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled"])
def test_vmap_method_sequential_equals_numpy(gpu, method):
    add = cj.kernel_call(cubridge.load_kernel(PTX, "add_f32", ADD), spec(100), griddim=1, blockdim=128,
                         vmap_method=method)
    a = np.arange(500, dtype=np.float32).reshape(5, 100)
    b = np.full((5, 100), 0.25, np.float32)
    out = jax.jit(jax.vmap(add))(jax.device_put(a, gpu), jax.device_put(b, gpu))
    np.testing.assert_array_equal(np.asarray(out), a + b)


def _mul(a, b, out):
    i = cubridge.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i]


def _mul_grad(a, b, g, ga, gb):
    i = cubridge.grid(1)
    if i < g.size:
        ga[i] = g[i] * b[i]
        gb[i] = g[i] * a[i]


def python_kernel(func, sig):
    ptx, _ = cubridge.compile(func, sig, device=False, abi="numba", output="ptx",
                              cc=cubridge.Device(0).compute_capability)
    return cubridge.load_kernel(ptx, None, sig)


def test_kernel_vjp_gradients_equal_numpy(gpu):
    v = "const float32[::1]"
    fwd = cj.kernel_call(python_kernel(_mul, f"void({v}, {v}, float32[::1])"), spec(300), griddim=3, blockdim=128)
    bwd = cj.kernel_call(python_kernel(_mul_grad, f"void({v}, {v}, {v}, float32[::1], float32[::1])"),
                         (spec(300), spec(300)), griddim=3, blockdim=128)
    f = cj.kernel_vjp(fwd, bwd)
    a = np.linspace(-1, 1, 300, dtype=np.float32)
    b = np.linspace(2, 3, 300, dtype=np.float32)
    ga, gb = jax.jit(jax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1)))(jax.device_put(a, gpu),
                                                                           jax.device_put(b, gpu))
    np.testing.assert_array_equal(np.asarray(ga), b)
    np.testing.assert_array_equal(np.asarray(gb), a)


def shard_map_fn():
    fn = getattr(jax, "shard_map", None)
    if fn is None:
        from jax.experimental.shard_map import shard_map as fn
    params = inspect.signature(fn).parameters
    extra = {"check_vma": False} if "check_vma" in params else {"check_rep": False} if "check_rep" in params else {}
    return functools.partial(fn, **extra)


def test_shard_map_over_every_gpu():
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    devices = gpu_devices()
    mesh = Mesh(np.array(devices), ("x",))
    per_device = 1024
    f = transform_call(per_device)
    a = jax.device_put(jnp.arange(per_device * len(devices), dtype=F32), NamedSharding(mesh, P("x")))
    g = jax.jit(shard_map_fn()(lambda a: f(a, a, per_device), mesh=mesh, in_specs=(P("x"),), out_specs=P("x")))
    out = g(a)
    assert len(out.sharding.device_set) == len(devices)
    want = np.arange(per_device * len(devices), dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(out), want * want + 1, err_msg="transform on every shard")


EXPORTED_RUNNER = """
import sys
import numpy as np
import jax, jax.numpy as jnp
import cubridge.jax as cj
cj.register_target()            # this process never traced a kernel_call
exported = jax.export.deserialize(bytearray(open(sys.argv[1], 'rb').read()))
x = jnp.arange(1000, dtype=jnp.float32)
y = jnp.full(1000, 0.25, jnp.float32)
out = np.asarray(exported.call(x, y))
np.testing.assert_array_equal(out, (np.arange(1000, dtype=np.float32) + 0.25) * 3)
out = np.asarray(jax.jit(exported.call)(y, x))   # again, inside another jit
np.testing.assert_array_equal(out, (np.arange(1000, dtype=np.float32) + 0.25) * 3)
print("ran", out[:3])
"""


def test_jax_export_round_trip_runs_in_a_fresh_process(gpu, tmp_path):
    import subprocess
    import sys
    add = cj.kernel_call(cubridge.load_kernel(PTX, "add_f32", ADD), spec(1000), griddim=lambda a, b: blocks(a[0]),
                         blockdim=128)
    f = jax.jit(lambda a, b: add(a, b) * 3)
    x = jnp.zeros(1000, jnp.float32)
    with pytest.raises(Exception, match=r"cubridge_kernel_call"):  # JAX's own check names the target
        jax.export.export(f)(x, x)
    exported = jax.export.export(f, disabled_checks=cj.EXPORT_CHECKS)(x, x)
    path = tmp_path / "add.jax"
    path.write_bytes(exported.serialize())
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
    run = subprocess.run([sys.executable, "-c", EXPORTED_RUNNER, str(path)], capture_output=True, text=True,
                         timeout=300, env=env)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    assert "ran [0.75 3.75 6.75]" in run.stdout


COMMAND_BUFFER_PROGRAM = """
import sys
import numpy as np
import jax, jax.numpy as jnp
import cubridge, cubridge.jax as cj
ptx, sig = open(sys.argv[1]).read(), sys.argv[2]
add = cj.kernel_call(cubridge.load_kernel(ptx, "add_f32", sig), jax.ShapeDtypeStruct((256,), jnp.float32), 2, 128)
def f(a, b):
    for _ in range(8):
        a = add(a, b)
    return a
x = jnp.ones(256, jnp.float32)
out = jax.jit(f)(x, x)
for _ in range(3):   # replays of the instantiated command buffer
    out = jax.jit(f)(out, x)
np.testing.assert_array_equal(np.asarray(out), np.full(256, 33.0, np.float32))
print("ok")
"""


def test_the_call_is_captured_inside_an_xla_command_buffer(gpu, tmp_path):
    """The target declares itself command-buffer compatible: with custom calls enabled in command buffers,
    XLA's thunk sequence puts the calls inside a command buffer (a CUDA graph), and the replayed graph
    computes what eager launches do."""
    import subprocess
    import sys
    flags = (f"--xla_dump_to={tmp_path} --xla_dump_hlo_as_text --xla_gpu_graph_min_graph_size=1 "
             "--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL")
    env = dict(os.environ, XLA_FLAGS=flags, XLA_PYTHON_CLIENT_PREALLOCATE="false")
    run = subprocess.run([sys.executable, "-c", COMMAND_BUFFER_PROGRAM,
                          str(ROOT / "tests" / "cpp" / "kernel" / "numba_abi_kernels.ptx"), ADD],
                         capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0 and "ok" in run.stdout, run.stderr[-4000:]
    # XLA forms command buffers from the thunk sequence: after its thunk passes, one kCommandBuffer thunk
    # holds the 8 custom-call thunks (the HLO after optimizations still lists the 8 custom calls).
    thunks = [p for p in tmp_path.iterdir() if p.name.endswith("thunk_sequence_after_thunk_passes.txt")
              and "jit_f" in p.name]
    assert thunks, sorted(p.name for p in tmp_path.iterdir())[:40]
    text = thunks[0].read_text()
    lines = text.splitlines()
    assert lines[0].split()[1] == "kCommandBuffer", text
    assert sum(1 for line in lines[1:] if line.startswith("    ") and "kCustomCall" in line) == 8, text
    optimized = [p for p in tmp_path.iterdir() if p.name.endswith("after_optimizations.txt") and "jit_f" in p.name]
    assert optimized[0].read_text().count('custom_call_target="cubridge_kernel_call"') == 8


def test_vmap_method_fold_is_one_launch_equal_to_numpy(gpu):
    add = cj.kernel_call(cubridge.load_kernel(PTX, "add_f32", ADD), spec(100), griddim=lambda a, b: blocks(a[0]),
                         blockdim=128, vmap_method="fold", sharding_rule="i, i -> i")
    x = jnp.arange(700, dtype=F32).reshape(7, 100)
    y = jnp.arange(100, dtype=F32) * 0.5
    f = jax.jit(jax.vmap(add, in_axes=(0, None)))
    assert str(f.lower(x, y).as_text()).count("cubridge_kernel_call") == 1
    np.testing.assert_array_equal(np.asarray(f(x, y)), np.asarray(x) + np.asarray(y)[None, :])
    g = jax.jit(jax.vmap(jax.vmap(add)))
    z = jnp.arange(2 * 7 * 100, dtype=F32).reshape(2, 7, 100)
    np.testing.assert_array_equal(np.asarray(g(z, z)), np.asarray(z) * 2)
