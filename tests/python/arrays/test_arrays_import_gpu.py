"""GPU tests of the one import: CuPy's attribute path against its `__cuda_array_interface__` on real CuPy
arrays (pointer, shape, strides, dtype, read-only flag, device, and the stream rule under CuPy's current
stream and both export versions), and the route a real CuPy array takes. Skipped without CuPy.
"""
import importlib
import json
import os
import subprocess
import sys

import pytest

import cubridge

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cp():
    try:
        return importlib.import_module("cupy")
    except Exception as e:  # noqa: BLE001 - any import failure means "not available here"
        pytest.skip(f"cupy is not importable: {e}")


def facts(a):
    cai = a.__cuda_array_interface__
    return {"ptr": a.ptr, "shape": a.shape, "strides": a.strides, "typestr": a.typestr, "readonly": a.readonly,
            "sync": a.sync, "stream": cai["stream"], "cai_strides": cai["strides"], "data": cai["data"],
            "device": a.device_id}


def cupy_path(cp, a):
    from cupy import _util
    from cupy.cuda import stream
    from cupy_backends.cuda import stream as backend_stream
    return cubridge._core._cupy_view(a, _util, stream.get_current_stream, backend_stream.get_default_stream_ptr)


def arrays(cp):
    base = cp.arange(2 * 3 * 4, dtype=cp.float32).reshape(2, 3, 4)
    return {"C": base, "F": cp.asfortranarray(base), "transposed": base.transpose(2, 0, 1),
            "sliced": base[:, ::2, 1:], "reversed": base[::-1], "1-d": cp.arange(7, dtype=cp.int64),
            "empty": cp.empty((0, 3), cp.float16), "0-d": cp.array(3.0), "complex": cp.ones(5, cp.complex128),
            "bool": cp.zeros(4, cp.bool_)}


def test_a_cupy_array_takes_the_cupy_route(cp):
    assert cubridge._core._import_route(cp.zeros(3)) == "cupy"


@pytest.mark.parametrize("which", ["C", "F", "transposed", "sliced", "reversed", "1-d", "empty", "0-d", "complex", "bool"])
@pytest.mark.parametrize("stream", ["null", "new", "ptds"])
@pytest.mark.parametrize("version", [3, 2])
def test_cupy_path_equals_the_cai_path_on_real_arrays(cp, which, stream, version):
    from cupy import _util
    a = arrays(cp)[which]
    s = {"null": cp.cuda.Stream.null, "new": cp.cuda.Stream(), "ptds": cp.cuda.Stream.ptds}[stream]
    old = _util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION
    _util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION = version
    try:
        with s:
            fast = cupy_path(cp, a)
            slow = cubridge.from_cuda_array_interface(a.__cuda_array_interface__, a)
            via_route = cubridge.as_cuda_array(a)
    finally:
        _util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION = old
    assert fast is not None
    assert facts(fast) == facts(slow) == facts(via_route)


def test_this_process_reads_cupy_arrays_from_the_object(cp):
    cubridge._core._import_route(cp.zeros(1))  # CuPy's facts are resolved at its first array
    reader = cubridge._core._cupy_reader()
    assert reader["layout"] is not None and reader["stream_functions"] is True, reader
    # CuPy's current stream asked where CuPy keeps it (py_cupy_layout.hpp's stream_functions)
    assert reader["current_stream_from"] == "cupy_backends.cuda.stream", reader


def test_the_current_stream_is_cupys_with_the_per_thread_default_stream(cp):
    """CUPY_CUDA_PER_THREAD_DEFAULT_STREAM=1 (read when CuPy is imported): CuPy's current stream with none set is
    the per-thread default stream, and the view names what CuPy's CAI names, with no stream set and with one."""
    code = """
import json, cupy as cp, cubridge
a = cp.zeros(8, cp.float32)
rows = []
for s in (None, cp.cuda.Stream(), cp.cuda.Stream.null):
    if s is None:
        rows.append([a.__cuda_array_interface__["stream"], cubridge.as_cuda_array(a).__cuda_array_interface__["stream"]])
    else:
        with s:
            rows.append([a.__cuda_array_interface__["stream"], cubridge.as_cuda_array(a).__cuda_array_interface__["stream"]])
print(json.dumps([cubridge._core._cupy_reader()["current_stream_from"], rows]))
"""
    env = dict(os.environ, CUPY_CUDA_PER_THREAD_DEFAULT_STREAM="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    source, rows = json.loads(out.stdout.strip().splitlines()[-1])
    assert source == "cupy_backends.cuda.stream"
    assert rows[0][0] == 2  # CuPy names the per-thread default stream (CAI v3: 2)
    for cupys, ours in rows:
        assert ours == cupys


def fill(a, v):
    i = cubridge.grid(1)
    if i < a.size:
        a[i] = v


def scale(a, f):
    i, j = cubridge.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] *= f


def test_launches_see_each_cupy_array_as_it_is_now(cp):
    """The import memo (py_import_memo.hpp) serves a launch's arrays again: a view must never outlive a fact."""
    k1, k2 = cubridge.jit(fill), cubridge.jit(scale)
    a = cp.zeros(24, dtype=cp.float32)
    for v in (1.0, 2.0, 3.0):  # the same array again: a remembered view, the values of each launch
        k1[1, 32](a, v)
        cp.testing.assert_array_equal(a, cp.full(24, v, cp.float32))
    hits = cubridge._core._import_memo()["hits"]
    k1[1, 32](a, 4.0)
    assert cubridge._core._import_memo()["hits"] > hits
    a.shape = (4, 6)  # the same object, another shape
    k2[(1, 1), (8, 8)](a, 2.0)
    cp.testing.assert_array_equal(a, cp.full((4, 6), 8.0, cp.float32))
    b = a[:, ::2]  # a strided view of it
    k2[(1, 1), (8, 8)](b, 0.5)
    expect = cp.full((4, 6), 8.0, cp.float32)
    expect[:, ::2] = 4.0
    cp.testing.assert_array_equal(a, expect)
    for n in (5, 7, 9):  # new arrays, freed and made again (often at one address), of other sizes
        c = cp.zeros(n, dtype=cp.float32)
        k1[1, 32](c, float(n))
        cp.testing.assert_array_equal(c, cp.full(n, float(n), cp.float32))
        del c
    s = cp.cuda.Stream()
    with s:  # another current stream: the view names it, and the launch is ordered after it
        d = cp.zeros(24, dtype=cp.float32)
        k1[1, 32, s.ptr](d, 6.0)
    s.synchronize()
    cp.testing.assert_array_equal(d, cp.full(24, 6.0, cp.float32))


@pytest.fixture(params=["glue", "exchange table"])
def torch_reader(request):
    """Each PyTorch case both ways: through cubridge._torch_glue's reader (where it was built against this
    PyTorch) and through the exchange table's dltensor_from_py_object_no_sync."""
    before = cubridge._core._torch_glue_reader(request.param == "glue")
    yield request.param
    cubridge._core._torch_glue_reader(before)


def test_launches_see_each_torch_tensor_as_it_is_now(torch_reader):
    """The exchange table's borrowed DLTensor, remembered by the import memo: in-place changes of the same
    tensor object (resize_, t_, as_strided_, a new current stream) are new facts, never a stale view."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    k1, k2 = cubridge.jit(fill), cubridge.jit(scale)
    t = torch.zeros(24, dtype=torch.float32, device="cuda")
    for v in (1.0, 2.0):
        k1[1, 32](t, v)
        assert torch.equal(t, torch.full((24,), v, device="cuda"))
    t.resize_(4, 6)
    k2[(1, 1), (8, 8)](t, 3.0)
    assert torch.equal(t, torch.full((4, 6), 6.0, device="cuda"))
    t.t_()  # the same object, transposed in place: strides (1, 6)
    k2[(1, 1), (8, 8)](t, 0.5)
    assert torch.equal(t, torch.full((6, 4), 3.0, device="cuda"))
    t.as_strided_((3,), (2,))
    k1[1, 32](t, 9.0)
    base = t.as_strided((24,), (1,))
    expect = torch.full((24,), 3.0, device="cuda")
    expect[0:6:2] = 9.0
    assert torch.equal(base, expect)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):  # another current stream: the view names it (the launch is ordered after it)
        u = torch.zeros(8, device="cuda")
        k1[1, 32](u, 5.0)
    torch.cuda.synchronize()
    assert torch.equal(u, torch.full((8,), 5.0, device="cuda"))


def torch_tensors(torch):
    base = torch.arange(2 * 3 * 4, dtype=torch.float32, device="cuda").reshape(2, 3, 4)
    made = {"C": base, "transposed": base[0].T, "sliced": base[:, ::2, 1:], "offset": base[1, 1:],
            "expanded": torch.ones(3, 1, device="cuda").expand(3, 5), "0-d": torch.tensor(3.0, device="cuda"),
            "empty": torch.empty(0, 3, device="cuda", dtype=torch.float16), "extent 1": base[:, 1:2, :],
            "complex64": torch.ones(5, dtype=torch.complex64, device="cuda"),
            "bool": torch.zeros(4, dtype=torch.bool, device="cuda"),
            "bfloat16": torch.ones(6, dtype=torch.bfloat16, device="cuda"),
            "int8": torch.ones(6, dtype=torch.int8, device="cuda"), "uint64": torch.ones(2, dtype=torch.uint64, device="cuda"),
            "requires_grad": torch.ones(4, device="cuda", requires_grad=True),
            "cpu": torch.ones(3), "Parameter": torch.nn.Parameter(torch.ones(4, device="cuda")),
            "a subclass": torch.ones(4, device="cuda").as_subclass(type("Sub", (torch.Tensor,), {}))}
    if hasattr(torch, "float8_e4m3fn"):
        made["float8_e4m3fn"] = torch.ones(4, device="cuda").to(torch.float8_e4m3fn)
    return made


TORCH_CASES = ["C", "transposed", "sliced", "offset", "expanded", "0-d", "empty", "extent 1", "complex64", "bool",
               "bfloat16", "int8", "uint64", "requires_grad", "cpu", "Parameter", "a subclass", "float8_e4m3fn"]


@pytest.mark.parametrize("which", TORCH_CASES)
def test_the_torch_glue_describes_a_tensor_as_the_exchange_table_does(which):
    """Where the package was built against this PyTorch, cubridge._torch_glue reads a tensor's borrowed DLTensor
    (for every import: a launch, the C API, as_cuda_array) in place of the exchange table's
    dltensor_from_py_object_no_sync: field for field the same, for an exact torch.Tensor of every layout and
    dtype (nn.Parameter included: PyTorch's C++ takes it for a plain tensor); a subclass is left to the table."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    if cubridge._core._torch_glue_table() is None:
        pytest.skip("cubridge._torch_glue was not built against this PyTorch")
    tensors = torch_tensors(torch)
    if which not in tensors:
        pytest.skip(f"this PyTorch has no {which}")
    t = tensors[which]
    both = cubridge._core._torch_dltensor_both(t)
    if type(t) in (torch.Tensor, torch.nn.Parameter):
        assert both["glue"] == both["exchange"]
        assert both["glue"]["data"] + both["glue"]["byte_offset"] == t.data_ptr()
    else:
        assert both["glue"] is None
    if which in ("C", "transposed", "sliced", "offset", "expanded", "0-d", "empty", "extent 1", "complex64", "bool",
                 "int8"):
        view = cubridge.as_cuda_array(t)  # the glue's description, read by the one import
        assert view.__cuda_array_interface__["data"][0] == t.data_ptr()
        assert view.shape == tuple(t.shape)
        assert view.strides == tuple(s * t.element_size() for s in t.stride())


@pytest.fixture(scope="module")
def nbcuda():
    import numpy
    if not hasattr(numpy, "row_stack"):  # numba-cuda 0.30 still calls it; numpy 2.5 removed it
        numpy.row_stack = numpy.vstack
    try:
        from numba import cuda
        from numba.cuda.cudadrv import devicearray  # noqa: F401 - numba-cuda's, which the reader knows
    except Exception as e:  # noqa: BLE001 - any import failure means "not available here"
        pytest.skip(f"numba-cuda is not importable: {e}")
    return cuda


def numba_arrays(cuda):
    import numpy as np
    base = cuda.to_device(np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4))
    return {"C": base, "F": cuda.to_device(np.asfortranarray(np.ones((3, 5)))), "sliced": base[:, ::2, 1:],
            "transposed": base[0].T, "reversed": base[::-1], "1-d": cuda.to_device(np.arange(7)),
            "empty": cuda.device_array((0, 3), np.float16), "0-d": cuda.to_device(np.array(3.0)),
            "complex": cuda.to_device(np.ones(5, np.complex128)), "bool": cuda.to_device(np.zeros(4, np.bool_)),
            "extent 1": base[:, 1:2, :], "bound stream": base.bind(cuda.stream()),
            "record": cuda.to_device(np.zeros(3, np.dtype([("x", "<f4"), ("y", "<i4")])))}


@pytest.mark.parametrize("which", ["C", "F", "sliced", "transposed", "reversed", "1-d", "empty", "0-d", "complex",
                                   "bool", "extent 1", "bound stream", "record"])
def test_numba_device_arrays_read_as_their_property_reports(nbcuda, which):
    a = numba_arrays(nbcuda)[which]
    assert cubridge._core._import_route(a) == "numba"
    fast = cubridge.as_cuda_array(a)  # the reader (or, for a bound stream or a record, the property)
    slow = cubridge.from_cuda_array_interface(a.__cuda_array_interface__, a)
    assert facts(fast) == facts(slow)
    again = cubridge.as_cuda_array(a)
    assert facts(again) == facts(slow)


def test_launches_see_each_numba_device_array_as_it_is_now(nbcuda):
    import numpy as np
    k1, k2 = cubridge.jit(fill), cubridge.jit(scale)
    d = nbcuda.to_device(np.zeros(24, np.float32))
    for v in (1.0, 2.0):
        k1[1, 32](d, v)
        np.testing.assert_array_equal(d.copy_to_host(), np.full(24, v, np.float32))
    m = d.reshape(4, 6)
    k2[(1, 1), (8, 8)](m, 3.0)
    k2[(1, 1), (8, 8)](m[:, ::2], 0.5)
    expect = np.full((4, 6), 6.0, np.float32)
    expect[:, ::2] = 3.0
    np.testing.assert_array_equal(m.copy_to_host(), expect)
    for n in (5, 7, 9):
        e = nbcuda.to_device(np.zeros(n, np.float32))
        k1[1, 32](e, float(n))
        np.testing.assert_array_equal(e.copy_to_host(), np.full(n, float(n), np.float32))
        del e


def copy_complex(x, out):
    i = cubridge.grid(1)
    if i < out.size:
        out[i] = x[i]


@pytest.mark.parametrize("bit", ["conjugate", "negative"])
def test_a_torch_tensor_with_an_unresolved_bit_is_refused_by_every_import(bit, torch_reader):
    """PyTorch's DLPack export hands x.conj() and x.conj().imag out as their memory, without the bit: read so,
    they would be silently wrong (unconjugated, the wrong sign). A launch, from_dlpack and as_cuda_array refuse
    them naming the bit and the way out; resolved, the same values are read right."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    z = torch.complex(torch.arange(8.0, device="cuda"), torch.arange(8.0, device="cuda") + 1)
    x = z.conj() if bit == "conjugate" else z.conj().imag
    assert (x.is_conj(), x.is_neg()) == ((True, False) if bit == "conjugate" else (False, True))
    out = torch.zeros(8, dtype=x.dtype, device="cuda")
    k = cubridge.jit(copy_complex)
    for importing in (lambda: k[1, 32](x, out), lambda: cubridge.from_dlpack(x), lambda: cubridge.as_cuda_array(x)):
        with pytest.raises(ValueError, match=f"{bit} bit set .* pass x.resolve_{bit[:3] if bit == 'negative' else 'conj'}"):
            importing()
    assert torch.equal(out, torch.zeros_like(out))  # nothing was launched
    resolved = x.resolve_conj() if bit == "conjugate" else x.resolve_neg()
    k[1, 32](resolved, out)
    torch.testing.assert_close(out, x)  # x's values as PyTorch reads them (bits applied)
