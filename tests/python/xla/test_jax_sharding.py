"""cubridge.jax.kernel_call(..., sharding_rule=...) without a GPU: the rule's parsing and refusals, which mesh
axes split which factor, and, on two host devices (a subprocess with XLA's forced host device count), the
program after SPMD partitioning: the call runs on each device's block with the block's shapes and no
all-gather precedes it; a reduction factor is gathered. The kernel is not loaded (no GPU): the partitioned
HLO is read from XLA's pass dump, before the CPU backend looks for the (CUDA-only) target."""
import os
import subprocess
import sys
import textwrap

import pytest

jax = pytest.importorskip("jax")

from cubridge import _jax_sharding as sh  # noqa: E402


def test_parse_rule():
    r = sh.parse_rule("i j, j -> i j")
    assert r.operands == (("i", "j"), ("j",)) and r.results == (("i", "j"),) and r.reductions == frozenset()
    assert sh.parse_rule("i k, k j -> i j").reductions == frozenset({"k"})
    assert sh.parse_rule(" -> i").operands == ()


@pytest.mark.parametrize("text, error, message", [
    (3, TypeError, r"sharding_rule=3 \(int\) is not a str such as 'i j, j -> i j'"),
    ("i j, j", ValueError, r"sharding_rule='i j, j' has 0 '->'"),
    ("i -> i -> i", ValueError, r"has 2 '->'"),
    ("i ..., j -> i", ValueError, r"operand 0 names the factor '...'"),
    ("i i -> i", ValueError, r"operand 0 \('i i'\) names a factor twice"),
])
def test_bad_rules_are_refused_by_name(text, error, message):
    with pytest.raises(error, match=message):
        sh.parse_rule(text)


def test_check_rule_names_the_mismatch():
    r = sh.parse_rule("i, i -> i")
    sh.check_rule(r, [(8,), (8,)], [(8,)], "add")
    with pytest.raises(ValueError, match=r"names 2 operands, but the call has 1 array operands"):
        sh.check_rule(r, [(8,)], [(8,)], "add")
    with pytest.raises(ValueError, match=r"gives operand 1 1 factors, but its shape \(8, 2\) has 2 dimensions"):
        sh.check_rule(r, [(8,), (8, 2)], [(8,)], "add")
    with pytest.raises(ValueError, match=r"factor 'i' of sharding_rule 'i, i -> i' is 8 in operand 0 \(8,\) but 6 in "
                                         r"operand 1 \(6,\)"):
        sh.check_rule(r, [(8,), (6,)], [(8,)], "add")


class Mesh:
    def __init__(self, **axes):
        self.shape = axes


def test_factor_axes_follow_the_first_operand_that_splits_a_factor():
    mesh = Mesh(x=2, y=4)
    r = sh.parse_rule("i j, j -> i j")
    assert sh.factor_axes(r, mesh, [("x", "y"), (None,)], [(8, 8), (8,)]) == {"i": ("x",), "j": ("y",)}
    assert sh.factor_axes(r, mesh, [(None, None), ("y",)], [(8, 8), (8,)]) == {"j": ("y",)}
    # an axis is taken once; an uneven split stays whole; a reduction factor stays whole
    assert sh.factor_axes(r, mesh, [("x", "x"), ()], [(8, 8), (8,)]) == {"i": ("x",)}
    assert sh.factor_axes(r, mesh, [("y", None), ()], [(6, 8), (8,)]) == {}
    assert sh.factor_axes(sh.parse_rule("i k -> i"), mesh, [("x", "y")], [(8, 8)]) == {"i": ("x",)}
    assert sh.factor_axes(r, mesh, [(("x", "y"), None), ()], [(8, 8), (8,)]) == {"i": ("x", "y")}


PROGRAM = textwrap.dedent('''
    import glob, os, sys
    import numpy as np
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P
    import cubridge, cubridge.jax as cj

    class FakeKernel:
        def __init__(self, signature, name):
            self.signature = cubridge.KernelSignature(signature)
            self.name, self.image = name, b".version 8.0\\n"

    cj._register = lambda kernel: (1, 2)      # no GPU: nothing to load
    cj._prepare = lambda *args: None
    grids = []
    mesh = jax.make_mesh((2,), ("x",))
    case = sys.argv[1]
    if case == "elementwise":
        k = FakeKernel("void(const float32[:], const float32[:], int64, float32[:])", "add")
        call = cj.kernel_call(k, jax.ShapeDtypeStruct((1024,), jnp.float32),
                              griddim=lambda a, b: grids.append(a) or (a[0] + 127) // 128, blockdim=128,
                              sharding_rule="i, i -> i")
        x = jax.device_put(np.ones(1024, np.float32), NamedSharding(mesh, P("x")))
        f = jax.jit(lambda a, b: call(a, b, lambda a, b: a[0]) * 2)
        args = (x, x)
    else:
        k = FakeKernel("void(const float32[:, :], float32[:])", "rowsum")
        call = cj.kernel_call(k, jax.ShapeDtypeStruct((64,), jnp.float32), griddim=1, blockdim=64,
                              sharding_rule="i k -> i")
        x = jax.device_put(np.ones((64, 32), np.float32), NamedSharding(mesh, P("x", None) if case == "rows"
                                                                          else P(None, "x")))
        f = jax.jit(call)
        args = (x,)
    try:
        f.lower(*args).compile()
    except Exception as e:      # the CPU backend has no handler for the CUDA target: expected
        assert "cubridge_kernel_call" in str(e), e
    dump = sorted(glob.glob(os.path.join(os.environ["DUMP"], "*after_spmd-partitioning*")))[-1]
    print("GRIDS", grids)
    print(open(dump).read())
''')


def partitioned(case, tmp_path):
    env = dict(os.environ, DUMP=str(tmp_path),
               XLA_FLAGS=f"--xla_force_host_platform_device_count=2 --xla_dump_to={tmp_path} "
                         "--xla_dump_hlo_pass_re=spmd-partitioning",
               JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-c", PROGRAM, case], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_sharded_operands_stay_sharded_and_each_device_runs_its_block(tmp_path):
    hlo = partitioned("elementwise", tmp_path)
    call = [line for line in hlo.splitlines() if "custom_call_target=\"cubridge_kernel_call\"" in line]
    assert len(call) == 1 and call[0].lstrip().startswith("%") and "f32[512]" in call[0], hlo
    assert "all-gather" not in hlo and "all-to-all" not in hlo, hlo
    assert "GRIDS [(1024,), (512,)]" in hlo  # traced whole (abstract evaluation), then per block


def test_a_sharded_reduction_factor_is_gathered_and_rows_stay_split(tmp_path):
    rows = partitioned("rows", tmp_path)
    assert "all-gather" not in rows and "f32[32,32]" in rows, rows
    cols = partitioned("cols", tmp_path)
    assert "all-gather" in cols and "f32[64,32]" in cols, cols  # k is reduced: each device needs whole rows


class FakeKernel:
    def __init__(self, signature, name):
        import cubridge
        self.signature = cubridge.KernelSignature(signature)
        self.name, self.image = name, b".version 8.0\n"


def test_a_number_for_a_scalar_parameter_is_refused_under_a_rule(monkeypatch):
    import jax.numpy as jnp
    import cubridge.jax as cj
    monkeypatch.setattr(cj, "_register", lambda kernel: (1, 2))
    monkeypatch.setattr(cj, "_prepare", lambda *args: None)
    k = FakeKernel("void(const float32[:], int64, float32[:])", "scale")
    call = cj.kernel_call(k, jax.ShapeDtypeStruct((8,), jnp.float32), 1, 8, sharding_rule="i -> i")
    x = jnp.ones(8, jnp.float32)
    with pytest.raises(TypeError, match=r"kernel 'scale' has sharding_rule 'i -> i', so each device runs it on its "
                                        r"shard; argument 1 \(int64\) = 8 would be the same number on every shard"):
        jax.make_jaxpr(lambda x: call(x, 8))(x)
    # a function of the shard's shapes is accepted; outside a mesh it sees the whole operand
    assert "cubridge_kernel_call" in str(jax.make_jaxpr(lambda x: call(x, lambda s: s[0]))(x))
    with pytest.raises(ValueError, match=r"factor 'i' of sharding_rule 'i -> i' is 8 in operand 0 \(8,\) but 4 in "
                                         r"result 0 \(4,\)"):
        bad = cj.kernel_call(k, jax.ShapeDtypeStruct((4,), jnp.float32), 1, 8, sharding_rule="i -> i")
        jax.make_jaxpr(lambda x: bad(x, lambda s: s[0]))(x)


def test_callable_scalars_see_the_operand_shapes_without_a_rule(monkeypatch):
    import struct
    import jax.numpy as jnp
    import cubridge.jax as cj
    k = FakeKernel("void(const float32[:, :], int64, float32[:])", "first")
    call = cj.kernel_call(k, jax.ShapeDtypeStruct((3,), jnp.float32), 1, 8)
    _, _, packed, _, _ = call.plan(jnp.ones((3, 5), jnp.float32), lambda s: s[0] * s[1])
    assert struct.unpack_from("<q", packed, 9 * 8)[0] == 15


def test_fold_needs_an_elementwise_rule():
    import jax.numpy as jnp
    import cubridge.jax as cj
    k = FakeKernel("void(const float32[:], float32[:])", "k")
    out = jax.ShapeDtypeStruct((8,), jnp.float32)
    for rule in (None, "i -> j", "i k -> i"):
        with pytest.raises(ValueError, match=r"vmap_method='fold' folds the batch into the first dimension"):
            cj.kernel_call(k, out, 1, 8, vmap_method="fold", sharding_rule=rule)
    assert sh.parse_rule("i j, i j -> i j").elementwise and not sh.parse_rule("i, j -> i").elementwise
    with pytest.raises(ValueError, match=r"a sequential vmap_method cannot be combined"):
        cj.kernel_call(k, out, 1, 8, vmap_method="sequential", sharding_rule="i -> i")


def test_fold_launches_once_over_the_batch(monkeypatch):
    """jax.vmap (and nested vmaps) of a folding call trace one custom call on the folded arrays, the
    scalar function and the grid seeing the folded length; an unbatched operand is broadcast."""
    import jax.numpy as jnp
    import cubridge.jax as cj
    monkeypatch.setattr(cj, "_register", lambda kernel: (1, 2))
    monkeypatch.setattr(cj, "_prepare", lambda *args: None)
    k = FakeKernel("void(const float32[:], const float32[:], int64, float32[:])", "axpy")
    grids = []
    call = cj.kernel_call(k, jax.ShapeDtypeStruct((8,), jnp.float32), lambda a, b: grids.append(a[0]) or 1, 8,
                          vmap_method="fold", sharding_rule="i, i -> i")
    x = jnp.ones((3, 8), jnp.float32)
    y = jnp.ones(8, jnp.float32)
    jaxpr = jax.make_jaxpr(jax.vmap(lambda a, b: call(a, b, lambda s, t: s[0]), in_axes=(0, None)))(x, y)
    text = str(jaxpr)
    assert text.count("cubridge_kernel_call") == 1 and "f32[24]" in text and "scan" not in text, text
    assert jaxpr.out_avals[0].shape == (3, 8) and 24 in grids
    nested = jax.make_jaxpr(jax.vmap(jax.vmap(lambda a, b: call(a, b, lambda s, t: s[0]))))(
        jnp.ones((2, 3, 8), jnp.float32), jnp.ones((2, 3, 8), jnp.float32))
    assert "f32[48]" in str(nested) and nested.out_avals[0].shape == (2, 3, 8)
    # without vmap: the plain call
    assert "f32[8]" in str(jax.make_jaxpr(lambda a: call(a, a, lambda s, t: s[0]))(y))
