"""The bit and math intrinsics (popc, clz, ffs, brev, fma, cbrt, selp) without a GPU: the result type for
every argument type is numba-cuda's (the table below was read off numba's CUDA typing templates, and is
checked against them again where numba imports), each compiles to the PTX instruction it stands for and
ptxas assembles it; a float where an integer is needed is refused by name. Their values are checked on
the GPU by the kernel corpus (bit_ops_u32, bit_ops_i64, fma_cbrt_selp)."""
import pytest

import cubridge

CC = (9, 0)


def popc(x):
    return cubridge.popc(x)


def clz(x):
    return cubridge.clz(x)


def ffs(x):
    return cubridge.ffs(x)


def brev(x):
    return cubridge.brev(x)


def cbrt(x):
    return cubridge.cbrt(x)


def fma(a, b, c):
    return cubridge.fma(a, b, c)


def selp(t, a, b):
    return cubridge.selp(t, a, b)


INTS = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
SAME = {"bool": "int8"}
# argument type -> result type, as numba-cuda's typing templates resolve them.
RESULT = {
    popc: {t: SAME.get(t, t) for t in INTS},
    clz: {t: SAME.get(t, t) for t in INTS},
    ffs: {t: "uint32" for t in INTS},
    brev: {t: "uint64" if t == "uint64" else "uint32" for t in INTS},
    cbrt: {**{t: "float32" for t in ["bool", "int8", "uint8", "int16", "float16", "float32"]},
           **{t: "float64" for t in ["uint16", "int32", "uint32", "int64", "uint64", "float64"]}},
}
PTX = {popc: "popc.b", clz: "clz.b", brev: "brev.b"}  # ffs: libdevice's bit tricks, inlined


def _compile(fn, args):
    ptx, resty = cubridge.compile(fn, "(" + ", ".join(args) + ",)", device=True, abi="c", cc=CC)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    return ptx, str(resty)


@pytest.mark.parametrize("fn,arg", [(f, a) for f, table in RESULT.items() for a in table],
                         ids=[f"{f.__name__}-{a}" for f, table in RESULT.items() for a in table])
def test_one_argument_result_types_are_numba_cudas(fn, arg):
    ptx, resty = _compile(fn, [arg])
    assert resty == RESULT[fn][arg]
    if fn in PTX and arg != "bool":
        assert PTX[fn] in ptx, ptx
    assert "__nv_" not in ptx  # libdevice's ffs, brev and cbrt were linked in and inlined


@pytest.mark.parametrize("args,want", [
    (("float32", "float32", "float32"), "float32"),
    (("float32", "float32", "int16"), "float32"),
    (("float16", "float16", "float16"), "float32"),
    (("bool", "float32", "float32"), "float32"),
    (("int32", "float32", "float32"), "float64"),
    (("uint16", "float32", "float32"), "float64"),
    (("float32", "float64", "float32"), "float64"),
    (("int64", "int64", "int64"), "float64"),
])
def test_fma_picks_float32_only_when_every_argument_converts_safely(args, want):
    ptx, resty = _compile(fma, list(args))
    assert resty == want
    assert ("fma.rn.f32" if want == "float32" else "fma.rn.f64") in ptx


@pytest.mark.parametrize("t", ["float64", "float32", "int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_selp_keeps_the_type_of_a_and_b(t):
    ptx, resty = _compile(selp, ["bool", t, t])
    assert resty == t
    ptx, resty = _compile(selp, ["int64", t, t])  # any number is a test, by its truth
    assert resty == t


@pytest.mark.parametrize("fn,args,message", [
    (popc, ["float64"], r"cubridge\.popc\(\): the argument must be an integer, got float64"),
    (clz, ["float32"], r"cubridge\.clz\(\): the argument must be an integer, got float32"),
    (ffs, ["complex64"], r"cubridge\.ffs\(\): the argument must be an integer, got complex64"),
    (brev, ["float64"], r"cubridge\.brev\(\): the argument must be an integer, got float64"),
    (cbrt, ["complex128"], r"cubridge\.cbrt\(\): the arguments must be real numbers, got complex128"),
    (selp, ["bool", "float32", "float64"], r"a and b must have the same type, one of float64, float32, int16, "
                                           r"uint16, int32, uint32, int64, uint64; got float32 and float64"),
    (selp, ["bool", "int8", "int8"], r"got int8 and int8"),
])
def test_wrong_argument_types_are_refused_by_name(fn, args, message):
    with pytest.raises(cubridge.CompileError, match=message):
        _compile(fn, args)


def test_the_table_is_numba_cudas():
    """Where numba's CUDA typing imports (no GPU needed), its templates give the table's answers."""
    pytest.importorskip("numba")
    try:
        from numba import types
        from numba.cuda import cudadecl
        from numba.cuda.descriptor import cuda_target
    except Exception as e:  # noqa: BLE001 - any import failure: numba's CUDA target is not here
        pytest.skip(f"numba's CUDA typing is not importable: {e}")
    ctx = cuda_target.typing_context
    ctx.refresh()
    templates = {popc: cudadecl.Cuda_popc, clz: cudadecl.Cuda_clz, ffs: cudadecl.Cuda_ffs,
                 brev: cudadecl.Cuda_brev, cbrt: cudadecl.Cuda_cbrt}
    for fn, table in RESULT.items():
        for arg, want in table.items():
            sig = ctx.resolve_function_type(types.Function(templates[fn]), (getattr(types, arg),), {})
            assert str(sig.return_type) == want, (fn.__name__, arg, sig)
