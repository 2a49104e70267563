"""Launches on a stream being captured into a CUDA graph (issue 22 item 3). The rules:

1. A launch on the capturing stream is recorded, not run: replaying the graph gives what the same launches
   give eagerly, for a lazy @cubridge.jit (its first call, compile and module load included, may come
   inside the capture), an eager signature, a load_kernel kernel and a cubridge.torch op; under
   torch.cuda.graph, CuPy's stream.begin_capture and cuda.core's graph builder.
2. Loading a module and looking a kernel up inside a capture run at once in relaxed capture mode: they are
   no work to record, and a global capture would refuse them and invalidate itself.
3. What cannot be recorded is refused by name before anything is issued, and the capture stays valid:
   a host (NumPy) argument, whose staging copies there and back and waits for the stream; a debug=True
   kernel, which waits for its exception flag after each launch; an array whose producer stream is not
   capturing (ordering with it would join that stream to the capture).
4. A launch on the legacy default stream while another stream captures names the stream to use.

Rules 2-4 also run against the host driver stand-in (bench/host_driver), which models the driver's capture
rules; the graph replays need NVIDIA's driver (real_driver)."""
import ctypes
import os

import numpy as np
import pytest

import cubridge
from conftest import HOST_STAND_IN

pytestmark = pytest.mark.gpu

N = 256


def axpy(a, x, y):  # y = a * x + y
    i = cubridge.grid(1)
    if i < y.size:
        y[i] = a * x[i] + y[i]


def square(x):
    i = cubridge.grid(1)
    if i < x.size:
        x[i] = x[i] * x[i]


def checked_square(x):  # a raise site: compiled with debug=True, the launch waits for its exception flag
    i = cubridge.grid(1)
    if i < x.size:
        if x[i] > 1e30:
            raise ValueError("too large to square")
        x[i] = x[i] * x[i]


AXPY_SIG = "void(float32, float32[::1], float32[::1])"
AXPY_PTX = cubridge.compile_ptx(axpy, AXPY_SIG)[0]


def chain(launch_axpy, launch_square, x, y, n: int = 3):
    """The captured chain: n rounds of y = 2x + y then y = y*y (order matters: a lost or reordered launch
    changes the values)."""
    for _ in range(n):
        launch_axpy(x, y)
        launch_square(y)


def expected(x0: np.ndarray, y0: np.ndarray, n: int = 3, replays: int = 1) -> np.ndarray:
    y = y0.astype(np.float32).copy()
    for _ in range(replays * n):
        y = (np.float32(2) * x0 + y).astype(np.float32)
        y = (y * y).astype(np.float32)
    return y


def inputs():
    rng = np.random.default_rng(7)
    return rng.uniform(-0.5, 0.5, N).astype(np.float32), rng.uniform(-0.5, 0.5, N).astype(np.float32)


# --- the capture rules, against the stand-in (and the real driver where noted) --------------------------------

stand_in_only = pytest.mark.skipif(not HOST_STAND_IN, reason="marks a stream as capturing through the host "
                                   "driver stand-in (bench/host_driver); on NVIDIA's driver the graph tests below "
                                   "capture for real")


class StandInCapture:
    """A cubridge stream the stand-in reports as capturing while the context is open."""

    def __init__(self):
        self.lib = ctypes.CDLL(os.environ["CUBRIDGE_LIBCUDA"])
        self.lib.host_libcuda_set_capturing.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.stream = cubridge.stream()

    def __enter__(self):
        assert self.lib.host_libcuda_set_capturing(self.stream.__cuda_stream__()[1], 1) == 0
        return self.stream

    def __exit__(self, *exc):
        self.lib.host_libcuda_set_capturing(self.stream.__cuda_stream__()[1], 0)


@stand_in_only
def test_a_lazy_kernels_first_launch_loads_its_module_inside_a_capture():
    def fresh(x):  # a kernel no earlier test compiled: its module loads inside the capture
        i = cubridge.grid(1)
        if i < x.size:
            x[i] = x[i] + 3

    k = cubridge.jit(fresh)
    x = cubridge.device_array(N, np.float32)
    with StandInCapture() as s:
        with pytest.raises(cubridge.CudaError, match="STREAM_CAPTURE_UNSUPPORTED|cuMemAlloc"):
            cubridge.device_array(N, np.float32)  # the stand-in enforces the capture's rules
        k[1, N, s](x)
        k[1, N, s](x)
    assert len(k.signatures) == 1


@stand_in_only
def test_a_loaded_kernel_and_an_eager_signature_load_inside_a_capture():
    x, y = cubridge.device_array(N, np.float32), cubridge.device_array(N, np.float32)
    with StandInCapture() as s:
        loaded = cubridge.load_kernel(AXPY_PTX, signature=AXPY_SIG)
        loaded[1, N, s](np.float32(2), x, y)
        eager = cubridge.jit("void(float32, float32[::1], float32[::1])")(axpy)
        eager[1, N, s](np.float32(2), x, y)


@stand_in_only
def test_a_host_array_is_refused_by_name_while_the_stream_captures():
    k = cubridge.jit(square)
    host = np.ones(N, np.float32)
    with StandInCapture() as s:
        with pytest.raises(ValueError, match=r"argument 0: a host array \(NumPy\) is copied to the device before the "
                                             r"launch and back after it.*being captured into a CUDA graph"):
            k[1, N, s](host)
    with pytest.warns(cubridge.NumbaPerformanceWarning if hasattr(cubridge, "NumbaPerformanceWarning") else Warning):
        k[1, N, s](host)  # outside the capture the same call stages the array (the stand-in runs no kernel)


@stand_in_only
def test_a_producer_stream_outside_the_capture_is_refused_by_name():
    k = cubridge.jit(square)
    other = cubridge.stream()
    x = cubridge.device_array(N, np.float32)
    described = {**x.__cuda_array_interface__, "stream": other.__cuda_stream__()[1]}
    holder = type("Produced", (), {"__cuda_array_interface__": described, "keep": x})()
    with StandInCapture() as s:
        with pytest.raises(ValueError, match=r"argument 0: the array names producer stream 0x[0-9a-f]+ .*which is not "
                                             r"capturing; the launch cannot be ordered with it while stream "
                                             r"0x[0-9a-f]+ is being captured"):
            k[1, N, s](holder)
    k[1, N, s](holder)  # outside a capture the launch is ordered after the producer as before


@stand_in_only
def test_a_launch_on_the_legacy_stream_during_a_capture_names_the_stream_to_use():
    k = cubridge.jit(square)
    x = cubridge.device_array(N, np.float32)
    k[1, N](x)  # compiled and loaded before
    with StandInCapture():
        with pytest.raises(cubridge.CudaError, match=r"kernel '\w*square\w*' was launched on the legacy default stream "
                                                     r"while another stream is being captured.*Launch on the "
                                                     r"capturing stream"):
            k[1, N](x)


@stand_in_only
def test_a_plain_launch_asks_nothing_about_capture():
    """The capture questions are asked only where the launch has work that cannot be recorded: a launch of
    device arrays on the capturing stream runs as it does outside one."""
    k = cubridge.jit(square)
    x = cubridge.device_array(N, np.float32)
    with StandInCapture() as s:
        for _ in range(3):
            k[1, N, s](x)
            k[(1,), (N,), s, 0](x)


# --- real captures and replays -------------------------------------------------------------------------------

real = pytest.mark.real_driver


def _lazy_pair():
    a, s = cubridge.jit(axpy), cubridge.jit(square)
    return a, s


@real
def test_torch_graph_of_lazy_eager_and_loaded_kernels_replays_as_eager():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    x0, y0 = inputs()
    lazy_axpy, lazy_square = _lazy_pair()  # first call inside the capture: compile and load there
    eager_square = cubridge.jit("void(float32[::1])")(square)
    loaded_axpy = cubridge.load_kernel(AXPY_PTX, signature=AXPY_SIG)
    for launch_axpy, launch_square in [
        (lambda x, y: lazy_axpy[1, N, torch.cuda.current_stream()](np.float32(2), x, y),
         lambda y: lazy_square[1, N, torch.cuda.current_stream()](y)),
        (lambda x, y: loaded_axpy[1, N, torch.cuda.current_stream()](np.float32(2), x, y),
         lambda y: eager_square[1, N, torch.cuda.current_stream()](y)),
    ]:
        x = torch.from_numpy(x0).cuda()
        y = torch.from_numpy(y0).cuda()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            chain(launch_axpy, launch_square, x, y)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(y.cpu().numpy(), y0)  # captured, not run
        g.replay()
        torch.cuda.synchronize()
        np.testing.assert_allclose(y.cpu().numpy(), expected(x0, y0), rtol=1e-5, atol=1e-6)
        g.replay()
        torch.cuda.synchronize()
        np.testing.assert_allclose(y.cpu().numpy(), expected(x0, y0, replays=2), rtol=1e-4, atol=1e-6)


@real
def test_torch_graph_of_a_cubridge_op_replays_as_eager():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    import cubridge.torch as ct

    k = cubridge.jit("void(float32, const float32[::1], float32[::1])")(axpy)
    op = ct.custom_op(k, mutates_args=("y",), ntasks=lambda a, x, y: y.numel(), name="cubridge_capture_test::axpy")
    x0, y0 = inputs()
    x, y = torch.from_numpy(x0).cuda(), torch.from_numpy(y0).cuda()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(3):
            op(2.0, x, y)
    g.replay()
    torch.cuda.synchronize()
    np.testing.assert_allclose(y.cpu().numpy(), (y0 + 6 * x0), rtol=1e-5, atol=1e-6)


@real
def test_torch_graph_refuses_a_host_array_and_stays_valid():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    k = cubridge.jit(square)
    x = torch.full((N,), 3.0, device="cuda")
    k[1, N, torch.cuda.current_stream()](x)  # loaded before
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        with pytest.raises(ValueError, match=r"argument 0: a host array \(NumPy\)"):
            k[1, N, torch.cuda.current_stream()](np.ones(N, np.float32))
        k[1, N, torch.cuda.current_stream()](x)  # the capture is still valid
    g.replay()
    torch.cuda.synchronize()
    assert torch.all(x == 81.0)


@real
def test_torch_graph_refuses_a_debug_kernel_and_stays_valid():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    debug = cubridge.jit(debug=True, opt=False)(checked_square)
    plain = cubridge.jit(square)
    x = torch.full((N,), 2.0, device="cuda")
    debug[1, N, torch.cuda.current_stream()](x)  # loaded before; x = 4
    plain[1, N, torch.cuda.current_stream()](x)  # x = 16
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        with pytest.raises(ValueError, match=r"kernel '\w*checked_square\w*' was compiled with debug=True.*being captured"):
            debug[1, N, torch.cuda.current_stream()](x)
        plain[1, N, torch.cuda.current_stream()](x)
    g.replay()
    torch.cuda.synchronize()
    assert torch.all(x == 256.0)


@real
def test_cupy_stream_capture_replays_as_eager():
    cp = pytest.importorskip("cupy")
    x0, y0 = inputs()
    lazy_axpy, lazy_square = _lazy_pair()
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x, y = cp.asarray(x0), cp.asarray(y0)
        s.synchronize()
        s.begin_capture()
        chain(lambda x, y: lazy_axpy[1, N, s](np.float32(2), x, y), lambda y: lazy_square[1, N, s](y), x, y)
        graph = s.end_capture()
        np.testing.assert_array_equal(cp.asnumpy(y), y0)
        graph.launch(s)
        s.synchronize()
    np.testing.assert_allclose(cp.asnumpy(y), expected(x0, y0), rtol=1e-5, atol=1e-6)


@real
def test_cuda_core_graph_builder_replays_as_eager():
    core = pytest.importorskip("cuda.core")
    x0, y0 = inputs()
    lazy_axpy, lazy_square = _lazy_pair()
    dev = core.Device()
    dev.set_current()
    # cubridge arrays name no producer stream; a CuPy array made on CuPy's default stream would name the
    # legacy stream, which no capture on the builder's stream can be ordered with (refused by name above)
    x, y = cubridge.to_device(x0), cubridge.to_device(y0)
    cubridge.current_context().synchronize()
    gb = dev.create_graph_builder()
    gb.begin_building()
    chain(lambda x, y: lazy_axpy[1, N, gb.stream](np.float32(2), x, y), lambda y: lazy_square[1, N, gb.stream](y),
          x, y)
    graph = gb.end_building().complete()
    stream = dev.create_stream()
    np.testing.assert_array_equal(y.copy_to_host(), y0)  # captured, not run
    graph.launch(stream)
    stream.sync()
    np.testing.assert_allclose(y.copy_to_host(), expected(x0, y0), rtol=1e-5, atol=1e-6)
