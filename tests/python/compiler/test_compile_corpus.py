"""Every corpus function compiles for each of its signatures, with both ABIs, and its PTX assembles with
ptxas (CPU). On the GPU machine, the gpu-marked test links our Numba-ABI PTX into a numba-cuda kernel
(declare_device) and compares, over edge values, with numba-cuda's own compile of the same function and
with CPython (differences from CPython are reported, not failed: overflow and float32 rounding differ)."""
import importlib
import itertools
import math
import os
import sys
import types

import numpy
import pytest

import cubridge

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
import corpus  # noqa: E402
from corpus.known_differences import KNOWN, explained  # noqa: E402

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


def _numba_reference(cuda, fn):
    """numba-cuda compiles calls of its own dispatchers only: give fn a copy of its module's globals in
    which every function of the module is a cuda.jit device function over that same copy, so calls of
    module functions (nested ones too) resolve as our compiler resolves them."""
    env = dict(fn.__globals__)

    def rebind(f):
        return types.FunctionType(f.__code__, env, f.__name__, f.__defaults__, f.__closure__)

    for key, value in list(env.items()):
        if isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:
            env[key] = cuda.jit(device=True)(rebind(value))
    return cuda.jit(device=True)(rebind(fn))


def _typing_errors():
    from numba.core.errors import TypingError
    try:  # numba-cuda 0.30 raises its own TypingError, which does not derive from numba's
        from numba.cuda.core.errors import TypingError as CudaTypingError
    except ImportError:
        return (TypingError,)
    return (TypingError, CudaTypingError)


_POWER = {"power", "b_pow"}


def _cpython_feasible(name, args):
    """CPython's int ** int is exact: 200 ** 2147483647 would run for hours (it made these cases time out).
    Such results do not fit the result type anyway, so they are not computed."""
    if name in _POWER and all(isinstance(v, int) for v in args):
        return abs(args[0]) <= 1 or args[1] <= 64
    return True


def test_known_differences_name_corpus_cases_and_are_documented():
    ids = [c.id for c in CASES]
    doc = open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "corpus", "DIFFERENCES.md")).read()
    for k in KNOWN:
        for case in k.cases:
            assert any(i == case or i.startswith(case + "(") for i in ids), f"{case!r} is not a corpus case"
            assert f"`{case}`" in doc, f"{case!r} ({k.reason.split(':')[0]}) is missing from corpus/DIFFERENCES.md"


def test_known_differences_explain_only_their_rows():
    i32min, i64min = -2 ** 31, -2 ** 63
    assert explained("arith.neg(int32)", (i32min,), 2 ** 31, i32min, False)
    assert explained("arith.neg(int32)", (-5,), 5, 4, False) is None
    assert explained("arith.neg(int64)", (i64min,), i64min, 0, False) is None
    # numba raising is explained only where the entry says numba raises, and only for its inputs
    assert explained("arith.power(float64,int64)", (0.0, i64min), math.inf, 0.5, True)
    assert explained("arith.power(float64,int64)", (0.0, i64min), math.inf, 0.5, False) is None
    assert explained("arith.power(float64,int64)", (0.0, -3), math.inf, 0.5, True) is None
    assert explained("arith.power(int32,int32)", (3, 2 ** 31 - 1), 1, 2 ** 63 - 1, False)
    assert explained("arith.power(int64,int64)", (-1, 2 ** 63 - 1), -1, 1, False)
    assert explained("arith.power(int32,int32)", (1, 2 ** 31 - 1), 1, 2, False) is None
    assert explained("arith.power(int32,int32)", (3, 200), 1, 2, False) is None
    assert explained("builtins_math.b_round2(float64)", (-0.0,), -0.0, 0.0, False)
    assert explained("builtins_math.b_round2(float64)", (1.0,), 1.0, 2.0, False) is None
    assert explained("tuples_complex.c_div(complex64,complex64)", (1 + 1j, 0j), complex("nan+nanj"), 0j, True)
    assert explained("tuples_complex.c_div(complex64,complex64)", (1 + 1j, 1j), 1 - 1j, 0j, True) is None


def test_comparison_fails_new_differences_and_unexplained_exceptions():
    rows = [(-2 ** 31,), (-5,), (3,), (4,)]
    ours = numpy.array([2 ** 31, 5, -3, -4], dtype=numpy.int64)
    theirs = numpy.array([-2 ** 31, 5, -3, 0], dtype=numpy.int64)
    finished = numpy.array([1, 1, 0, 1], dtype=numpy.uint8)
    bad, raised, excused = _compare("arith.neg(int32)", rows, ours, theirs, finished)
    assert (bad, raised) == ([3], [2])
    assert list(excused.values()) == [1]
    # nan == nan, but the sign of zero counts; math functions get 2 ulp (and so their zeros' signs)
    f = numpy.array([math.nan, -0.0, 1.0, 1.0], dtype=numpy.float64)
    g = numpy.array([math.nan, 0.0, 1.0 + 2.2e-16, 1.0 + 1e-12], dtype=numpy.float64)
    done = numpy.ones(4, dtype=numpy.uint8)
    assert _compare("builtins_math.m_sin(float64)", [(0.0,)] * 4, f, g, done)[0] == [3]
    assert _compare("arith.neg(float64)", [(0.0,)] * 4, f, g, done)[0] == [1, 2, 3]


def test_cpython_reference_skips_only_huge_integer_powers():
    assert not _cpython_feasible("power", (200, 2 ** 31 - 1))
    assert not _cpython_feasible("b_pow", (-7, 2 ** 63 - 1))
    assert _cpython_feasible("power", (1, 2 ** 63 - 1)) and _cpython_feasible("power", (-1, 2 ** 63 - 2))
    assert _cpython_feasible("power", (2.5, 2 ** 31 - 1)) and _cpython_feasible("power", (7, 64))
    assert _cpython_feasible("mul", (200, 2 ** 31 - 1))


def _compare(case_id, rows, ours, theirs, finished):
    """Rows where we and numba-cuda differ without an explanation (bad), rows where numba-cuda raised
    without one (raised), and the count of explained rows per reason."""
    bad, raised, excused = [], [], {}
    name = case_id.split(".", 1)[1].split("(")[0]
    for i in range(len(rows)):
        numba_raised = not finished[i]
        if not numba_raised and _same(ours[i:i + 1], theirs[i:i + 1]):
            continue
        if (not numba_raised and name.startswith("m_") and ours.dtype.kind == "f"
                and numpy.allclose(ours[i], theirs[i], rtol=4 * numpy.finfo(ours.dtype).eps, atol=0, equal_nan=True)):
            continue  # libdevice is shared, but fast paths can differ in the last place: 2 ulp for math functions
        known = explained(case_id, rows[i], ours[i].item(), theirs[i].item(), numba_raised)
        if known is not None:
            excused[known.reason] = excused.get(known.reason, 0) + 1
        else:
            (raised if numba_raised else bad).append(i)
    return bad, raised, excused


@pytest.mark.gpu
@pytest.mark.parametrize("module,name,sig", CASES)
def test_gpu_matches_numba_and_cpython(module, name, sig, tmp_path):
    if name in _RAISES:
        pytest.skip("raises for some inputs: covered by the CPU tests")
    from numba import cuda, types as nbt
    fn = _fn(module, name)
    case_id = f"{module}.{name}({','.join(sig)})"
    dev = cuda.get_current_device()
    cc = dev.compute_capability
    sym = f"cb_{module}_{name}"
    ptx, resty = cubridge.compile(fn, sig, abi="numba", abi_info={"abi_name": sym}, cc=cc)
    if resty.kind == "tuple":
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
    ref = _numba_reference(cuda, fn)
    args = ", ".join(f"a{k}" for k in range(len(sig)))
    items = ", ".join(f"a{k}[i]" for k in range(len(sig)))
    # done[i] stays 0 where numba-cuda's function raised: the exception ends the thread before the store.
    src = (f"def kern(out, ref_out, done, {args}):\n    i = cuda.grid(1)\n    if i < out.size:\n"
           f"        out[i] = ext({items})\n        ref_out[i] = ref({items})\n        done[i] = 1\n")
    ns = {"cuda": cuda, "ext": ext, "ref": ref}
    exec(src, ns)
    kern = cuda.jit(link=link)(ns["kern"]) if link else cuda.jit(ns["kern"])
    inputs = _inputs(sig, name in _LOOPY)
    n = len(inputs[0])
    rdtype = numpy.dtype("bool" if resty.name == "bool" else resty.name)
    out = cuda.device_array(n, dtype=rdtype)
    ref_out = cuda.to_device(numpy.zeros(n, dtype=rdtype))
    done = cuda.to_device(numpy.zeros(n, dtype=numpy.uint8))
    try:
        kern.forall(n)(out, ref_out, done, *[cuda.to_device(a) for a in inputs])
    except _typing_errors() as e:  # numba-cuda cannot type its own side of the harness (e.g. float16 externs)
        pytest.skip(f"numba-cuda cannot type the harness for {resty.name}{tuple(sig)}: {str(e).splitlines()[0]}")
    ours, theirs, finished = out.copy_to_host(), ref_out.copy_to_host(), done.copy_to_host()
    rows = [tuple(a[i].item() for a in inputs) for i in range(n)]
    # CPython: reported only.
    py_diff = 0
    for i in range(n):
        if not _cpython_feasible(name, rows[i]):
            continue
        try:
            with numpy.errstate(all="ignore"):
                expect = fn(*rows[i])
            ev = numpy.array([expect]).astype(rdtype)[0]
        except Exception:
            continue
        if not _same(numpy.array([ev]), ours[i:i + 1]):
            py_diff += 1
    if py_diff:
        print(f"{module}.{name}{sig}: {py_diff}/{n} results differ from CPython (overflow, float32 rounding, "
              f"or Numba's typing)")
    bad, raised, excused = _compare(case_id, rows, ours, theirs, finished)
    for reason, count in excused.items():
        print(f"{case_id}: {count}/{n} known differences ({reason.split(':')[0]}; see corpus/DIFFERENCES.md)")
    assert not raised, (f"numba-cuda raised (its thread stopped without a result) for {len(raised)}/{n} inputs that no "
                        f"entry of corpus/known_differences.py names; first: {rows[raised[0]]} -> ours {ours[raised[0]]!r}")
    assert not bad, (f"{len(bad)}/{n} results differ from numba-cuda and no entry of corpus/known_differences.py "
                     f"explains them; first: inputs {rows[bad[0]]} -> ours {ours[bad[0]]!r}, numba {theirs[bad[0]]!r}")
