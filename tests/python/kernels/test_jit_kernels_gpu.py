"""Kernels compiled by cubridge's own front end (@cubridge.jit), run on the GPU over CuPy, PyTorch and
cubridge arrays and checked against NumPy: the whole corpus of corpus/kernel_cases.py (elementwise, 2-d and
3-d, strided and F-order views, negative indices, slices, shared memory, atomics, warp shuffles and votes,
dynamic shared memory), every fifth case on a non-default CuPy / PyTorch stream. Sizes are small.
JAX arrays are inputs too, where a case only reads them (JAX exports read-only arrays: its outputs stay
cubridge arrays) and their dtypes are JAX's without x64."""
import os
import sys

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX shares the GPU with CuPy and PyTorch

import numpy as np
import pytest

import cubridge

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from corpus.kernel_cases import CASES, View  # noqa: E402

LIBS = ["cupy", "torch", "cubridge", "jax"]
_DISPATCHERS: dict = {}


def _jax_signature(case):
    """The case's signature with its read-only array inputs made const, for JAX inputs; None where an
    input JAX cannot hold as given (64-bit without x64, an F-order parameter: JAX arrays are C-ordered)."""
    params = cubridge.KernelSignature(case.sig).params
    out, inputs = [], 0
    for k, (p, a) in enumerate(zip(params, case.make())):
        if k in case.outs or not isinstance(a, (np.ndarray, View)):
            out.append(p)
            continue
        dtype = (a.base if isinstance(a, View) else a).dtype
        if (dtype.itemsize == 8 and dtype.kind != "c") or dtype == np.complex128 or "[::1," in p:
            return None
        inputs += 1
        out.append(p if p.startswith("const ") else "const " + p)
    return "void(" + ", ".join(out) + ")" if inputs else None


def _jax_gpu():
    try:
        import jax  # lazily: after XLA_PYTHON_CLIENT_PREALLOCATE is set, and only where JAX cases run
    except Exception as e:  # noqa: BLE001 - any import failure means "not available here"
        pytest.skip(f"jax is not importable: {e}")
    try:
        return jax, jax.devices("gpu")[0]
    except RuntimeError as e:
        pytest.skip(f"JAX has no GPU backend here: {e}")


def _library(lib):
    if lib == "cupy":
        return pytest.importorskip("cupy", reason="CuPy is not installed")
    if lib == "torch":
        torch = pytest.importorskip("torch", reason="PyTorch is not installed")
        if not torch.cuda.is_available():
            pytest.skip("PyTorch has no CUDA here")
        return torch
    return cubridge


def _to_device(lib, mod, a):
    if lib == "cupy":
        return mod.asarray(a)
    if lib == "torch":
        return mod.from_numpy(np.ascontiguousarray(a)).to("cuda")
    return cubridge.to_device(a)


def _to_host(lib, d):
    if lib == "cupy":
        return d.get()
    if lib == "torch":
        return d.cpu().numpy()
    return d.copy_to_host()


def _dispatcher(index, lib):
    sig = _jax_signature(CASES[index]) if lib == "jax" else CASES[index].sig
    d = _DISPATCHERS.get((index, sig))  # one per case and signature: cases share signatures, not kernels
    if d is None:
        d = _DISPATCHERS[(index, sig)] = cubridge.jit(sig)(CASES[index].fn)
    return d


def _run_jax_inputs(index):
    """The case with its read-only inputs as JAX arrays (views taken on the host) and its outputs as
    cubridge arrays."""
    case = CASES[index]
    jax, dev = _jax_gpu()
    kernel = _dispatcher(index, "jax")
    host_inputs = case.host_args()
    expected = case.ref(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in host_inputs])
    args, outs = [], {}
    for k, (a, host) in enumerate(zip(case.make(), host_inputs)):
        if k in case.outs:
            base = cubridge.to_device(a.base if isinstance(a, View) else a)
            outs[k] = (base, a.take if isinstance(a, View) else None)
            args.append(a.take(base) if isinstance(a, View) else base)
        elif isinstance(host, np.ndarray):
            args.append(jax.device_put(np.ascontiguousarray(host), dev).block_until_ready())
        else:
            args.append(a)
    kernel[case.grid, case.block, 0, case.shared](*args)
    got = []
    for k in case.outs:
        base, take = outs[k]
        host = base.copy_to_host()
        got.append(take(host) if take is not None else host)
    _compare(case, "jax", "default", got, expected)


def _uses_unsigned_wide(case):
    return any(t in case.sig for t in ("uint16", "uint32", "uint64"))


def _run(index, lib, stream_kind):
    case = CASES[index]
    mod = _library(lib)
    if lib == "torch" and _uses_unsigned_wide(case):
        pytest.skip("PyTorch's uint16/uint32/uint64 tensors support too few operations to stage these inputs")
    kernel = _dispatcher(index, lib)
    inputs = case.make()
    host_inputs = case.host_args()
    expected = case.ref(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in host_inputs])
    stream = None
    if stream_kind == "stream":
        stream = mod.cuda.Stream(non_blocking=True) if lib == "cupy" else mod.cuda.Stream()
    context = (stream if lib == "cupy" else mod.cuda.stream(stream)) if stream is not None else _Nothing()
    with context:
        bases, args = [], []
        for a in inputs:
            if isinstance(a, View):
                base = _to_device(lib, mod, a.base)
                bases.append((base, a.take))
                args.append(a.take(base))
            elif isinstance(a, np.ndarray):
                dev = _to_device(lib, mod, a)
                bases.append((dev, None))
                args.append(dev)
            else:
                bases.append((None, None))
                args.append(a)
        launch_stream = stream if stream is not None else 0
        kernel[case.grid, case.block, launch_stream, case.shared](*args)
    if stream is not None:
        stream.synchronize()
    got = []
    for k in case.outs:
        base, take = bases[k]
        host = _to_host(lib, base)
        got.append(take(host) if take is not None else host)
    _compare(case, lib, stream_kind, got, expected)


def _compare(case, lib, stream_kind, got, expected):
    for k, g, want in zip(case.outs, got, expected):
        if want is None:
            continue
        want = np.asarray(want)
        msg = f"{case.name}{case.sig} on {lib} ({stream_kind}): output argument {k} differs from NumPy"
        if case.rtol or case.atol:
            np.testing.assert_allclose(g.astype(np.complex128 if np.iscomplexobj(g) else np.float64), want,
                                       rtol=case.rtol, atol=case.atol, err_msg=msg)
        else:
            assert g.shape == want.shape, f"{msg}: shape {g.shape} != {want.shape}"
            np.testing.assert_array_equal(g, want.astype(g.dtype), err_msg=msg)
    if case.check is not None:
        case.check(*got)


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


PARAMS = []
for _i, _c in enumerate(CASES):
    for _lib in LIBS:
        if _lib == "jax" and _jax_signature(_c) is None:
            continue
        PARAMS.append(pytest.param(_i, _lib, "default", id=f"{_i}-{_c.name}-{_lib}"))
        if _i % 5 == 0 and _lib != "cubridge":
            PARAMS.append(pytest.param(_i, _lib, "stream", id=f"{_i}-{_c.name}-{_lib}-stream"))


@pytest.mark.gpu
@pytest.mark.parametrize("index, lib, stream_kind", PARAMS)
def test_kernel_matches_numpy(index, lib, stream_kind):
    if lib == "jax":
        _run_jax_inputs(index)
    else:
        _run(index, lib, stream_kind)


@pytest.mark.gpu
def test_lazy_jit_specialises_per_layout_on_cupy():
    cp = _library("cupy")
    from corpus.kernels_elementwise import add_2d
    k = cubridge.jit(add_2d)
    a = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    out = cp.zeros((3, 4), cp.float32)
    k[(1, 1), (4, 4)](a, a, out)
    k[(1, 1), (4, 4)](a.T.copy().T, a, out)  # an F-order input: a second specialisation
    assert len(k.signatures) == 2, k.signatures
    np.testing.assert_array_equal(out.get(), 2 * np.arange(12, dtype=np.float32).reshape(3, 4))


@pytest.mark.gpu
def test_numba_spelling_runs_like_cubridge_spelling():
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    cp = _library("cupy")
    from corpus.kernels_numba_spelling import block_max, saxpy_numba
    x = cp.arange(300, dtype=cp.float32)
    out = cp.zeros(300, cp.float32)
    cubridge.jit(saxpy_numba)[3, 128](np.float32(2), x, x, out)
    np.testing.assert_array_equal(out.get(), 3 * np.arange(300, dtype=np.float32))
    m = cp.zeros(1, cp.int32)
    cubridge.jit(block_max)[3, 128](cp.arange(300, dtype=cp.int32), m)
    assert int(m.get()[0]) == 299
