"""cubridge's calls face on several GPUs through real jaxlib: cubridge.jax.kernel_call and a classic custom-call
target served by the typed-FFI adapter, inside jax.jit with shard_map over every local GPU (each shard checked
against the same computation in jnp), a call whose operands live on device 1 only, and two processes on one
host joined by jax.distributed.initialize (one per GPU, each seeing its own GPU only through
CUDA_VISIBLE_DEVICES, coordinator on 127.0.0.1). Skips, saying how many GPUs there are, on a machine with fewer than two."""
import ctypes
import functools
import inspect
import os
import pathlib
import socket
import subprocess
import sys

import numpy as np
import pytest

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX shares the GPUs with other tests
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # NVLink multicast stays off on the lent machines
jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import cubridge  # noqa: E402
import cubridge.jax as cj  # noqa: E402
import cubridge.xla as cx  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.multi_gpu]

F32 = jnp.float32
ROOT = pathlib.Path(__file__).resolve().parents[3]
PTX_PATH = ROOT / "tests" / "cpp" / "kernel" / "numba_abi_kernels.ptx"
ADD = "const float32[:], const float32[:], float32[:]"  # add_f32(a, b, out): out[i] = a[i] + b[i]
ADD_MOD = "multi_gpu_add_mod"  # the seed's classic add_mod target, registered under this name here


def gpu_devices():
    try:
        return jax.devices("gpu")
    except RuntimeError:
        return []


@pytest.fixture(scope="module")
def gpus():
    devices = gpu_devices()
    if len(devices) < 2:
        pytest.skip(f"needs two GPUs: jax sees {len(devices)} here")
    return devices


@pytest.fixture(scope="module")
def add_mod_target(gpus):
    cdll = ctypes.CDLL(str(cx.examples_library()))
    error = ctypes.create_string_buffer(512)
    # Loads the target's kernels into every device's primary context (the contexts XLA runs in).
    assert cdll.cubridge_example_gpu_prepare(error, ctypes.c_size_t(512)) == 0, error.value.decode()
    cx.register(cdll.cubridge_example_add_mod_gpu, ADD_MOD, "cuda", api_version=2)
    return ADD_MOD


def spec(*shape):
    return jax.ShapeDtypeStruct(shape, F32)


def blocks(n, block=128):
    return (n + block - 1) // block


def shard_map_fn():
    fn = getattr(jax, "shard_map", None)
    if fn is None:
        from jax.experimental.shard_map import shard_map as fn
    params = inspect.signature(fn).parameters
    extra = {"check_vma": False} if "check_vma" in params else {"check_rep": False} if "check_rep" in params else {}
    return functools.partial(fn, **extra)


def add_call(n):
    k = cubridge.load_kernel(PTX_PATH.read_text(), "add_f32", ADD)
    return cj.kernel_call(k, spec(n), griddim=lambda a, b: blocks(a[0]), blockdim=128)


def check_shards(out, devices, want):
    """Every device holds one shard, the shard's data is on it, and the whole equals `want`."""
    assert {s.device for s in out.addressable_shards} == set(devices)
    for s in out.addressable_shards:
        assert s.data.devices() == {s.device}
    np.testing.assert_array_equal(np.asarray(out), np.asarray(want))


def test_kernel_call_under_shard_map_on_every_gpu(gpus):
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = Mesh(np.array(gpus), ("x",))
    per = 4096
    total = per * len(gpus)
    sharded = NamedSharding(mesh, P("x"))
    x = jax.device_put(jnp.arange(total, dtype=F32) * 0.5, sharded)
    y = jax.device_put(jnp.arange(total, dtype=F32)[::-1], sharded)
    g = jax.jit(shard_map_fn()(add_call(per), mesh=mesh, in_specs=(P("x"), P("x")), out_specs=P("x")))
    out = g(x, y)
    check_shards(out, gpus, jax.jit(jnp.add)(x, y))
    out = g(y, x)  # the executable again, other operands
    check_shards(out, gpus, jax.jit(jnp.add)(y, x))


def test_kernel_call_with_a_sharding_rule_stays_sharded_on_every_gpu(gpus):
    """No shard_map: the rule alone lets XLA partition the call; the compiled program has no all-gather and
    each GPU launches the kernel on its block (the grid callable sees the block's length)."""
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = Mesh(np.array(gpus), ("x",))
    total = 4096 * len(gpus)
    k = cubridge.load_kernel(PTX_PATH.read_text(), "add_f32", ADD)
    seen = []
    add = cj.kernel_call(k, spec(total), griddim=lambda a, b: seen.append(a[0]) or blocks(a[0]), blockdim=128,
                         sharding_rule="i, i -> i")
    sharded = NamedSharding(mesh, P("x"))
    x = jax.device_put(jnp.arange(total, dtype=F32) * 0.5, sharded)
    y = jax.device_put(jnp.arange(total, dtype=F32)[::-1], sharded)
    f = jax.jit(lambda a, b: add(a, b) * 2)
    hlo = f.lower(x, y).compile().as_text()
    assert "all-gather" not in hlo and "all-to-all" not in hlo, hlo
    assert 4096 in seen  # the per-device program was traced with the block's shape
    out = f(x, y)
    check_shards(out, gpus, jax.jit(lambda a, b: (a + b) * 2)(x, y))
    assert out.sharding.is_equivalent_to(sharded, 1)


def test_kernel_call_with_operands_on_device_1_only(gpus):
    f = add_call(1000)
    a = jax.device_put(jnp.arange(1000, dtype=F32), gpus[1])
    b = jax.device_put(jnp.full(1000, 3.0, F32), gpus[1])
    out = jax.jit(f)(a, b)
    assert out.devices() == {gpus[1]}
    np.testing.assert_array_equal(np.asarray(out), np.asarray(a + b))


def test_classic_target_through_the_adapter_under_shard_map_on_every_gpu(gpus, add_mod_target):
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = Mesh(np.array(gpus), ("x",))
    per, m = 1024, 100  # m does not divide per: each shard indexes b by its local position
    total = per * len(gpus)
    b = jax.device_put(jnp.arange(m, dtype=F32) * 2, NamedSharding(mesh, P()))
    c = jax.device_put(jnp.arange(total, dtype=F32), NamedSharding(mesh, P("x")))

    def add_mod(b, c):
        return cx.custom_call(add_mod_target, spec(per), b, c, opaque={"n": per, "m": m})
    f = jax.jit(shard_map_fn()(add_mod, mesh=mesh, in_specs=(P(), P("x")), out_specs=P("x")))
    out = f(b, c)
    want = jax.jit(lambda b, c: jnp.tile(b[jnp.arange(per) % m], len(gpus)) + c)(b, c)
    check_shards(out, gpus, want)


def test_kernel_call_and_classic_target_in_one_sharded_program(gpus, add_mod_target):
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = Mesh(np.array(gpus), ("x",))
    per, m = 2048, 64
    total = per * len(gpus)
    add = add_call(per)
    b = jax.device_put(jnp.ones(m, F32), NamedSharding(mesh, P()))
    c = jax.device_put(jnp.arange(total, dtype=F32), NamedSharding(mesh, P("x")))

    def body(b, c):  # (c + c) then + b[i % m]: the kernel's output feeds the target on each device
        return cx.custom_call(add_mod_target, spec(per), b, add(c, c), opaque={"n": per, "m": m})
    f = jax.jit(shard_map_fn()(body, mesh=mesh, in_specs=(P(), P("x")), out_specs=P("x")))
    check_shards(f(b, c), gpus, jax.jit(lambda c: 2 * c + 1)(c))


DISTRIBUTED_CHILD = r"""
import inspect, os, sys
import numpy as np
import jax
import jax.numpy as jnp
process_id, port, ptx_path, nproc = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
init = jax.distributed.initialize
kw = {"initialization_timeout": 90} if "initialization_timeout" in inspect.signature(init).parameters else {}
init(coordinator_address=f"127.0.0.1:{port}", num_processes=nproc, process_id=process_id, **kw)
import ctypes
import cubridge, cubridge.jax as cj, cubridge.xla as cx
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
shard_map = getattr(jax, "shard_map", None)
if shard_map is None:
    from jax.experimental.shard_map import shard_map
extra = {"check_vma": False} if "check_vma" in inspect.signature(shard_map).parameters else {"check_rep": False}
assert (jax.process_count(), jax.device_count(), jax.local_device_count()) == (nproc, nproc, 1), \
    (jax.process_count(), jax.device_count(), jax.local_device_count())
assert cubridge.device_count() == 1, cubridge.device_count()
mesh = Mesh(np.array(jax.devices()), ("x",))
per, m = 4096, 100
host = np.arange(nproc * per, dtype=np.float32) * 0.25
bh = np.arange(m, dtype=np.float32) + 10
x = jax.make_array_from_callback((nproc * per,), NamedSharding(mesh, P("x")), lambda i: host[i])
b = jax.make_array_from_callback((m,), NamedSharding(mesh, P()), lambda i: bh[i])

k = cubridge.load_kernel(open(ptx_path).read(), "add_f32", "const float32[:], const float32[:], float32[:]")
add = cj.kernel_call(k, jax.ShapeDtypeStruct((per,), jnp.float32), griddim=(per + 127) // 128, blockdim=128)
cdll = ctypes.CDLL(str(cx.examples_library()))
error = ctypes.create_string_buffer(512)
assert cdll.cubridge_example_gpu_prepare(error, ctypes.c_size_t(512)) == 0, error.value.decode()
cx.register(cdll.cubridge_example_add_mod_gpu, "distributed_add_mod", "cuda", api_version=2)

def body(b, x):
    return cx.custom_call("distributed_add_mod", jax.ShapeDtypeStruct((per,), jnp.float32), b, add(x, x),
                          opaque={"n": per, "m": m})
f = jax.jit(shard_map(body, mesh=mesh, in_specs=(P(), P("x")), out_specs=P("x"), **extra))
out = f(b, x)
want = jax.jit(lambda b, x: jnp.tile(b[jnp.arange(per) % m], nproc) + x + x,
               out_shardings=NamedSharding(mesh, P("x")))(b, x)
(mine,) = out.addressable_shards
(ref,) = want.addressable_shards
assert mine.index == ref.index and mine.device == jax.local_devices()[0]
np.testing.assert_array_equal(np.asarray(mine.data), np.asarray(ref.data))
lo = mine.index[0].start or 0
np.testing.assert_array_equal(np.asarray(mine.data), bh[np.arange(per) % m] + 2 * host[lo:lo + per])
print(f"process {process_id}: shard {lo}..{lo + per} on {mine.device} checked", flush=True)
jax.distributed.shutdown()
"""


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(210)
def test_one_process_per_gpu_with_jax_distributed(gpus):
    """As many processes as GPUs (two on a two-GPU host, four on four), each seeing only its own GPU."""
    nproc = len(gpus)
    port = free_port()
    children = []
    for process_id in range(nproc):
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(process_id), XLA_PYTHON_CLIENT_PREALLOCATE="false",
                   NCCL_NVLS_ENABLE="0")
        children.append(subprocess.Popen([sys.executable, "-c", DISTRIBUTED_CHILD, str(process_id), str(port),
                                          str(PTX_PATH), str(nproc)], env=env, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, text=True))
    outputs = []
    try:
        for child in children:
            outputs.append(child.communicate(timeout=150)[0])
    except subprocess.TimeoutExpired:
        for child in children:
            child.kill()
        outputs = [child.communicate()[0] for child in children]
        pytest.fail("jax.distributed processes did not finish in 150 s:\n" +
                    "\n".join(f"--- process {i}:\n{o[-3000:]}" for i, o in enumerate(outputs)))
    for i, (child, out) in enumerate(zip(children, outputs)):
        assert child.returncode == 0, f"process {i} exited with {child.returncode}:\n{out[-4000:]}"
        assert f"process {i}: shard {i * 4096}..{(i + 1) * 4096} on" in out, out[-4000:]
