"""GPU arrays bound outside a kernel (module globals and closure variables with __cuda_array_interface__),
without a GPU, as numba-cuda captures them (np/arrayobj.py's constant lowering of device arrays). The rules:

1. the array is typed as a kernel argument of it would be (dtype, rank, layout from the strides, read-only
   only where the interface says so) and is mutable otherwise: kernels and device functions read and write it;
2. its device pointer, shape and strides are embedded in the code as constants (strides None: C order);
3. the compiled kernel keeps the captured array alive (CompiledKernel.referenced_objects);
4. the on-disk code cache tells captures of different addresses apart;
5. an array of records is refused by name (a 0-d device array is captured: test_zero_d_captures.py).
Values on the GPU, against numba-cuda where it is installed: test_jit_device_array_capture_gpu.py."""
import pytest

import cubridge


class FakeDeviceArray:
    """An object with a CUDA Array Interface whose pointer is never dereferenced (the code is only compiled)."""

    def __init__(self, address, shape, typestr, strides=None, readonly=False):
        self.__cuda_array_interface__ = {"data": (address, readonly), "shape": shape, "typestr": typestr,
                                         "strides": strides, "version": 3}


VECTOR = FakeDeviceArray(0x7F0000001000, (5,), "<f4")
COLUMNS = FakeDeviceArray(0x7F0000002000, (3, 2), "<f8", strides=(8, 24))  # Fortran order
READ_ONLY = FakeDeviceArray(0x7F0000003000, (4,), "<i4", readonly=True)
SCALAR = FakeDeviceArray(0x7F0000004000, (), "<f4")
RECORDS = FakeDeviceArray(0x7F0000005000, (4,), "|V8")
RECORDS.__cuda_array_interface__["descr"] = [("a", "<i4"), ("b", "<f4")]


@cubridge.jit(device=True)
def read_vector(i):
    return VECTOR[i]


def kernel_through_helper(out):
    i = cubridge.grid(1)
    if i < out.size:
        out[i] = read_vector(i) * 2.0


def writes_columns(out):
    COLUMNS[1, 1] = out[0]
    out[1] = COLUMNS.shape[0] + COLUMNS.strides[1]


def writes_read_only(out):
    READ_ONLY[0] = 1


def reads_scalar(out):
    out[0] = SCALAR[()]


def reads_records(out):
    out[0] = RECORDS[0].a


def _ir(fn, sig):
    return cubridge.compile(fn, sig, output="llvm", abi="numba", device=False)[0]


def test_the_address_is_embedded_and_a_helper_reads_it():
    ptx, _ = cubridge.compile_ptx(kernel_through_helper, "void(float32[::1])")
    assert str(0x7F0000001000) in ptx


def test_a_fortran_array_is_written_through_its_strides():
    ir = _ir(writes_columns, "void(float64[::1])")
    assert f"inttoptr i64 {0x7F0000002000} to double*" in ir
    ptx, _ = cubridge.compile_ptx(writes_columns, "void(float64[::1])")
    assert str(0x7F0000002000 + 8 + 24) in ptx  # element [1, 1]: one step of 8 bytes and one of 24


def test_a_read_only_interface_is_a_read_only_array():
    with pytest.raises(cubridge.CompileError, match="READ_ONLY"):
        cubridge.compile_ptx(writes_read_only, "void(int32[::1])")


def test_0d_arrays_are_captured_and_record_arrays_refused_by_name():
    assert str(0x7F0000004000) in cubridge.compile_ptx(reads_scalar, "void(float32[::1])")[0]
    with pytest.raises(cubridge.CompileError, match=r"'RECORDS' is a GPU array of Record.*captured device arrays "
                                                    r"hold numbers"):
        cubridge.compile_ptx(reads_records, "void(int32[::1])")


def test_the_kernel_keeps_the_captured_array_alive():
    kernel = cubridge.jit(kernel_through_helper)
    compiled = kernel.compile("void(float32[::1])")
    assert any(o is VECTOR for o in compiled.referenced_objects)


def test_the_code_cache_tells_addresses_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("CUBRIDGE_CACHE_DIR", str(tmp_path))
    first, _ = cubridge.compile(kernel_through_helper, "void(float32[::1])", abi="numba", device=False, cache=True)
    old = VECTOR.__cuda_array_interface__["data"]
    VECTOR.__cuda_array_interface__["data"] = (0x7F0000009000, False)
    try:
        second, _ = cubridge.compile(kernel_through_helper, "void(float32[::1])", abi="numba", device=False,
                                     cache=True)
    finally:
        VECTOR.__cuda_array_interface__["data"] = old
    assert str(0x7F0000009000) in second and str(0x7F0000009000) not in first
