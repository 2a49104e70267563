"""Every corpus function compiles for each of its signatures, with both ABIs, and its PTX assembles with
ptxas (CPU). On the GPU machine, the gpu-marked test links our Numba-ABI PTX into a numba-cuda kernel
(declare_device) and compares, over edge values, with numba-cuda's own compile of the same function and
with CPython (differences from CPython are reported, not failed: overflow and float32 rounding differ)."""
import importlib
import itertools
import math
import os
import sys

import numpy
import pytest

import cubridge

sys.path.insert(0, os.path.dirname(__file__))
import corpus  # noqa: E402

CASES = []
for _m in corpus.MODULES:
    _mod = importlib.import_module(f"corpus.{_m}")
    for _name, _sigs in _mod.SIGS.items():
        for _sig in _sigs:
            CASES.append(pytest.param(_m, _name, _sig, id=f"{_m}.{_name}({','.join(_sig)})"))


def _fn(module, name):
    return getattr(importlib.import_module(f"corpus.{module}"), name)


def test_corpus_size():
    names = {(c.values[0], c.values[1]) for c in CASES}
    assert len(names) >= 150
    assert len(CASES) >= 300


@pytest.mark.parametrize("module,name,sig", CASES)
def test_compiles_and_assembles(module, name, sig):
    fn = _fn(module, name)
    ptx, resty = cubridge.compile(fn, sig, cc=(9, 0))
    assert f") {name}(" in " ".join(ptx.split()).replace("( ", "(")
    # The result is stored (libNVVM once compiled C-ABI functions returning float16 to an empty body).
    assert "[func_retval0+0]" in ptx, ptx
    r = cubridge.ptxas_check(ptx, (9, 0))
    assert r, r.log
    nptx, nresty = cubridge.compile(fn, sig, abi="numba", cc=(9, 0))
    assert nresty == resty
    assert "_ZN" in nptx and f"{len(name)}{name}E" in nptx


@pytest.mark.parametrize("module,name,sig", CASES[::17])
def test_ltoir_output(module, name, sig):
    code, _ = cubridge.compile(_fn(module, name), sig, output="ltoir", cc=(9, 0))
    assert isinstance(code, bytes) and len(code) > 100


# ---- GPU differential test ----

_LOOPY = {"sum_range", "sum_range_f", "sum_step", "count_down", "first_multiple", "skip_odd", "nested_loops", "fib",
          "accumulate", "while_true", "loop_var_after", "isqrt", "early_return", "while_collatz"}
_RAISES = {"asserts", "checked", "call_checked"}


def _edge_values(tname, loopy):
    if loopy:
        return [1, 2, 3, 5, 10, 17] if tname.startswith("uint") else [1, 2, 3, 5, 10, 17, -3]
    if tname == "bool":
        return [False, True]
    if tname.startswith(("int", "uint")):
        info = numpy.iinfo(tname)
        vals = [0, 1, 2, 3, 7, 200, info.max, info.max - 1]
        if info.min < 0:
            vals += [-1, -2, -7, info.min, info.min + 1]
        return [v for v in vals if info.min <= v <= info.max]
    if tname.startswith("float"):
        return [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 7.0, -7.0, 3.0, 1e-3, 100.0, math.inf, -math.inf, math.nan]
    return [0j, 1 + 1j, -2.5 + 0.5j, 3 - 4j, complex(math.inf, 0), complex(math.nan, 1)]


def _inputs(sig, loopy, limit=2048):
    rows = list(itertools.product(*(_edge_values(t, loopy) for t in sig)))
    if len(rows) > limit:
        rng = numpy.random.default_rng(0)
        rows = [rows[i] for i in sorted(rng.choice(len(rows), limit, replace=False))]
    return [numpy.array([r[k] for r in rows], dtype=numpy.dtype(t if t != "bool" else "bool")) for k, t in enumerate(sig)]


def _same(a, b):
    if a.dtype.kind in "fc":
        return numpy.array_equal(a, b, equal_nan=True) and numpy.array_equal(numpy.signbit(a.real), numpy.signbit(b.real))
    return numpy.array_equal(a, b)


@pytest.mark.gpu
@pytest.mark.parametrize("module,name,sig", CASES)
def test_gpu_matches_numba_and_cpython(module, name, sig, tmp_path):
    if name in _RAISES:
        pytest.skip("raises for some inputs: covered by the CPU tests")
    from numba import cuda, types as nbt
    fn = _fn(module, name)
    dev = cuda.get_current_device()
    cc = dev.compute_capability
    sym = f"cb_{module}_{name}"
    ptx, resty = cubridge.compile(fn, sig, abi="numba", abi_info={"abi_name": sym}, cc=cc)
    if isinstance(resty, cubridge.TupleType):
        pytest.skip("tuple results: checked on the CPU (the harness stores scalars)")
    path = tmp_path / f"{sym}.ptx"
    path.write_text(ptx)
    nb_sig = getattr(nbt, resty.name if resty.name != "bool" else "boolean")(
        *[getattr(nbt, t if t != "bool" else "boolean") for t in sig])
    try:
        ext = cuda.declare_device(sym, nb_sig, link=[str(path)])
        link = []
    except TypeError:  # older numba-cuda: link through the kernel
        ext = cuda.declare_device(sym, nb_sig)
        link = [str(path)]
    ref = cuda.jit(device=True)(fn)
    args = ", ".join(f"a{k}" for k in range(len(sig)))
    items = ", ".join(f"a{k}[i]" for k in range(len(sig)))
    src = (f"def kern(out, ref_out, {args}):\n    i = cuda.grid(1)\n    if i < out.size:\n"
           f"        out[i] = ext({items})\n        ref_out[i] = ref({items})\n")
    ns = {"cuda": cuda, "ext": ext, "ref": ref}
    exec(src, ns)
    kern = cuda.jit(link=link)(ns["kern"]) if link else cuda.jit(ns["kern"])
    inputs = _inputs(sig, name in _LOOPY)
    n = len(inputs[0])
    rdtype = numpy.dtype("bool" if resty.name == "bool" else resty.name)
    out = cuda.device_array(n, dtype=rdtype)
    ref_out = cuda.device_array(n, dtype=rdtype)
    from numba.core.errors import TypingError
    try:
        kern.forall(n)(out, ref_out, *[cuda.to_device(a) for a in inputs])
    except TypingError as e:  # numba-cuda cannot type its own side of the harness (e.g. float16 externs)
        pytest.skip(f"numba-cuda cannot type the harness for {resty.name}{tuple(sig)}: {str(e).splitlines()[0]}")
    ours, theirs = out.copy_to_host(), ref_out.copy_to_host()
    # CPython: reported only.
    py_diff = 0
    for i in range(n):
        try:
            with numpy.errstate(all="ignore"):
                expect = fn(*[a[i].item() for a in inputs])
            ev = numpy.array([expect]).astype(rdtype)[0]
        except Exception:
            continue
        if not _same(numpy.array([ev]), ours[i:i + 1]):
            py_diff += 1
    if py_diff:
        print(f"{module}.{name}{sig}: {py_diff}/{n} results differ from CPython (overflow, float32 rounding, "
              f"or Numba's typing)")
    bad = [i for i in range(n) if not _same(ours[i:i + 1], theirs[i:i + 1])]
    if bad and name.startswith("m_") and rdtype.kind == "f":
        # libdevice is shared, but fast paths can differ in the last place: allow 2 ulp for math functions.
        tol = 4 * numpy.finfo(rdtype).eps
        bad = [i for i in bad if not numpy.allclose(ours[i], theirs[i], rtol=tol, atol=0, equal_nan=True)]
    assert not bad, (f"{len(bad)}/{n} results differ from numba-cuda; first: inputs "
                     f"{[a[bad[0]] for a in inputs]} -> ours {ours[bad[0]]!r}, numba {theirs[bad[0]]!r}")
