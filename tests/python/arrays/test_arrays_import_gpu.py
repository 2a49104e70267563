"""GPU tests of the one import: CuPy's attribute path against its `__cuda_array_interface__` on real CuPy
arrays (pointer, shape, strides, dtype, read-only flag, device, and the stream rule under CuPy's current
stream and both export versions), and the route a real CuPy array takes. Skipped without CuPy.
"""
import importlib

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
