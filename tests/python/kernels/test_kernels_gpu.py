"""Kernel face on a GPU: Numba-layout PTX kernels (tests/cpp/kernel/numba_abi_kernels.cu) launched on
CuPy, PyTorch, Numba, JAX, cubridge and NumPy arrays, on non-default streams, with CAI v3 ordering in
both directions; every scalar type; 1-3-d grids; dynamic shared memory beyond 48 KiB; forall; the
launch errors; close(); and numba-cuda's own compile_ptx output launched through cubridge."""
import os
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import cubridge

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave memory for CuPy and PyTorch
pytestmark = pytest.mark.gpu

PTX = (pathlib.Path(__file__).resolve().parents[2] / "cpp" / "kernel" / "numba_abi_kernels.ptx").read_text()
ADD = "const float32[:], const float32[:], float32[:]"


def kernel(name, sig):
    return cubridge.load_kernel(PTX, name, sig)


def cupy():
    return pytest.importorskip("cupy")


def torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    return torch


# ---------------------------------------------------------------- loading


def test_load_reads_attributes_and_caches_modules():
    cubridge.clear_kernel_cache()
    k = kernel("add_f32", ADD)
    assert k.name == "add_f32" and str(k.signature) == f"void({ADD})"
    assert 0 < k.max_threads_per_block <= 1024 and k.registers > 0 and k.shared_memory == 0
    assert k.module.format == "ptx" and "slow_fill" in k.module.entry_names
    kernel("scale_2d", "float64[:, :], float64")
    assert cubridge.kernel_cache_size() == 1
    assert "add_f32" in repr(k)


def test_unknown_entry_lists_the_entries():
    with pytest.raises(ValueError, match=r"kernel 'nope' is not in the module \(its entries: add_f32, scale_2d"):
        kernel("nope", ADD)
    with pytest.raises(ValueError, match="name=None needs a module with exactly one kernel; this one has 6"):
        cubridge.load_kernel(PTX, None, ADD)


def test_jit_failure_carries_the_log():
    bad = ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry broken()\n{\n bogus.op;\n}\n"
    with pytest.raises(cubridge.CudaError, match="JIT error log") as e:
        cubridge.load_kernel(bad, "broken", "")
    assert e.value.call == "cuModuleLoadDataEx"


def test_cubin_from_nvrtc_loads_and_launches():
    cp = cupy()
    source = (pathlib.Path(__file__).resolve().parents[2] / "cpp" / "kernel" / "numba_abi_kernels.cu").read_text()
    cc = cubridge.Device(0).compute_capability
    cubin = cubridge.nvrtc_compile(source, "numba_abi_kernels.cu", cc, output="cubin").code
    k = cubridge.load_kernel(cubin, "add_f32", ADD)
    assert k.module.format == "cubin" and k.binary_version == 10 * cc[0] + cc[1]
    a = cp.arange(64, dtype=cp.float32)
    out = cp.zeros(64, dtype=cp.float32)
    k[1, 64](a, a, out)
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(out.get(), 2 * np.arange(64, dtype=np.float32))


# ---------------------------------------------------------------- arrays of every library


def test_add_on_cupy_arrays_on_a_non_default_stream():
    cp = cupy()
    k = kernel("add_f32", ADD)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        a = cp.arange(1000, dtype=cp.float32)
        b = cp.full(1000, 2.0, dtype=cp.float32)
        out = cp.zeros(1000, dtype=cp.float32)
        k[(1000 + 127) // 128, 128](a, b, out)  # CuPy names `s` in its CAI: the launch goes there
        s.synchronize()
    np.testing.assert_array_equal(out.get(), np.arange(1000, dtype=np.float32) + 2)


def test_add_on_an_explicit_stream_of_each_kind():
    cp = cupy()
    k = kernel("add_f32", ADD)
    a = cp.arange(256, dtype=cp.float32)
    out = cp.zeros(256, dtype=cp.float32)
    cp.cuda.Device().synchronize()
    for stream in (cp.cuda.Stream(non_blocking=True), cubridge.stream(), 0, cubridge.legacy_default_stream()):
        out[...] = 0
        cp.cuda.Device().synchronize()
        k[2, 128, stream](a, a, out)  # ordered after CuPy's legacy-stream work, and it after the launch
        cp.cuda.Device().synchronize()
        np.testing.assert_array_equal(out.get(), 2 * np.arange(256, dtype=np.float32))


def test_add_on_torch_tensors_on_a_torch_stream():
    torch = torch_cuda()
    k = kernel("add_f32", ADD)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        a = torch.arange(500, dtype=torch.float32, device="cuda")
        out = torch.empty(500, dtype=torch.float32, device="cuda")
        k.forall(500, stream=s)(a, a, out)  # PyTorch's CAI (version 2) names no stream: say which
    s.synchronize()
    assert torch.equal(out.cpu(), 2 * torch.arange(500, dtype=torch.float32))


def test_add_on_numba_device_arrays():
    from numba import cuda
    k = kernel("add_f32", ADD)
    a = cuda.to_device(np.arange(64, dtype=np.float32))
    out = cuda.device_array(64, np.float32)
    k[1, 64](a, a, out)
    cuda.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), 2 * np.arange(64, dtype=np.float32))


def test_add_on_jax_arrays_read_only_inputs():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX has no GPU here")
    cp = cupy()
    k = kernel("add_f32", ADD)
    a = jnp.arange(128, dtype=jnp.float32)
    out = cp.zeros(128, dtype=cp.float32)
    k[1, 128](a, a, out)
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(out.get(), 2 * np.arange(128, dtype=np.float32))
    if getattr(a, "__cuda_array_interface__", {}).get("data", (0, False))[1]:  # JAX exports read-only
        with pytest.raises(ValueError, match="argument 2: the array is read-only but the kernel may write it"):
            k[1, 128](a, a, jnp.zeros(128, jnp.float32))


class DLPackOnly:
    """Hides every protocol but DLPack, to exercise that import path."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, **kw):
        return self.t.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_add_on_dlpack_only_producers():
    torch = torch_cuda()
    k = kernel("add_f32", ADD)
    a = torch.arange(32, dtype=torch.float32, device="cuda")
    out = torch.zeros(32, dtype=torch.float32, device="cuda")
    k[1, 32](DLPackOnly(a), a, DLPackOnly(out))
    torch.cuda.synchronize()
    assert torch.equal(out.cpu(), 2 * torch.arange(32, dtype=torch.float32))


def test_add_on_cubridge_device_arrays():
    if not hasattr(cubridge, "as_cuda_array"):
        pytest.skip("the array face has no as_cuda_array yet")
    cp = cupy()
    k = kernel("add_f32", ADD)
    a = cubridge.as_cuda_array(cp.arange(16, dtype=cp.float32))
    out = cp.zeros(16, dtype=cp.float32)
    k[1, 16](a, a, cubridge.as_cuda_array(out))
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(out.get(), 2 * np.arange(16, dtype=np.float32))


def test_numpy_arrays_are_copied_there_and_back_with_a_warning():
    k = kernel("add_f32", ADD)
    a = np.arange(100, dtype=np.float32)
    out = np.zeros(100, np.float32)
    with pytest.warns(cubridge.PerformanceWarning, match="Host array used in CUDA kernel will incur copy overhead.*argument 0 is copied to the device"):
        k[1, 128](a, a, out)
    np.testing.assert_array_equal(out, 2 * a)
    strided = np.zeros(200, np.float32)[::2]  # the copy keeps the strides
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cubridge.PerformanceWarning)
        k[1, 128](a, a, strided)
    np.testing.assert_array_equal(strided, 2 * a)


def test_a_host_array_misaligned_for_its_dtype_is_copied_there_and_back():
    """numba-cuda's test_gpu_array_strided: float64 items starting 4 bytes into a buffer (cuMemcpy takes any
    host address; the device copy is aligned)."""
    def fill(x):
        i = cubridge.grid(1)
        if i < x.shape[0]:
            x[i] = i
    x = np.arange(10, dtype=np.double)
    y = np.ndarray(shape=10 * 8, buffer=x, dtype=np.byte)
    z = np.ndarray(9, buffer=y[4:-4], dtype=np.double)
    assert z.__array_interface__["data"][0] % 8 == 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cubridge.PerformanceWarning)
        cubridge.jit("void(double[:])")(fill)[10, 10](z)
    np.testing.assert_array_equal(z, np.arange(9.0))
    before = np.arange(10, dtype=np.double).view(np.byte)  # the bytes around z's 72 are not written
    assert y[:4].tolist() == before[:4].tolist() and y[-4:].tolist() == before[-4:].tolist()


# ---------------------------------------------------------------- cubridge's own arrays (no peer needed)


def test_add_on_cubridge_arrays_on_a_cubridge_stream():
    k = kernel("add_f32", ADD)
    s = cubridge.stream()
    a = cubridge.to_device(np.arange(300, dtype=np.float32), stream=s)
    out = cubridge.device_array(300, np.float32, stream=s)
    k[3, 128](a, a, out)  # the arrays name `s`: the launch goes there
    np.testing.assert_array_equal(out.copy_to_host(stream=s), 2 * np.arange(300, dtype=np.float32))
    k.forall(300, stream=s)(a, a, out)
    np.testing.assert_array_equal(out.copy_to_host(stream=s), 2 * np.arange(300, dtype=np.float32))


def test_cubridge_arrays_slices_scalars_and_3d_grids():
    scale = kernel("scale_2d", "float64[:, :], float64")
    x = cubridge.to_device(np.arange(24, dtype=np.float64).reshape(4, 6))
    scale[(1, 1), (8, 8)](x[:, ::2], np.float64(3))
    want = np.arange(24, dtype=np.float64).reshape(4, 6)
    want[:, ::2] *= 3
    np.testing.assert_array_equal(x.copy_to_host(), want)

    fill = kernel("fill_3d", "int32[:, :, ::1], int64[:]")
    y = cubridge.device_array((3, 4, 5), np.int32)
    info = cubridge.device_array(3, np.int64)
    fill[(1, 2, 3), (5, 2, 1)](y, info)
    i, j, l = np.indices((3, 4, 5))
    np.testing.assert_array_equal(y.copy_to_host(), 100 * i + 10 * j + l)
    assert info.copy_to_host().tolist() == [60, 4, 0]

    scalars = kernel("scalars", "uint64[:], bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
                                "float16, float32, float64, complex64, complex128")
    out = cubridge.device_array(16, np.uint64)
    scalars[1, 1](out, np.bool_(True), np.int8(-7), -3000, np.int32(-100000), -(1 << 50), 200, 60000,
                  4000000000, 1 << 63, np.float16(-1.5), 0.1, 1e100, np.complex64(1.25 - 3.5j), 2j)
    got = out.copy_to_host().tolist()
    assert got[:9] == [1, (1 << 64) - 7, (1 << 64) - 3000, (1 << 64) - 100000, (1 << 64) - (1 << 50), 200, 60000,
                       4000000000, 1 << 63]
    assert got[9] == int(np.float16(-1.5).view(np.uint16))
    assert got[10] == int(np.float32(0.1).view(np.uint32))
    assert got[11] == int(np.float64(1e100).view(np.uint64))
    assert got[12:14] == [int(np.float32(1.25).view(np.uint32)), int(np.float32(-3.5).view(np.uint32))]
    assert got[14:16] == [0, int(np.float64(2).view(np.uint64))]


def test_dynamic_shared_memory_on_cubridge_arrays():
    k = kernel("reverse_block", "float32[:], float32[:]")
    x = cubridge.to_device(np.arange(2048, dtype=np.float32))
    out = cubridge.device_array(2048, np.float32)
    k[2, 1024, 0, 100 * 1024](x, out)
    want = np.arange(2048, dtype=np.float32).reshape(2, 1024)[:, ::-1].ravel()
    np.testing.assert_array_equal(out.copy_to_host(), want)
    assert k.max_dynamic_shared_memory >= 100 * 1024


def test_cubridge_producer_stream_and_launch_stream_are_ordered_both_ways():
    fill = kernel("slow_fill", "float32[:], float32, int64")
    add = kernel("add_f32", ADD)
    P, L = cubridge.stream(), cubridge.stream()
    x = cubridge.device_array(256, np.float32, stream=P)
    zero = cubridge.to_device(np.zeros(256, np.float32), stream=P)
    out = cubridge.to_device(np.zeros(256, np.float32), stream=P)
    fill[1, 256](x, 7.0, 200_000_000)  # on P: the arrays name it
    add[1, 256, L](x, zero, out)       # on L, after P's fill; P waits for it in turn
    np.testing.assert_array_equal(out.copy_to_host(stream=P), np.full(256, 7, np.float32))


# ---------------------------------------------------------------- layouts, scalars, grids


def test_scale_2d_on_sliced_and_f_order_arrays():
    cp = cupy()
    k = kernel("scale_2d", "float64[:, :], float64")
    x = cp.arange(24, dtype=cp.float64).reshape(4, 6)
    k[(1, 1), (8, 8)](x[:, ::2], 2.0)
    f = cp.asfortranarray(cp.arange(12, dtype=cp.float64).reshape(3, 4))
    k[(1, 1), (8, 8)](f, np.float32(-1))
    cp.cuda.Device().synchronize()
    want = np.arange(24, dtype=np.float64).reshape(4, 6)
    want[:, ::2] *= 2
    np.testing.assert_array_equal(x.get(), want)
    np.testing.assert_array_equal(f.get(), -np.arange(12, dtype=np.float64).reshape(3, 4))


def test_fill_3d_with_a_3d_grid():
    cp = cupy()
    k = kernel("fill_3d", "int32[:, :, ::1], int64[:]")
    x = cp.zeros((3, 4, 5), dtype=cp.int32)
    info = cp.zeros(3, dtype=cp.int64)
    k[(1, 2, 3), (5, 2, 1)](x, info)
    cp.cuda.Device().synchronize()
    i, j, l = np.indices((3, 4, 5))
    np.testing.assert_array_equal(x.get(), 100 * i + 10 * j + l)
    assert info.get().tolist() == [60, 4, 0]


def test_every_scalar_type_arrives_bit_exactly():
    cp = cupy()
    sig = ("uint64[:], bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, "
           "float64, complex64, complex128")
    k = kernel("scalars", sig)
    out = cp.zeros(16, dtype=cp.uint64)
    values = [True, -7, -3000, -100000, -(1 << 50), 200, 60000, 4000000000, 1 << 63, -1.5, 0.1, 1e100,
              1.25 - 3.5j, complex(1e-300, 2e300)]
    k[1, 1](out, *values)
    got = out.get().tolist()

    def bits(v, t):
        return int(np.frombuffer(np.array(v, t).tobytes().ljust(8, b"\0"), np.uint64)[0])
    want = [1, *(v & (2 ** 64 - 1) for v in values[1:5]), 200, 60000, 4000000000, 1 << 63,
            bits(-1.5, np.float16), bits(0.1, np.float32), bits(1e100, np.float64), bits(1.25, np.float32),
            bits(-3.5, np.float32), bits(1e-300, np.float64), bits(2e300, np.float64)]
    assert got == want


def test_dynamic_shared_memory_beyond_48k_is_opted_in():
    cp = cupy()
    k = kernel("reverse_block", "float32[:], float32[:]")
    x = cp.arange(2048, dtype=cp.float32)
    out = cp.zeros(2048, dtype=cp.float32)
    k[2, 1024, None, 64 * 1024](x, out)
    cp.cuda.Device().synchronize()
    assert k.max_dynamic_shared_memory >= 64 * 1024
    want = np.arange(2048, dtype=np.float32).reshape(2, 1024)[:, ::-1].ravel()
    np.testing.assert_array_equal(out.get(), want)


# ---------------------------------------------------------------- CAI v3 stream ordering


def test_producer_stream_and_launch_stream_are_ordered_both_ways():
    """x is filled slowly on P; the add runs on L with arrays whose CAI stream is P. L must wait for
    the fill, and a copy enqueued on P afterwards must see the add's output. Only P is synchronized."""
    cp = cupy()
    fill = kernel("slow_fill", "float32[:], float32, int64")
    add = kernel("add_f32", ADD)
    P = cp.cuda.Stream(non_blocking=True)
    L = cp.cuda.Stream(non_blocking=True)
    with P:
        x = cp.zeros(256, dtype=cp.float32)
        zero = cp.zeros(256, dtype=cp.float32)
        out = cp.zeros(256, dtype=cp.float32)
        P.synchronize()
        fill[1, 256, P](x, 7.0, 200_000_000)
        add[1, 256, L](x, zero, out)  # CuPy names P in each CAI
        host = out.get(stream=P)
    np.testing.assert_array_equal(host, np.full(256, 7, np.float32))


# ---------------------------------------------------------------- errors before launch


@pytest.mark.parametrize("config, error, message", [
    ((0, 32), ValueError, "griddim 0: extent x is 0; every extent must be at least 1"),
    ((1, 2048), ValueError, "blockdim 2048: extent x is 2048, above the device's limit of 1024"),
    ((1, (64, 32)), ValueError, r"blockdim \(64, 32\): 2048 threads per block exceed the limit of 1024"),
    ((1, (1, 1, 65)), ValueError, r"extent z is 65, above the device's limit of 64"),
    ((1, 32, None, 1 << 30), ValueError, "sharedmem 1073741824: .* exceed the device's maximum of"),
    ((1, 32, None, -1), ValueError, "sharedmem -1"),
    ((1, 32, None, 2 ** 63 - 1), ValueError, "sharedmem 9223372036854775807"),
    ((2 ** 63 - 1, 32), ValueError, "griddim 9223372036854775807: extent x is 9223372036854775807, above"),
    ((2 ** 64, 32), ValueError, "griddim: 18446744073709551616 does not fit in 64 bits"),
    ((1, (1, 1, 1, 1)), ValueError, r"blockdim: \(1, 1, 1, 1\) has 4 extents"),
    ((1, "x"), TypeError, r"blockdim: 'x' \(str\) is not an int or a tuple of 1 to 3 ints"),
    ((1,), TypeError, r"kernel\[...\]: expected \[griddim, blockdim\]"),
    ((1, 32, "s"), TypeError, "stream: 's' is not a stream"),
])
def test_bad_configurations_fail_before_launch(config, error, message):
    k = kernel("add_f32", ADD)
    with pytest.raises(error, match=message):
        k[config]


def test_bad_arguments_fail_before_launch():
    cp = cupy()
    k = kernel("add_f32", ADD)
    a = cp.zeros(8, cp.float32)
    with pytest.raises(TypeError, match=r"add_f32\(\) takes 3 positional arguments but 2 were given \(kernel "
                                        r"signature void\(const float32\[:\]"):
        k[1, 8](a, a)
    with pytest.raises(TypeError, match=r"argument 2: a float64 array \(typestr '<f8'\)"):
        k[1, 8](a, a, cp.zeros(8, cp.float64))
    with pytest.raises(TypeError, match="needs a launch configuration"):
        k(a, a, a)
    ro = {**a.__cuda_array_interface__, "data": (a.data.ptr, True)}
    holder = type("ReadOnly", (), {"__cuda_array_interface__": ro})()
    with pytest.raises(ValueError, match="argument 2: the array is read-only but the kernel may write it"):
        k[1, 8](a, a, holder)
    k[1, 8](holder, holder, a)  # read-only inputs are fine for const parameters
    with pytest.raises(ValueError, match="forall: -1 tasks"):
        k.forall(-1)
    with pytest.raises(ValueError, match=r"griddim \d+: extent x is \d+, above the device.s limit"):
        k.forall(2 ** 63 - 1)
    k.forall(0)(a, a, a)  # nothing to do


def test_a_launch_object_reports_its_configuration_and_takes_positional_arguments_only():
    k = kernel("add_f32", ADD)
    a = cubridge.device_array(8, "f4")
    launch = k[2, (4, 2), 0, 128]
    assert isinstance(launch, cubridge.KernelLaunch)
    assert (launch.griddim, launch.blockdim, launch.sharedmem) == ((2, 1, 1), (4, 2, 1), 128)
    assert k.forall(0, sharedmem=64).sharedmem == 64
    with pytest.raises(TypeError, match="kernel 'add_f32' takes its arguments by position only, got keyword 'b'"):
        k[1, 8](a, a, b=a)
    with pytest.raises(TypeError, match=r"add_f32\(\) takes 3 positional arguments but 1 was given"):
        k.forall(0)(a)
    with pytest.raises(TypeError):
        cubridge.KernelLaunch()


def test_arrays_on_another_device_are_refused():
    cp = cupy()
    if cubridge.device_count() < 2:
        pytest.skip("needs two GPUs")
    k = cubridge.load_kernel(PTX, "add_f32", ADD, device=0)
    with cp.cuda.Device(1):
        other = cp.zeros(8, cp.float32)
    a = cp.zeros(8, cp.float32)
    with pytest.raises(ValueError, match="argument 2: the array is on device 1 but kernel 'add_f32' was loaded on device 0"):
        k[1, 8](a, a, other)


# ---------------------------------------------------------------- numba-cuda's PTX through cubridge


def test_numba_compile_ptx_kernel_runs_through_cubridge_on_cupy_arrays():
    cp = cupy()
    from numba import cuda

    def axpy(out, a, x, y):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    sig = "void(float32[::1], float32, float32[::1], float32[::1])"
    ptx, _ = cuda.compile_ptx(axpy, sig, cc=(7, 5))
    (name,) = cubridge.ptx_entry_names(ptx)
    k = cubridge.load_kernel(ptx, name, sig)
    x = cp.arange(1000, dtype=cp.float32)
    y = cp.ones(1000, dtype=cp.float32)
    out = cp.zeros(1000, dtype=cp.float32)
    s = cp.cuda.Stream(non_blocking=True)
    k[8, 128, s](out, 3.0, x, y)
    s.synchronize()
    np.testing.assert_array_equal(out.get(), 3 * np.arange(1000, dtype=np.float32) + 1)


def test_numba_compile_ptx_2d_strided_kernel():
    cp = cupy()
    from numba import cuda

    def double(x):
        i, j = cuda.grid(2)
        if i < x.shape[0] and j < x.shape[1]:
            x[i, j] = 2 * x[i, j]

    ptx, _ = cuda.compile_ptx(double, "void(float64[:, :])", cc=(7, 5))
    k = cubridge.load_kernel(ptx, None, "float64[:, :]")
    x = cp.asfortranarray(cp.arange(30, dtype=cp.float64).reshape(5, 6))
    k[(1, 1), (8, 8)](x[:, 1:5])
    cp.cuda.Device().synchronize()
    want = np.arange(30, dtype=np.float64).reshape(5, 6)
    want[:, 1:5] *= 2
    np.testing.assert_array_equal(x.get(), want)


# ---------------------------------------------------------------- close()


CLOSE_SCRIPT = """
import sys, warnings, numpy as np, cubridge
ptx = open(sys.argv[1]).read()
sig = "const float32[:], const float32[:], float32[:]"
k = cubridge.load_kernel(ptx, "add_f32", sig)
module = k.module
cubridge.close()
assert not module.valid
try:
    k[1, 4]
except cubridge.CudaError as e:
    print("ERROR", e)
k2 = cubridge.load_kernel(ptx, "add_f32", sig)
a = np.arange(4, dtype=np.float32)
out = np.zeros(4, np.float32)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", cubridge.PerformanceWarning)
    k2[1, 4](a, a, out)
print("VALID", k2.module.valid, out.tolist())
"""


def test_modules_are_invalid_after_close_and_say_so():
    """In a child process: close() resets the primary context under every library in the process."""
    path = pathlib.Path(__file__).resolve().parents[2] / "cpp" / "kernel" / "numba_abi_kernels.ptx"
    out = subprocess.run([sys.executable, "-c", CLOSE_SCRIPT, str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "ERROR" in out.stdout and "cubridge.close() destroyed" in out.stdout, out.stdout
    assert "VALID True [0.0, 2.0, 4.0, 6.0]" in out.stdout, out.stdout


# ---------------------------------------------------------------- @cubridge.jit


def jit_scalar_kernel(n, x):
    y = n + x  # noqa: F841


def test_jit_kernels_compile_load_and_launch():
    """Our front end takes kernels with number arguments today; the launch path is the one arrays use."""
    lazy = cubridge.jit(jit_scalar_kernel)
    lazy[1, 32](3, 2.0)
    lazy[1, 32](np.int32(3), np.float32(2))
    assert sorted(lazy.signatures) == ["void(int32, float32)", "void(int64, float64)"]
    eager = cubridge.jit("void(int64, float32)")(jit_scalar_kernel)
    eager[1, 32](3, 2.0)
    eager.forall(100)(3, 2.0)
    with pytest.raises(ValueError, match="blockdim 2048"):  # checked against the kernel the call selects
        eager[1, 2048](3, 2.0)
    cubridge.Context.synchronize(cubridge.current_context())


# ---------------------------------------------------------------- C pointer parameters (CUDA C++ kernels)

TRANSFORM = "void(const float32*, const float32*, float32*, uint64)"


def link_example():
    import importlib.util
    path = pathlib.Path(__file__).resolve().parents[3] / "examples" / "link" / "link_example.py"
    spec = importlib.util.spec_from_file_location("link_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def transform_kernel():
    """examples/link's transform(const float* a, const float* b, float* out, unsigned long long n), with
    f(x, y) = x * y + 1 in CUDA C++ (its REFERENCE_SOURCE), compiled by NVRTC to a cubin."""
    cc = cubridge.Device(0).compute_capability
    cubin = cubridge.nvrtc_compile(link_example().REFERENCE_SOURCE, "transform.cu", cc, output="cubin").code
    return cubridge.load_kernel(cubin, "transform", TRANSFORM)


def test_nvrtc_pointer_kernel_on_cupy_arrays_on_a_non_default_stream():
    cp = cupy()
    k = transform_kernel()
    assert str(k.signature) == TRANSFORM
    n = 100_003
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        a = cp.arange(n, dtype=cp.float32) * 0.5
        b = cp.full(n, 3.0, dtype=cp.float32)
        out = cp.zeros(n, dtype=cp.float32)
        k[(n + 255) // 256, 256](a, b, out, n)  # CuPy names `s` in its CAI: the launch goes there
        s.synchronize()
    want = np.arange(n, dtype=np.float32) * np.float32(0.5) * np.float32(3) + np.float32(1)
    np.testing.assert_array_equal(out.get(), want, err_msg="transform(a, b, out, n) != a * b + 1")


def test_nvrtc_pointer_kernel_on_2d_c_and_f_arrays_and_raw_addresses():
    cp = cupy()
    k = transform_kernel()
    a = cp.asfortranarray(cp.arange(12, dtype=cp.float32).reshape(3, 4))
    b = cp.full((3, 4), 2.0, dtype=cp.float32, order="F")
    out = cp.zeros((3, 4), dtype=cp.float32, order="F")
    k[1, 32](a, b, out, out.size)  # F-contiguous: the kernel indexes the memory flat
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(out.get(), a.get() * 2 + 1, err_msg="F-ordered arrays")
    out2 = cp.zeros(12, dtype=cp.float32)
    k[1, 32](a.ravel(order="K"), int(b.data.ptr), out2, 12)  # a raw device address for b
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(out2.get(), a.get().ravel(order="F") * 2 + 1, err_msg="raw address")


def test_a_signature_the_kernel_lays_out_otherwise_is_refused_at_load():
    """The driver's own layout of the kernel's parameters (cuFuncGetParamInfo) against the signature's: a launch
    would hand the kernel wrong bytes (a 4-byte count where it reads 8, numba's 7-word array where it reads a
    pointer), so the load says where they part, instead of a launch reading garbage."""
    cc = cubridge.Device(0).compute_capability
    cubin = cubridge.nvrtc_compile(link_example().REFERENCE_SOURCE, "transform.cu", cc, output="cubin").code
    with pytest.raises(ValueError, match=r"kernel 'transform' takes 4 parameters, 32 bytes, but its signature "
                                         r"void\(const float32\*, const float32\*, float32\*, uint32\) passes 4 "
                                         r"parameters, 28 bytes; they part at PTX parameter 3: the signature's argument 3 "
                                         r"\(uint32\) is 4 bytes at offset 24, the kernel's parameter 3 is 8 bytes at "
                                         r"offset 24"):
        cubridge.load_kernel(cubin, "transform", "void(const float32*, const float32*, float32*, uint32)")
    with pytest.raises(ValueError, match=r"passes 22 parameters, 176 bytes; they part at PTX parameter 4: the "
                                         r"signature's argument 0 \(const float32\[:\], its part 4\) is 8 bytes at "
                                         r"offset 32, past the kernel's last parameter"):
        cubridge.load_kernel(cubin, "transform", "void(const float32[:], const float32[:], float32[:], uint64)")
    k = cubridge.load_kernel(cubin, "transform", TRANSFORM)  # as declared: loads, and launches as before
    cp = cupy()
    a = cp.full(8, 2.0, dtype=cp.float32)
    out = cp.zeros(8, dtype=cp.float32)
    k[1, 32](a, a, out, 8)
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(out.get(), np.full(8, 5.0, np.float32))


def test_a_c_kernel_taking_a_complex_struct_reads_the_complex_whole():
    """A C kernel's float2 / double2 parameter (what cuFloatComplex / cuDoubleComplex are) is one parameter of the
    complex's size; numba's ABI passes a complex as two. The packed buffer hands the same bytes to both, so the
    signature's complex64 / complex128 fills such a parameter where it lies at the same offset; a double2 after an
    int (16-byte aligned, at 16) is refused, naming both offsets."""
    cp = cupy()
    cc = cubridge.Device(0).compute_capability
    src = r"""
extern "C" __global__ void f(float2 z, int n, float* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) { out[0] = z.x; out[1] = z.y; out[2] = (float)n; }
}
extern "C" __global__ void d(double2 z, double* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) { out[0] = z.x; out[1] = z.y; }
}
extern "C" __global__ void g(int n, double2 z, double* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) { out[0] = z.x; out[1] = z.y + n; }
}
"""
    cubin = cubridge.nvrtc_compile(src, "complex_params.cu", cc, output="cubin").code
    out = cp.zeros(3, dtype=cp.float32)
    cubridge.load_kernel(cubin, "f", "void(complex64, int32, float32*)")[1, 32](np.complex64(1.5 - 2j), 7, out)
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(out.get(), np.array([1.5, -2.0, 7.0], np.float32))
    out2 = cp.zeros(2, dtype=cp.float64)
    cubridge.load_kernel(cubin, "d", "void(complex128, float64*)")[1, 32](complex(0.25, 4.5), out2)
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(out2.get(), np.array([0.25, 4.5]))
    with pytest.raises(ValueError, match=r"the signature's argument 1 \(complex128, its part 0\) is 8 bytes at offset "
                                         r"8, the kernel's parameter 1 is 16 bytes at offset 16"):
        cubridge.load_kernel(cubin, "g", "void(int32, complex128, float64*)")


def test_nvrtc_pointer_kernel_refuses_strided_and_mistyped_arrays_before_launch():
    cp = cupy()
    k = transform_kernel()
    a = cp.zeros((8, 8), dtype=cp.float32)
    with pytest.raises(TypeError, match=r"argument 0: an array that is neither C- nor F-contiguous \(strides \(32, 8\)"):
        k[1, 32](a[:, ::2], a[:, :4].copy(), cp.zeros((8, 4), cp.float32), 32)
    with pytest.raises(TypeError, match=r"argument 2: a float64 array \(typestr '<f8'\) was passed where the "
                                        r"signature says float32\*"):
        k[1, 32](a, a, cp.zeros(64, cp.float64), 64)
