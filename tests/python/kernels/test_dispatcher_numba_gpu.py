"""The dispatcher behaviours numba users script against, on the GPU, compared with numba-cuda where it imports
(and has a device): the declared signature a launch chooses (values), launch-argument extensions with numba's
cuda.In, max_cooperative_grid_blocks of an overload, and numba's warning classes in drop-in use."""
import warnings

import numpy as np
import pytest

import cubridge

pytestmark = pytest.mark.gpu


def add_kernel(r, x, y):
    r[0] = x + y


def set_to_three(arr):
    arr[0] = 3


def numba_cuda():
    """numba.cuda with a usable device, or None (the comparison is then skipped, cubridge's values still checked)."""
    try:
        from numba import cuda
        return cuda if cuda.is_available() else None
    except ImportError:
        return None


SAME_CLASS = ["(float64[::1], float32, float32)", "(float64[::1], float64, float64)"]


@pytest.mark.parametrize("x, y, expected", [(np.float32(1), np.float32(2 ** -25), 1.0),
                                            (1, 2 ** -25, 1.0000000298023224)])
def test_the_declared_signature_chosen_gives_numbas_value(x, y, expected):
    r = np.zeros(1, np.float64)
    cubridge.jit(SAME_CLASS)(add_kernel)[1, 1](r, x, y)
    assert r[0] == expected  # float32 + float32 rounds; int64 + float64 does not (the float64 signature)
    cuda = numba_cuda()
    if cuda is not None:
        theirs = np.zeros(1, np.float64)
        cuda.jit(SAME_CLASS)(add_kernel)[1, 1](theirs, x, y)
        assert theirs[0] == r[0]


def test_exact_signatures_launch_and_others_are_refused():
    f = cubridge.jit(["(int64[::1], int64, int64)", "(float64[::1], float64, float64)"])(add_kernel)
    r = np.zeros(1, np.int64)
    f[1, 1](r, 1, 2)
    assert r[0] == 3
    r = np.zeros(1, np.float64)
    f[1, 1](r, 1.5, 2.5)
    assert r[0] == 4.0
    with pytest.raises(TypeError, match="No matching definition"):
        f[1, 1](np.zeros(1, np.complex128), 1j, 1j)
    assert len(f.overloads) == 2


class DefaultIn:
    """numba-cuda's test_retrieve_autoconverted_arrays extension: host arrays go in only (no copy back)."""

    def prepare_args(self, ty, val, **kwargs):
        from numba.cuda.args import wrap_arg
        from numba import cuda
        return ty, wrap_arg(val, default=cuda.In)


def test_an_extension_giving_numbas_cuda_in_leaves_the_host_array_unwritten():
    pytest.importorskip("numba.cuda.args")
    k = cubridge.jit(set_to_three)
    host = np.zeros(1, np.int64)
    k[1, 1](host)
    assert host[0] == 3  # cubridge copies a host array back by default
    k.extensions.append(DefaultIn())
    host = np.zeros(1, np.int64)
    k[1, 1](host)
    assert host[0] == 0
    cuda = numba_cuda()
    if cuda is not None:
        theirs = cuda.jit(set_to_three)
        theirs.extensions.append(DefaultIn())
        other = np.zeros(1, np.int64)
        theirs[1, 1](other)
        assert other[0] == host[0]


def grid_sum(x):
    g = cubridge.cg.this_grid()
    g.sync()
    x[0] = 1


def test_max_cooperative_grid_blocks_of_an_overload_is_the_loaded_kernels():
    sig = "void(int32[::1])"
    d = cubridge.jit(sig)(grid_sum)
    overload = d.overloads[sig]
    blocks = overload.max_cooperative_grid_blocks(256)
    assert blocks > 0 and blocks == overload.max_cooperative_grid_blocks((16, 16)) == \
        overload.max_cooperative_grid_blocks((16, 4, 4))
    assert blocks == d.specialize().max_cooperative_grid_blocks(256)  # made with a signature: no arguments


def test_in_a_numba_cuda_program_warnings_are_numbas_classes(monkeypatch):
    errors = pytest.importorskip("numba.cuda.core.errors")
    config = pytest.importorskip("numba.cuda.core.config")
    monkeypatch.setattr(cubridge._numba_diagnostics, "_numba_program", True)  # what install_numba() marks
    k = cubridge.jit(set_to_three)
    saved = config.CUDA_LOW_OCCUPANCY_WARNINGS
    config.CUDA_LOW_OCCUPANCY_WARNINGS = 1
    try:
        with pytest.warns(errors.NumbaPerformanceWarning, match="Grid size 1 .+ low occupancy"):
            launch = k[1, 1]
    finally:
        config.CUDA_LOW_OCCUPANCY_WARNINGS = saved
    with pytest.warns(errors.NumbaPerformanceWarning, match="Host array used in CUDA kernel will incur.+copy overhead"):
        launch(np.zeros(1, np.int64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k[256, 1](cubridge.to_device(np.zeros(1, np.int64)))  # a large grid, a device array: quiet


def add_one(x):
    i = cubridge.grid(1)
    if i < x.size:
        x[i] = i + 1


@pytest.mark.parametrize("carveout", ["MaxL1", "MaxShared", "default", 0, 50, 100, -1])
def test_a_kernel_with_a_shared_memory_carveout_runs(carveout):
    for sigs in ((), ("void(int32[:])",)):
        x = cubridge.to_device(np.zeros(10, np.int32))
        cubridge.jit(*sigs, shared_memory_carveout=carveout)(add_one)[1, 10](x)
        np.testing.assert_array_equal(x.copy_to_host(), np.arange(1, 11))


def test_the_carveout_is_range_checked_by_the_kernel_too():
    k = cubridge.jit("void(int32[:])")(add_one).specialize()  # made with a signature: its loaded kernel
    k.set_shared_memory_carveout(25)
    with pytest.raises(ValueError, match=r"shared memory carveout 101 for kernel '.*': accepted 0 to 100"):
        k.set_shared_memory_carveout(101)


def no_work():
    pass


@pytest.mark.parametrize("bounds", [128, (128,), (128, 2)])
def test_a_block_over_the_launch_bounds_is_refused_naming_the_driver_error(bounds, monkeypatch):
    f = cubridge.jit(launch_bounds=bounds)(no_work)
    f[1, 128]()
    with pytest.raises(cubridge.LaunchConfigError,
                       match="256 threads per block exceed the limit of 128 .*; the driver refuses such a launch "
                             "with CUDA_ERROR_INVALID_VALUE"):
        f[1, 256]()
    cuda = numba_cuda()
    if cuda is None:
        return
    cuda_utils = pytest.importorskip("cuda.core._utils.cuda_utils")
    theirs = cuda.jit(launch_bounds=bounds)(no_work)
    theirs[1, 128]()
    with pytest.raises(cuda_utils.CUDAError, match="CUDA_ERROR_INVALID_VALUE"):
        theirs[1, 256]()
    from cubridge import _numba_diagnostics
    monkeypatch.setattr(_numba_diagnostics, "_numba_program", True)  # drop-in use (install_numba() sets it)
    ours = cubridge.jit(launch_bounds=bounds)(no_work)  # a numba-cuda program's kernel
    ours[1, 128]()
    with pytest.raises(cuda_utils.CUDAError, match="CUDA_ERROR_INVALID_VALUE") as refused:
        ours[1, 256]()
    assert isinstance(refused.value, cubridge.LaunchConfigError)


def set_record_to_three(rec):
    rec[0]["b"] = 3


RECORD = np.dtype([("b", np.int32)], align=True)


@pytest.mark.parametrize("hint, expected", [("In", 0), ("InOut", 3)])
def test_a_record_array_wrapped_by_an_extension_moves_as_numba_cudas(hint, expected):
    cuda = numba_cuda()
    if cuda is None:
        pytest.skip("numba-cuda with a device is needed for its argument hints")
    from numba.cuda.args import wrap_arg

    class Default:
        def prepare_args(self, ty, val, **kwargs):
            return ty, wrap_arg(val, default=getattr(cuda, hint))

    ours, theirs = np.zeros(1, RECORD), np.zeros(1, RECORD)
    cubridge.jit(extensions=[Default()])(set_record_to_three)[1, 1](ours)
    cuda.jit(extensions=[Default()])(set_record_to_three)[1, 1](theirs)
    assert ours[0]["b"] == theirs[0]["b"] == expected
