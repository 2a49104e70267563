"""Kernel face without a GPU: signature parsing, the Numba-ABI layout of the packed parameter buffer
(checked against numba's own PTX where numba can compile), argument checks and their messages, and
the clear errors of loading without a driver."""
import re
import struct

import numpy as np
import pytest

import cubridge
from cubridge import KernelSignature

from conftest import GPU_REASON


def words(buf, start, count):
    return list(struct.unpack_from(f"<{count}q", buf, start))


# ---------------------------------------------------------------- signatures


@pytest.mark.parametrize("text, canonical", [
    ("void(float32[:], float32[:, ::1], int64[::1, :])", "void(float32[:], float32[:, ::1], int64[::1, :])"),
    ("float32[::1], int64", "void(float32[::1], int64)"),
    ("(f4[:], i8, c8, b1)", "void(float32[:], int64, complex64, bool)"),
    ("const float64[:, :, :], readonly uint8[::1]", "void(const float64[:, :, :], const uint8[::1])"),
    ("array(float32, 2d, C), readonly array(int16, 1d, A)", "void(float32[:, ::1], const int16[:])"),
    ("void()", "void()"),
])
def test_signature_spellings(text, canonical):
    s = KernelSignature(text)
    assert str(s) == canonical
    assert KernelSignature(str(s)) == s


def test_signature_written_flags_and_params():
    s = KernelSignature("float32[:], const float32[:], int32")
    assert [s.written(i) for i in range(3)] == [True, False, False]
    assert s.params == ["float32[:]", "const float32[:]", "int32"]
    assert len(s) == 3


@pytest.mark.parametrize("text, message", [
    ("void(float31[:])", "'float31' is not a type; accepted: bool, int8..int64"),
    ("float32(float32[:])", "a kernel returns void, but the signature says 'float32'"),
    ("float32[:, ::1, :]", r"'::1' must be the last dimension \(C order\) or the first \(F order\)"),
    ("float32[::2]", r"'::2' is not a dimension; write ':' \(any stride\) or '::1' \(contiguous\)"),
    ("float32[]", "has no dimensions"),
    ("int32,, int32", "an empty parameter"),
    ("float32[:", "unbalanced"),
])
def test_signature_errors_name_the_text(text, message):
    with pytest.raises(ValueError, match=message):
        KernelSignature(text)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_array_parameters_are_five_plus_two_n_words(ndim):
    s = KernelSignature(f"float32[{', '.join([':'] * ndim)}], int64")
    first, count = s.slot_range(0)
    assert (first, count) == (0, 5 + 2 * ndim)
    assert s.slots[:count] == [(8 * k, 8) for k in range(count)]
    assert s.slot_range(1) == (count, 1)
    assert s.buffer_size == 8 * (count + 1)


def test_scalar_slots_are_exact_types_naturally_aligned_and_complex_is_two():
    s = KernelSignature("bool, int16, int32, int64, complex64, float16, complex128, uint8, float32")
    assert s.slots == [(0, 1), (2, 2), (4, 4), (8, 8), (16, 4), (20, 4), (24, 2), (32, 8), (40, 8),
                       (48, 1), (52, 4)]
    assert s.slot_range(4) == (4, 2) and s.slot_range(6) == (7, 2)


# ---------------------------------------------------------------- packing


@pytest.mark.parametrize("make", [
    lambda: np.zeros(7, np.float32),
    lambda: np.zeros((3, 4), np.float64),
    lambda: np.zeros((3, 4), np.float64, order="F"),
    lambda: np.zeros((4, 6), np.int16)[:, ::2],
    lambda: np.zeros((2, 3, 5), np.int32),
    lambda: np.zeros((2, 3, 5), np.int32).transpose(2, 0, 1),
    lambda: np.zeros(8, np.complex64)[::-1],
])
def test_pack_writes_the_numba_array_fields(make):
    a = make()
    typename = {np.float32: "float32", np.float64: "float64", np.int16: "int16", np.int32: "int32",
                np.complex64: "complex64"}[a.dtype.type]
    s = KernelSignature(f"{typename}[{', '.join([':'] * a.ndim)}]")
    buf = s.pack(a)
    n = a.ndim
    w = words(buf, 0, 5 + 2 * n)
    assert w[0] == 0 and w[1] == 0  # meminfo, parent
    assert w[2] == a.size and w[3] == a.itemsize
    assert w[4] == a.__array_interface__["data"][0]
    assert w[5:5 + n] == list(a.shape)
    assert w[5 + n:] == list(a.strides)


def test_pack_writes_every_scalar_type_bit_exactly():
    s = KernelSignature("bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, "
                        "float32, float64, complex64, complex128")
    values = [True, -5, -300, -70000, -(1 << 40), 255, 65535, 4000000000, (1 << 64) - 1, 0.1, 0.1,
              3, 1.5 - 2j, complex(0.25, 4)]
    buf = s.pack(*values)
    got = [buf[o:o + n] for o, n in s.slots]
    want = [np.bool_(True), np.int8(-5), np.int16(-300), np.int32(-70000), np.int64(-(1 << 40)),
            np.uint8(255), np.uint16(65535), np.uint32(4000000000), np.uint64((1 << 64) - 1),
            np.float16(0.1), np.float32(0.1), np.float64(3), np.float32(1.5), np.float32(-2),
            np.float64(0.25), np.float64(4)]
    assert got == [w.tobytes() for w in want]


@pytest.mark.parametrize("value", [0.0, -0.0, 1.0, 65504.0, 65519.0, 65520.0, 1e300, 2.0 ** -24, 2.0 ** -25,
                                   3 * 2.0 ** -26, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 0.1, 1 / 3, -7.77e-5,
                                   float("inf")])
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_float16_rounds_like_numpy(value):
    buf = KernelSignature("float16").pack(value)
    assert buf[:2] == np.float16(value).tobytes()


def test_pack_takes_an_int_of_a_signed_parameters_unsigned_range_as_its_bits():
    """numba-cuda's ctypes conversion: cuda.jit("void(int32[:], int32)") launched with 0xFFFFFFFF passes -1."""
    buf = KernelSignature("int32, int8, int64").pack(0xFFFFFFFF, 0x80, 0xFFFFFFFFFFFFFFFF)
    assert buf[0:4] == np.int32(-1).tobytes()
    assert buf[4:5] == np.int8(-128).tobytes()  # parameters at their natural alignment
    assert buf[8:16] == np.int64(-1).tobytes()


def test_pack_takes_an_integer_array_of_the_other_signedness_as_its_bits():
    """numba-cuda's test_vote_sync_const_mode_val passes an int32 array to 'void(uint32[:])'."""
    KernelSignature("uint32[:], int16[:]").pack(np.zeros(2, np.int32), np.zeros(2, np.uint16))
    with pytest.raises(TypeError, match=r"a uint16 array \(typestr '<u2'\) was passed where the signature says "
                                        r"int32\[:\]"):
        KernelSignature("int32[:]").pack(np.zeros(2, np.uint16))


def test_a_host_array_misaligned_for_its_dtype_is_refused_by_pack_which_packs_host_pointers_as_they_are():
    """numba-cuda's test_gpu_array_strided: a float64 array 4 bytes into a buffer is a launch argument (the
    launch copies its bytes to the device and back: test_kernels_gpu). KernelSignature.pack, which packs a host
    pointer as it is and reads no memory, refuses it by the alignment rule (the atheris fuzzer's bogus host
    pointers must never be read)."""
    y = np.ndarray(shape=80, buffer=np.arange(10, dtype=np.double), dtype=np.byte)
    z = np.ndarray(9, buffer=y[4:-4], dtype=np.double)
    assert z.__array_interface__["data"][0] % 8 == 4
    with pytest.raises(ValueError, match="is not aligned to 8 bytes as typestr '<f8' requires"):
        KernelSignature("void(double[:])").pack(z)


def test_pack_accepts_numpy_scalars():
    s = KernelSignature("int8, uint64, float16, float32, complex64, bool")
    buf = s.pack(np.int8(-3), np.uint64(2 ** 63), np.float16(1.5), np.float64(2.5), np.complex64(1 + 1j),
                 np.bool_(False))
    assert buf[0:1] == np.int8(-3).tobytes()
    assert buf[8:16] == np.uint64(2 ** 63).tobytes()
    assert buf[16:18] == np.float16(1.5).tobytes()


@pytest.mark.parametrize("sig, args, error, message", [
    ("float32[:]", (np.zeros(3, np.float64),), TypeError,
     r"argument 0: a float64 array \(typestr '<f8'\) was passed where the signature says float32\[:\]"),
    ("float32[:]", (np.zeros((2, 2), np.float32),), TypeError, r"argument 0: a 2-d array \(shape \(2, 2\)\)"),
    ("float32[:, ::1]", (np.zeros((2, 2), np.float32, order="F"),), TypeError,
     r"not C-contiguous \(strides \(4, 8\)\)"),
    ("float32[::1, :]", (np.zeros((2, 2), np.float32),), TypeError, "not F-contiguous"),
    ("int8", (300,), ValueError,
     r"argument 0: 300 is out of range for int8 \(-128 to 127, or up to 255 as the bit pattern\)"),
    ("int32", (1 << 32,), ValueError, "4294967296 is out of range for int32"),
    ("uint32", (-1,), ValueError, "-1 is out of range for uint32"),
    ("int64", (1 << 70,), ValueError, "out of range for every integer parameter type"),
    ("int32", (1.5,), TypeError, r"argument 0: a float \(1.5\) was passed where the signature says int32"),
    ("float32", (1j,), TypeError, "a complex"),
    ("int32", ("x",), TypeError, r"argument 0: 'x' \(str\) was passed where the signature says int32"),
    ("int32", (np.zeros(2),), TypeError, "argument 0: an array was passed where the signature says int32"),
    ("float32[:]", (3,), TypeError, r"argument 0: 3 \(int\) is not an array"),
    ("float32[:], int32", (np.zeros(2, np.float32),), TypeError, "takes 2 arguments, got 1"),
    ("bool", (2,), ValueError, "2 is out of range for bool"),
])
def test_pack_rejects_with_clear_messages(sig, args, error, message):
    with pytest.raises(error, match=message):
        KernelSignature(sig).pack(*args)


def test_read_only_arrays_only_for_const_parameters():
    a = np.zeros(4, np.float32)
    a.flags.writeable = False
    with pytest.raises(ValueError, match=r"argument 0: the array is read-only but the kernel may write it "
                                         r"\(float32\[:\]\); pass a writable array, or declare the "
                                         r"parameter 'const float32\[:\]'"):
        KernelSignature("float32[:]").pack(a)
    KernelSignature("const float32[:]").pack(a)


class FakeDeviceArray:
    """A CAI v3 producer for CPU tests (the pointer is never dereferenced)."""

    def __init__(self, shape, typestr, strides=None, ptr=0x7f0000000000, readonly=False, stream=None):
        self.__cuda_array_interface__ = {"version": 3, "shape": shape, "typestr": typestr,
                                         "data": (ptr, readonly), "strides": strides, "stream": stream}


@pytest.mark.skipif(GPU_REASON is None, reason="fake device pointers are refused where a driver can check them")
def test_pack_reads_cuda_array_interface_producers():
    s = KernelSignature("const float32[:, :], int64")
    buf = s.pack(FakeDeviceArray((3, 5), "<f4", strides=(40, 8), readonly=True, stream=1), 7)
    assert words(buf, 0, 10) == [0, 0, 15, 4, 0x7f0000000000, 3, 5, 40, 8, 7]
    with pytest.raises(ValueError, match="read-only but the kernel may write it"):
        KernelSignature("float32[:]").pack(FakeDeviceArray((3,), "<f4", readonly=True))
    with pytest.raises(TypeError, match="typestr '<i4'"):
        KernelSignature("float32[:]").pack(FakeDeviceArray((3,), "<i4"))


def test_a_failing_cuda_array_interface_getter_is_reported():
    class Broken:
        @property
        def __cuda_array_interface__(self):
            raise RuntimeError("producer is gone")
    with pytest.raises(RuntimeError, match="producer is gone"):
        KernelSignature("float32[:]").pack(Broken())


# ---------------------------------------------------------------- C pointer parameters (CUDA C++ kernels)


@pytest.mark.parametrize("text, canonical", [
    ("void(const float32*, const float32 *, float32*, uint64)", "void(const float32*, const float32*, float32*, uint64)"),
    ("readonly f8*, void *, const void*, c8*", "void(const float64*, void*, const void*, complex64*)"),
])
def test_pointer_spellings(text, canonical):
    s = KernelSignature(text)
    assert str(s) == canonical and KernelSignature(canonical) == s
    assert [s.slot_range(i) for i in range(3)] == [(0, 1), (1, 1), (2, 1)]
    assert s.slots[:3] == [(0, 8), (8, 8), (16, 8)]


def test_pointer_written_flags():
    s = KernelSignature("const float32*, float32*, void*, const void*, int32")
    assert [s.written(i) for i in range(5)] == [False, True, True, False, False]


@pytest.mark.parametrize("text, message", [
    ("float32**", r"'float32\*\*' is a pointer to a pointer; pass such an address as a uint64 scalar"),
    ("flt*", r"'flt' is not a type; accepted: .* pointers T\*, void\*, CPointer\(T\) and voidptr"),
])
def test_pointer_signature_errors(text, message):
    with pytest.raises(ValueError, match=message):
        KernelSignature(text)


def test_pack_writes_the_data_pointer_of_contiguous_arrays_and_raw_addresses():
    c = np.zeros((3, 4), np.float32)
    f = np.zeros((3, 4), np.float64, order="F")
    ro = np.zeros(5, np.int16)
    ro.flags.writeable = False
    s = KernelSignature("const float32*, float64*, const void*, float32*, uint64")
    buf = s.pack(c, f, ro, 0xDEAD0000, 7)
    assert words(buf, 0, 5) == [c.ctypes.data, f.ctypes.data, ro.ctypes.data, 0xDEAD0000, 7]
    assert len(buf) == 40
    # 0-d and 1-element arrays are contiguous too; void* takes any dtype.
    assert words(KernelSignature("void*").pack(np.zeros((), np.complex128)), 0, 1)[0] != 0


@pytest.mark.parametrize("sig, args, error, message", [
    ("float32*", (np.zeros(3, np.float64),), TypeError,
     r"argument 0: a float64 array \(typestr '<f8'\) was passed where the signature says float32\*"),
    ("const float32*", (np.zeros((4, 6), np.float32)[:, ::2],), TypeError,
     r"argument 0: an array that is neither C- nor F-contiguous \(strides \(24, 8\); a pointer parameter "
     r"indexes the array flat, so pass a contiguous copy\) was passed where the signature says const float32\*"),
    ("void*", (np.zeros(8, np.int8)[::-1],), TypeError, r"neither C- nor F-contiguous \(strides \(-1,\)"),
    ("float32*", (1.5,), TypeError,
     r"argument 0: 1.5 \(float\) is not an array, but the signature says float32\* .*, or an int device address"),
    ("float32*", (True,), TypeError, r"argument 0: True \(bool\) is not an array"),
    ("float32*", (-1,), ValueError, r"argument 0: -1 is not a device address; an int address is 0 to 2\*\*64 - 1"),
    ("float32*", (1 << 64,), ValueError, "is not a device address"),
    ("int64", (np.zeros(2, np.float32),), TypeError, "an array was passed where the signature says int64"),
])
def test_pointer_arguments_are_rejected_with_clear_messages(sig, args, error, message):
    with pytest.raises(error, match=message):
        KernelSignature(sig).pack(*args)


def test_read_only_arrays_only_for_const_pointers():
    a = np.zeros(4, np.float32)
    a.flags.writeable = False
    with pytest.raises(ValueError, match=r"argument 0: the array is read-only but the kernel may write it "
                                         r"\(float32\*\); pass a writable array, or declare the parameter "
                                         r"'const float32\*'"):
        KernelSignature("float32*").pack(a)
    with pytest.raises(ValueError, match=r"\(void\*\); .* 'const void\*'"):
        KernelSignature("void*").pack(a)
    KernelSignature("const float32*").pack(a)


@pytest.mark.skipif(GPU_REASON is None, reason="fake device pointers are refused where a driver can check them")
def test_pointer_parameters_read_cuda_array_interface_producers():
    buf = KernelSignature("const float32*, int64").pack(FakeDeviceArray((3, 5), "<f4", readonly=True, stream=1), 7)
    assert words(buf, 0, 2) == [0x7f0000000000, 7]
    with pytest.raises(ValueError, match="read-only but the kernel may write it"):
        KernelSignature("float32*").pack(FakeDeviceArray((3,), "<f4", readonly=True))
    with pytest.raises(TypeError, match=r"neither C- nor F-contiguous \(strides \(40, 8\)"):
        KernelSignature("float32*").pack(FakeDeviceArray((3, 5), "<f4", strides=(40, 8)))


def test_pointer_layout_matches_nvrtc_ptx_of_the_link_example():
    nvrtc_compile = getattr(cubridge, "nvrtc_compile", None)
    if nvrtc_compile is None:
        pytest.skip("cubridge.nvrtc_compile is not built")
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[3] / "examples" / "link" / "link_example.py"
    spec = importlib.util.spec_from_file_location("link_example", path)
    link_example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(link_example)
    source = link_example.REFERENCE_SOURCE
    try:
        ptx = nvrtc_compile(source, "transform.cu", (7, 5), output="ptx").code
    except Exception as e:  # no NVRTC in this toolkit
        pytest.skip(f"NVRTC cannot compile here: {type(e).__name__}: {str(e)[:200]}")
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    sig = KernelSignature("const float32*, const float32*, float32*, uint64")
    assert [size for _, size in sig.slots] == _entry_param_sizes(ptx, "transform")


# ---------------------------------------------------------------- numba's own ABI


def _numba_ptx(func, sig):
    numba_cuda = pytest.importorskip("numba.cuda")
    try:
        ptx, _ = numba_cuda.compile_ptx(func, sig, cc=(7, 5))
    except Exception as e:  # no libNVVM usable by numba here
        pytest.skip(f"numba cannot compile PTX here: {type(e).__name__}: {str(e)[:200]}")
    return ptx


PTX_PARAM_BYTES = {"u8": 1, "b8": 1, "s8": 1, "u16": 2, "b16": 2, "s16": 2, "f16": 2, "u32": 4, "b32": 4,
                   "s32": 4, "f32": 4, "u64": 8, "b64": 8, "s64": 8, "f64": 8}


def _entry_param_sizes(ptx, name):
    body = ptx[ptx.index(f".entry {name}("):]
    body = body[:body.index(")")]
    return [PTX_PARAM_BYTES[t] for t in re.findall(r"\.param\s+\.(\w+)", body)]


def test_flattened_layout_matches_numba_compile_ptx():
    sig = ("void(float32[:, ::1], float64[:], int64, complex64, boolean, float16, int8, uint16, complex128, "
           "int32[:, :, :])")

    def k(a, b, n, c, f, h, i8, u16, z, t):
        i = 0
        if f and n > i8 and u16 > 0:
            a[i, 0] = b[i] + c.real + h + z.imag + t[0, 0, 0]

    from numba import cuda  # noqa: F401  (the kernel's globals need nothing else)
    ptx = _numba_ptx(k, sig)
    names = cubridge.ptx_entry_names(ptx)
    assert len(names) == 1
    ours = KernelSignature(sig)
    assert [size for _, size in ours.slots] == _entry_param_sizes(ptx, names[0])


def test_numba_signature_objects_are_accepted():
    numba = pytest.importorskip("numba")
    from cubridge._kernels import kernel_signature
    sig = numba.void(numba.float32[:, ::1], numba.types.Array(numba.int64, 1, "A", readonly=True), numba.int32)
    assert str(KernelSignature(kernel_signature(sig))) == "void(float32[:, ::1], const int64[:], int32)"
    assert str(KernelSignature(kernel_signature(["float32[:]", "int64"]))) == "void(float32[:], int64)"
    with pytest.raises(ValueError, match="a kernel returns void"):
        kernel_signature(numba.float32(numba.float32[:]))
    with pytest.raises(TypeError, match="is not a str such as"):
        kernel_signature(42)


# ---------------------------------------------------------------- loading without a GPU


def test_ptx_entry_names():
    ptx = ".version 8.0\n.target sm_75\n.visible .entry first(\n)\n{ ret; }\n.entry _Z6second(\n) { ret; }\n"
    assert cubridge.ptx_entry_names(ptx) == ["first", "_Z6second"]


def test_load_kernel_checks_its_inputs_before_the_driver():
    with pytest.raises(TypeError, match="signature is required"):
        cubridge.load_kernel(".version 8.0")
    with pytest.raises(ValueError, match="'float31' is not a type"):
        cubridge.load_kernel(".version 8.0", "k", "float31[:]")
    with pytest.raises(TypeError, match="code must be PTX text"):
        cubridge.load_kernel(12, "k", "float32[:]")
    with pytest.raises(TypeError, match="is neither a str such as 'void.float32.:., int64.' nor a cubridge.KernelSignature"):
        cubridge.Kernel(".version 8.0", "k", 3)
    with pytest.raises(ValueError, match="neither PTX text"):
        cubridge.Kernel(b"\x01\x02", "k", "float32[:]")
    with pytest.raises(TypeError, match=r"load_kernel: device='0' is not an int ordinal, a cubridge.Device or None"):
        cubridge.load_kernel(".version 8.0\n.target sm_75\n.address_size 64\n", "k", "float32[:]", device="0")


@pytest.mark.skipif(GPU_REASON is None, reason="a GPU is usable here")
def test_load_kernel_without_a_gpu_raises_the_clear_error():
    with pytest.raises(cubridge.DriverUnavailable, match="no usable CUDA driver or device"):
        cubridge.load_kernel(".version 8.0\n.target sm_75\n.address_size 64\n", "k", "float32[:]")


def test_performance_warning_is_a_user_warning():
    assert issubclass(cubridge.PerformanceWarning, UserWarning)


# ---------------------------------------------------------------- the GPU tests' PTX, checked here

TEST_PTX = __import__("pathlib").Path(__file__).resolve().parents[2] / "cpp" / "kernel" / "numba_abi_kernels.ptx"
TEST_KERNELS = {
    "add_f32": "const float32[:], const float32[:], float32[:]",
    "scale_2d": "float64[:, :], float64",
    "fill_3d": "int32[:, :, ::1], int64[:]",
    "scalars": "uint64[:], bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, "
               "float64, complex64, complex128",
    "reverse_block": "float32[:], float32[:]",
    "slow_fill": "float32[:], float32, int64",
}


@pytest.mark.parametrize("name", sorted(TEST_KERNELS))
def test_gpu_test_kernels_have_the_layout_their_signatures_say(name):
    ptx = TEST_PTX.read_text()
    assert cubridge.ptx_entry_names(ptx) == list(TEST_KERNELS)
    assert [size for _, size in KernelSignature(TEST_KERNELS[name]).slots] == _entry_param_sizes(ptx, name)


def test_gpu_test_ptx_is_current_with_its_source():
    nvrtc_compile = getattr(cubridge, "nvrtc_compile", None)
    if nvrtc_compile is None:
        pytest.skip("no NVRTC wrapper in this build")
    source = (TEST_PTX.parent / "numba_abi_kernels.cu").read_text()
    try:
        fresh = nvrtc_compile(source, "numba_abi_kernels.cu", (7, 5)).code
    except Exception as e:  # no NVRTC library here
        pytest.skip(f"NVRTC unavailable: {type(e).__name__}: {str(e)[:200]}")
    for name, sig in TEST_KERNELS.items():
        assert _entry_param_sizes(fresh, name) == [size for _, size in KernelSignature(sig).slots], name


# ---------------------------------------------------------------- @cubridge.jit and typeof


@pytest.mark.parametrize("make, want", [
    (lambda: np.zeros((3, 4), np.float32), "float32[:, ::1]"),
    (lambda: np.zeros((3, 4), np.float32, order="F"), "float32[::1, :]"),
    (lambda: np.zeros((3, 4))[:, ::2], "float64[:, :]"),
    (lambda: np.zeros(5, np.int16), "int16[::1]"),
    (lambda: np.zeros((1, 5), np.float32)[:, ::2], "float32[:, :]"),
    (lambda: np.zeros((2, 3, 4), np.complex64).transpose(2, 1, 0), "complex64[::1, :, :]"),
    (lambda: True, "bool"), (lambda: 3, "int64"), (lambda: 2.5, "float64"), (lambda: 1j, "complex128"),
    (lambda: np.uint16(3), "uint16"), (lambda: np.float16(1), "float16"),
])
def test_typeof(make, want):
    assert cubridge.typeof(make()) == want


def test_typeof_read_only_and_refusals():
    a = np.zeros(3)
    a.flags.writeable = False
    assert cubridge.typeof(a) == "const float64[::1]"
    with pytest.raises(TypeError, match=r"typeof: 'x' \(str\) cannot be a kernel argument"):
        cubridge.typeof("x")
    with pytest.raises(TypeError, match="arrays of typestr '<M8\\[10s\\]' cannot be kernel arguments: datetime64 "
                                        "arrays are taken in native byte order with one of NumPy's units"):
        cubridge.typeof(np.zeros(2, "datetime64[10s]"))
    with pytest.raises(TypeError, match=r"arrays of typestr '>U12' cannot be kernel arguments: numba-cuda types "
                                        r"them as UnicodeCharSeq; cubridge takes arrays of them in native byte order"):
        cubridge.typeof(np.zeros(2, ">U12"))
    with pytest.raises(TypeError, match=r"field dtype '>U12' is not a kernel type; .* \(numba-cuda types them as "
                                        r"UnicodeCharSeq"):
        cubridge.typeof(np.zeros(2, [("x", np.int32), ("y", ">U12")]))


def test_eager_signatures_accept_compatible_layouts():
    def _accepts(param, arg):
        return cubridge.Type.parse(param).accepts(cubridge.Type.parse(arg))
    assert _accepts("float32[:, :]", "float32[:, ::1]") and _accepts("float32[:, :]", "float32[::1, :]")
    assert _accepts("const float32[:]", "float32[::1]") and _accepts("const float32[:]", "const float32[:]")
    assert not _accepts("float32[:]", "const float32[::1]")  # a read-only array where the kernel writes
    assert not _accepts("float32[:, ::1]", "float32[:, :]") and not _accepts("float32[:]", "float64[:]")
    assert not _accepts("float32[:]", "float32[:, :]") and not _accepts("int64", "float64")


def scalar_kernel(n, x):
    y = n + x  # noqa: F841  (the front end compiles kernels that take numbers; arrays come with issue 6's compiler half)


def test_jit_eager_compiles_ptx_without_a_gpu():
    try:
        d = cubridge.jit("void(int64, float32)")(scalar_kernel)
    except cubridge.CompileError as e:
        pytest.skip(f"the front end cannot compile this kernel here: {e}")
    except Exception as e:  # no libNVVM here
        pytest.skip(f"libNVVM unavailable: {type(e).__name__}: {str(e)[:200]}")
    assert d.signatures == ["void(int64, float32)"]
    (ptx,) = d.inspect_ptx().values()
    assert cubridge.ptx_entry_names(ptx)[0].startswith("_ZN")
    assert d.__name__ == "scalar_kernel" and d.py_func is scalar_kernel
    with pytest.raises(ValueError, match="kernel 'scalar_kernel': the launch configuration was not specified"):
        d(1, 2.0)  # numba-cuda's exception class
    lazy = cubridge.jit(scalar_kernel)
    assert isinstance(lazy, cubridge.Dispatcher) and lazy.signatures == []
    device = cubridge.jit(device=True)(scalar_kernel)  # numba-cuda's device dispatcher, wrapping the function
    assert isinstance(device, cubridge.DeviceFunction) and device.py_func is scalar_kernel


@pytest.mark.skipif(GPU_REASON is None, reason="a GPU is usable here")
def test_jit_launch_without_a_gpu_raises_the_clear_error():
    d = cubridge.jit(scalar_kernel)
    with pytest.raises(cubridge.DriverUnavailable, match="no usable CUDA driver or device"):
        d[1, 1](3, 2.0)
