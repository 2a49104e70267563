"""GPU tests of the arrays face: cubridge's own arrays, the pointer check, stream ordering without a host
synchronize, the producer rules, and interop both ways with real CuPy, PyTorch, Numba and JAX (each
skipped when it is not importable). Run on the GPU machine: `python -m pytest tests/python/arrays/test_arrays_gpu.py`.
"""
import gc
import importlib
import os

import numpy as np
import pytest

import cubridge

pytestmark = pytest.mark.gpu
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX shares the GPU with the others here

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128]
SHAPES = [(7,), (3, 5), (2, 3, 4), (2, 1, 3, 2), (0,), (4, 0)]
SPIN_CYCLES = 500_000_000  # about 0.3 s of one GPU thread spinning: long enough to still be running


def lib(name):
    if name == "numba.cuda" and not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # numba-cuda 0.30 still names it; NumPy 2.5 removed it
    try:
        mod = importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 - any import failure means "not available here"
        pytest.skip(f"{name} is not importable: {e}")
    return mod


def sample(shape, dtype, order="C"):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 100, size=shape) if shape else np.array(5)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * x[::-1] if x.ndim else x
    return np.asarray(x, dtype=dtype, order=order)


# ---- our own arrays ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_to_device_and_back(dtype, shape, order):
    x = sample(shape, dtype, order)
    d = cubridge.to_device(x)
    assert d.shape == x.shape and d.typestr == x.dtype.str.replace("=", "<")
    assert d.strides == x.strides or x.size == 0  # NumPy gives zero-size arrays zero strides
    np.testing.assert_array_equal(d.copy_to_host(), x)


def test_strided_views_copy_to_host():
    x = sample((6, 8), np.float32)
    d = cubridge.to_device(x)
    for key in [(slice(None, None, -1),), (slice(1, None, 2), slice(None, None, -3)), (Ellipsis, 2), (3,)]:
        np.testing.assert_array_equal(d[key].copy_to_host(), x[key])
    np.testing.assert_array_equal(d.T.copy_to_host(), x.T)


def test_structured_dtype_round_trip():
    dt = np.dtype([("a", "<f4"), ("b", "<i4")])
    x = np.zeros(5, dt)
    x["a"], x["b"] = np.arange(5), np.arange(5) * 2
    d = cubridge.to_device(x)
    assert d.typestr == "|V8" and d.descr == dt.descr
    np.testing.assert_array_equal(d.copy_to_host(), x)


def test_device_array_and_copy_to_device():
    d = cubridge.device_array((3, 4), np.int32, order="F")
    assert d.is_f_contiguous() and d.stream is None
    assert d.__cuda_array_interface__["stream"] is None  # on no particular stream
    x = sample((3, 4), np.int32)
    d.copy_to_device(x)
    np.testing.assert_array_equal(d.copy_to_host(), x)
    e = cubridge.device_array_like(x)
    e.copy_to_device(d.copy_to_host())
    np.testing.assert_array_equal(e.copy_to_host(), x)


@pytest.mark.real_driver
def test_pointer_attributes_and_host_memory_rejected():
    d = cubridge.device_array(256, np.uint8)
    pa = d.pointer_attributes
    assert pa["memory_type"] == "device" and pa["device"] == 0 and pa["range_size"] >= 256
    assert d.__dlpack_device__() == (2, 0)
    host = np.zeros(16, np.float32)
    desc = {"shape": (16,), "typestr": "<f4", "data": (host.ctypes.data, False), "version": 3}
    pageable = cubridge.Device(0).attribute(88)  # CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS
    if pageable:
        pytest.skip("this GPU can address pageable host memory (HMM/ATS), so host pointers are valid")
    with pytest.raises(ValueError, match=r"__cuda_array_interface__\['data'\]: pointer 0x[0-9a-f]+ is not "
                                         r"GPU-accessible memory"):
        cubridge.from_cuda_array_interface(desc)


def test_pending_streams_are_joined_on_export():
    src = cubridge.to_device(np.arange(1 << 20, dtype=np.float32))
    dst = cubridge.device_array(1 << 20, np.float32)
    s = cubridge.stream()
    dst.copy_from(src, stream=s)
    cai = dst.__cuda_array_interface__
    assert cai["stream"] == 1  # our copy on `s` is joined into the legacy stream the export names
    assert dst.__cuda_array_interface__["stream"] is None  # nothing pending any more
    np.testing.assert_array_equal(dst.copy_to_host(), np.arange(1 << 20, dtype=np.float32))


def test_exported_stream_outlives_the_array():
    s = cubridge.stream()
    d = cubridge.device_array(10, np.float32, stream=s)
    handle = d.__cuda_array_interface__["stream"]
    assert handle == s.handle and handle not in (0, 1, 2)
    del d, s
    gc.collect()
    cubridge.external_stream(handle).synchronize()  # still a live stream


def test_dlpack_export_to_ourselves_and_copy():
    d = cubridge.to_device(np.arange(12, dtype=np.float64).reshape(3, 4))
    e = cubridge.from_dlpack(DLForward(d))
    np.testing.assert_array_equal(e.copy_to_host(), d.copy_to_host())
    c = cubridge.from_dlpack(DLForward(d, copy=True))
    assert c.ptr != d.ptr
    np.testing.assert_array_equal(c.copy_to_host(), d.copy_to_host())


class DLForward:
    def __init__(self, arr, copy=None):
        self.arr, self.copy = arr, copy

    def __dlpack__(self, stream=None, max_version=None):
        return self.arr.__dlpack__(stream=stream, max_version=max_version, copy=self.copy)

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


# ---- CuPy ---------------------------------------------------------------------------------------------

SPIN_SOURCE = r"""
extern "C" __global__ void spin_fill(float* x, int n, long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) { }
  for (int i = 0; i < n; ++i) x[i] = i + 1.0f;
}
"""


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_cupy_into_cubridge_and_back(dtype, shape):
    cp = lib("cupy")
    for order in "CF":
        host = sample(shape, dtype, order)
        x = cp.asarray(host, order=order)
        a = cubridge.as_cuda_array(x)
        assert (a.ptr, a.shape) == (x.data.ptr, x.shape)
        assert a.strides == x.strides or x.size == 0
        np.testing.assert_array_equal(a.copy_to_host(), host)
        np.testing.assert_array_equal(cp.asnumpy(cp.asarray(a)), host)  # CuPy reads our CAI
        b = cubridge.from_dlpack(x)
        np.testing.assert_array_equal(b.copy_to_host(), host)
        np.testing.assert_array_equal(cp.asnumpy(cp.from_dlpack(b)), host)


def test_cupy_negative_and_non_unit_strides():
    cp = lib("cupy")
    host = sample((6, 8), np.float32)
    x = cp.asarray(host)[::-1, 1::3]
    a = cubridge.as_cuda_array(x)
    assert a.strides == x.strides and a.strides[0] < 0
    np.testing.assert_array_equal(a.copy_to_host(), host[::-1, 1::3])


def test_cupy_producer_still_running_is_seen_finished_without_host_sync():
    cp = lib("cupy")
    n = 1024
    spin = cp.RawKernel(SPIN_SOURCE, "spin_fill")
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x = cp.zeros(n, cp.float32)
        spin((1,), (1,), (x, np.int32(n), np.int64(SPIN_CYCLES)))
        a = cubridge.as_cuda_array(x)  # CuPy exports the current stream: s
    assert a.stream is not None and a.stream.handle == s.ptr and a.sync
    out = cubridge.device_array(n, np.float32)
    other = cubridge.stream()
    out.copy_from(a, stream=other)  # ordered after the spinning kernel on the GPU
    assert not s.done, "the host waited for the producer: a host-side synchronisation happened"
    other.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(1, n + 1, dtype=np.float32))


def test_cupy_sync_off_does_not_wait():
    cp = lib("cupy")
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x = cp.zeros(4, cp.float32)
        a = cubridge.as_cuda_array(x, sync=False)
    assert a.stream.handle == s.ptr and not a.sync


def test_cupy_lifetime():
    cp = lib("cupy")
    x = cp.arange(10, dtype=cp.float32)
    a = cubridge.as_cuda_array(x)
    del x
    gc.collect()
    cp.get_default_memory_pool().free_all_blocks()
    np.testing.assert_array_equal(a.copy_to_host(), np.arange(10, dtype=np.float32))


def test_cupy_through_the_c_api():
    cp = lib("cupy")
    x = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    c = cubridge._core._c_import(x)
    assert c["data"] == x.data.ptr and c["shape"] == (3, 4) and c["strides"] == (16, 4)


# ---- PyTorch ------------------------------------------------------------------------------------------

TORCH_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
                "complex64", "complex128"]


@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_torch_into_cubridge_and_back(name):
    torch = lib("torch")
    dtype = getattr(torch, name)
    base = torch.arange(24, device="cuda").reshape(2, 3, 4).to(dtype)
    host = base.cpu().numpy()
    for t, h in [(base, host), (base.transpose(0, 2), host.transpose(2, 1, 0)), (base[:, ::2], host[:, ::2]),
                 (base[:0], host[:0])]:
        a = cubridge.as_cuda_array(t)  # the exchange table when PyTorch publishes it, else its CAI (v2)
        assert a.ptr == t.data_ptr() and a.shape == tuple(t.shape)
        assert a.strides == tuple(s * t.element_size() for s in t.stride()) or t.numel() == 0
        np.testing.assert_array_equal(a.copy_to_host(), h)
        b = cubridge.from_dlpack(t)  # the exchange table when PyTorch publishes it, else __dlpack__
        np.testing.assert_array_equal(b.copy_to_host(), h)
        np.testing.assert_array_equal(torch.from_dlpack(b).cpu().numpy(), h)
        np.testing.assert_array_equal(torch.as_tensor(b, device="cuda").cpu().numpy(), h)


def test_torch_bfloat16_round_trips_through_dlpack():
    # DLPack's kDLBfloat/16 is cubridge's bfloat16 dtype: imported, and exported back as bfloat16
    torch = lib("torch")
    t = torch.arange(4, device="cuda", dtype=torch.float32).to(torch.bfloat16)
    a = cubridge.from_dlpack(t)
    assert a.shape == (4,) and a.__cuda_array_interface__["typestr"] == "<V2"  # CAI has no bfloat16 spelling
    back = torch.from_dlpack(a)
    assert back.dtype == torch.bfloat16
    assert torch.equal(back, t)


def test_torch_stream_ordering_without_host_sync():
    torch = lib("torch")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.zeros(1024, device="cuda")
        torch.cuda._sleep(SPIN_CYCLES)
        t.fill_(7.0)
        a = cubridge.from_dlpack(t)  # the data is ready on torch's current stream (s) from here on
    out = cubridge.device_array(1024, np.float32)
    other = cubridge.stream()
    out.copy_from(a, stream=other)
    assert not s.query(), "the host waited for the producer: a host-side synchronisation happened"
    other.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), np.full(1024, 7.0, np.float32))


def test_torch_lifetime_and_c_api():
    torch = lib("torch")
    t = torch.ones(10, device="cuda")
    ptr = t.data_ptr()
    a = cubridge.from_dlpack(t)
    c = cubridge._core._c_import(t)
    assert c["data"] == ptr and c["shape"] == (10,) and c["owner"] is not None
    del t, c
    gc.collect()
    torch.cuda.empty_cache()
    np.testing.assert_array_equal(a.copy_to_host(), np.ones(10, np.float32))


@pytest.mark.parametrize("glue", [True, False], ids=["glue", "exchange table"])
def test_torch_c_api_names_torchs_current_stream(glue):
    # The C API's stream of a tensor is PyTorch's current stream on the tensor's device (the exchange table's
    # current_work_stream), whether the tensor itself is read through cubridge._torch_glue or the exchange table.
    torch = lib("torch")
    t = torch.ones(10, device="cuda")
    cubridge._core._torch_glue_reader(glue)
    try:
        assert cubridge._core._c_import(t)["stream"] == 1  # the legacy default stream, as CAI v3 names it
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            assert cubridge._core._c_import(t)["stream"] == s.cuda_stream
        assert cubridge._core._c_import(t)["stream"] == 1  # the current stream again, not the one last seen
    finally:
        cubridge._core._torch_glue_reader(True)


@pytest.mark.parametrize("glue", [True, False], ids=["glue", "exchange table"])
def test_torch_c_api_reads_each_tensors_dtype_when_dtypes_alternate(glue):
    # The C API keeps the last DLPack dtype it converted: tensors of other dtypes, one after another and back again,
    # each get their own typestr, itemsize and byte strides, and a refused dtype leaves the next import right.
    torch = lib("torch")
    cases = [(torch.float32, "<f4", 4), (torch.float64, "<f8", 8), (torch.int8, "|i1", 1), (torch.bool, "|b1", 1),
             (torch.complex64, "<c8", 8), (torch.float16, "<f2", 2), (torch.uint8, "|u1", 1),
             (torch.bfloat16, "<V2", 2), (torch.float32, "<f4", 4)]
    cubridge._core._torch_glue_reader(glue)
    try:
        for _ in range(2):
            for dtype, typestr, itemsize in cases:
                t = torch.zeros((3, 5), dtype=dtype, device="cuda").t()  # an F-ordered view: strides (1, 5)
                c = cubridge._core._c_import(t)
                assert (c["typestr"], c["itemsize"]) == (typestr, itemsize), dtype
                assert c["shape"] == (5, 3) and c["strides"] == (itemsize, 5 * itemsize), dtype
                assert c["data"] == t.data_ptr()
        f8e4 = getattr(torch, "float8_e4m3fn", None)
        if f8e4 is not None:  # a dtype the struct cannot hold: refused by name, and the next import unaffected
            with pytest.raises(Exception, match="C API|dtype|code"):
                cubridge._core._c_import(torch.zeros(4, device="cuda").to(f8e4))
            assert cubridge._core._c_import(torch.zeros(4, device="cuda"))["typestr"] == "<f4"
    finally:
        cubridge._core._torch_glue_reader(True)


# ---- Numba --------------------------------------------------------------------------------------------

@pytest.mark.real_driver
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.complex128, np.bool_])
def test_numba_both_ways(dtype):
    cuda = lib("numba.cuda")
    host = sample((3, 4), dtype)
    s = cuda.stream()
    x = cuda.to_device(host, stream=s)
    a = cubridge.as_cuda_array(x)
    assert a.stream is not None and a.stream.handle == int(s)
    np.testing.assert_array_equal(a.copy_to_host(), host)
    y = cuda.as_cuda_array(cubridge.to_device(host))  # Numba reads our CAI
    np.testing.assert_array_equal(y.copy_to_host(), host)
    f = cuda.as_cuda_array(cubridge.to_device(np.asfortranarray(host)))
    np.testing.assert_array_equal(f.copy_to_host(), host)


@pytest.mark.real_driver
def test_numba_default_stream_export():
    cuda = lib("numba.cuda")
    x = cuda.to_device(np.arange(4, dtype=np.float32))
    if x.__cuda_array_interface__.get("stream") == 0:
        with pytest.raises(ValueError, match=r"\['stream'\]: 0 is disallowed"):
            cubridge.as_cuda_array(x)
    else:
        np.testing.assert_array_equal(cubridge.as_cuda_array(x).copy_to_host(), np.arange(4, dtype=np.float32))


# ---- JAX ----------------------------------------------------------------------------------------------

def _jax_gpu():
    jax = lib("jax")
    try:
        return jax, jax.devices("gpu")[0]
    except RuntimeError as e:
        pytest.skip(f"JAX has no GPU backend here: {e}")


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex64, np.bool_])  # no x64 by default
def test_jax_both_ways(dtype):
    jax, dev = _jax_gpu()
    host = sample((3, 4), dtype)
    x = jax.device_put(host, dev)
    b = cubridge.from_dlpack(x)
    np.testing.assert_array_equal(b.copy_to_host(), host)
    try:
        x.__cuda_array_interface__
    except Exception:  # noqa: BLE001 - JAX offers the CAI only for some arrays
        pass
    else:
        np.testing.assert_array_equal(cubridge.as_cuda_array(x).copy_to_host(), host)
    jnp = importlib.import_module("jax.numpy")
    y = jnp.from_dlpack(cubridge.to_device(host))  # the array-API entry point (jax.dlpack's is older)
    np.testing.assert_array_equal(np.asarray(y), host)


def test_foreign_stream_as_default_stream():
    cp = lib("cupy")
    s = cp.cuda.Stream(non_blocking=True)
    d = cubridge.to_device(np.arange(8, dtype=np.float32), stream=s)
    assert d.stream.handle == s.ptr
    assert d.__cuda_array_interface__["stream"] == s.ptr
    with s:
        np.testing.assert_array_equal(cp.asnumpy(cp.asarray(d) * 2), np.arange(8, dtype=np.float32) * 2)
