"""The CUDA Array Interface v3 rules, DLPack export/import and the C array API, rule by rule.

Runs without a GPU: descriptions point at a fake aligned address there (nothing dereferences it; the
driver-backed pointer check is skipped when there is no driver). On the GPU machine the same tests
use a real device allocation, so the pointer check passes for the right reason.
"""
import gc
import os
import subprocess
import sys
import weakref

import pytest

import cubridge
from conftest import GPU_REASON

HAS_GPU = GPU_REASON is None


@pytest.fixture(scope="module")
def ptr():
    """A 64 KiB, 256-byte-aligned device address (a fake one without a GPU)."""
    if HAS_GPU:
        buf = cubridge.device_array(1 << 16, "u1")
        yield buf.ptr
        del buf
    else:
        yield 0x7F0000000000


def desc(ptr, **over):
    d = {"shape": (2, 3), "typestr": "<f4", "data": (ptr, False), "version": 3, "strides": None,
         "stream": None}
    d.update(over)
    return {k: v for k, v in d.items() if v is not _DROP}


_DROP = object()


def imp(d, **kw):
    return cubridge.from_cuda_array_interface(d, **kw)


# ---- typestr / descr grammar -------------------------------------------------------------------

@pytest.mark.parametrize("typestr,canonical", [
    ("|b1", "|b1"), ("<i1", "|i1"), ("<i2", "<i2"), ("<i4", "<i4"), ("<i8", "<i8"), ("|u1", "|u1"),
    ("<u2", "<u2"), ("<u4", "<u4"), ("<u8", "<u8"), ("<f2", "<f2"), ("<f4", "<f4"), ("<f8", "<f8"),
    ("<c8", "<c8"), ("<c16", "<c16"), (">f8", ">f8"), (">i2", ">i2"), ("=f4", "<f4"), ("|f4", "<f4"),
    ("|V8", "|V8"), ("<M8[D]", "<M8[D]"), ("=m8[ms]", "<m8[ms]"), ("|M8", "<M8"), (">m8[s]", ">m8[s]")])
def test_typestr_accepted_in_every_byte_order(ptr, typestr, canonical):
    a = imp(desc(ptr, typestr=typestr))
    assert a.typestr == canonical
    assert a.__cuda_array_interface__["typestr"] == canonical


@pytest.mark.parametrize("typestr,message", [
    ("<f3", r"'<f3' is not a valid typestr \(itemsize 3 is not one of 2, 4, 8 for kind 'f'\)"),
    ("|b2", r"itemsize 2 is not one of 1 for kind 'b'"),
    ("<i3", r"itemsize 3 is not one of 1, 2, 4, 8 for kind 'i'"),
    ("<c4", r"itemsize 4 is not one of 8, 16 for kind 'c'"),
    ("<f16", r"itemsize 16 is not one of 2, 4, 8"),
    ("|O8", r"kind 'O' \(Python objects cannot live in GPU memory\)"),
    ("<M8[10s]", r"the unit '\[10s\]' is not one of \[Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as\] \(NumPy's units"),
    ("<m4[D]", r"a datetime64/timedelta64 is 8 bytes: write <m8\[unit\]"),
    ("<x4", r"kind 'x' is not supported on the GPU; accepted kinds: b, i, u, f, c, V, S, U, M, m"),
    ("|a4", r"kind 'a' \(NumPy's old spelling of byte strings: write 'S'\)"),
    ("<U0", r"itemsize 0 is not one of any positive size for kind 'U'"),
    ("f4", r"expected a byte order"),
    ("!f4", r"byte order '!' is not one of '<', '>', '\|', '='"),
    ("<fx", r"the size 'x' is not a decimal number of bytes"),
])
def test_typestr_grammar_errors_name_key_value_and_accepted(ptr, typestr, message):
    with pytest.raises(ValueError, match=r"__cuda_array_interface__\['typestr'\]: .*" + message):
        imp(desc(ptr, typestr=typestr))


def test_descr_structured_type(ptr):
    descr = [("x", "<f4"), ("y", "<i4"), ("", "|V4"), (("title", "z"), "<f2", (2,))]
    a = imp(desc(ptr, typestr="|V16", descr=descr))
    assert a.descr == descr
    assert a.__cuda_array_interface__["descr"] == descr
    assert a.itemsize == 16


@pytest.mark.parametrize("descr,exc,message", [
    ("nope", TypeError, r"\['descr'\]: expected a list of \(name, typestr or descr\[, shape\]\) tuples"),
    ([("x",)], TypeError, r"\['descr'\]\[0\]: expected a \(name, typestr or descr\[, shape\]\) tuple"),
    ([(1, "<f4")], TypeError, r"\['descr'\]\[0\]\[0\]: expected a field name"),
    ([("x", 4)], TypeError, r"\['descr'\]\[0\]\[1\]: expected a typestr or a nested descr list"),
    ([("x", "<f3")], ValueError, r"\['descr'\]\[0\]\[1\]: '<f3' is not a valid typestr"),
    ([("x", "<f4")], ValueError, r"\['descr'\]: describes 4 bytes per element but typestr '\|V8' has 8"),
    ([("x", "<f4", (-1,))], ValueError, r"extent -1 is negative"),
])
def test_descr_errors(ptr, descr, exc, message):
    with pytest.raises(exc, match=message):
        imp(desc(ptr, typestr="|V8", descr=descr))


@pytest.mark.parametrize("descr,exc,message", [
    # One rule, one message for both readers (the CAI's 'descr' above and device_array's).
    ([("a", "<f4")], ValueError, r"device_array: descr: describes 4 bytes per element but typestr '\|V8' has 8"),
    ([("a", 4)], TypeError, r"^device_array: descr\[0\]\[1\]: expected a typestr or a nested descr list"),
    ([("a", "<f4", ("x",))], TypeError, r"^device_array: descr\[0\]\[2\]\[0\]: expected an int"),
])
def test_device_array_descr_checked_before_allocating(descr, exc, message):
    # Checked before the driver is asked for memory, so this runs (and fails the same way) without a GPU.
    with pytest.raises(exc, match=message):
        cubridge._core._empty((5,), "|V8", "C", None, descr)


@pytest.mark.parametrize("args,kwargs,exc,message", [
    (("nope",), {}, TypeError, r"^device_array: shape must be an int or a tuple of int, got 'nope'"),
    ((None,), {}, TypeError, r"^device_array: shape must be an int or a tuple of int, got None"),
    (((2, "x"),), {}, TypeError, r"^device_array: shape must be an int or a tuple of int, got \(2, 'x'\)"),
    ((True,), {}, TypeError, r"^device_array: shape must be an int or a tuple of int, got True"),
    (((2**64,),), {}, ValueError, r"integer 18446744073709551616 does not fit in 64 bits"),
    ((-1,), {}, ValueError, r"^device_array\['shape'\]\[0\]: -1 is negative"),
    (((1 << 62, 8),), {}, ValueError, r"^device_array\['shape'\]: the number of elements overflows 64 bits"),
    ((4, "not-a-dtype"), {}, TypeError, r"^device_array: 'not-a-dtype' is not a NumPy dtype \(data type"),
    ((4, "f4"), {"order": "K"}, ValueError, r"^device_array: order 'K' is not 'C' or 'F'"),
    ((4, "f4"), {"order": 1}, ValueError, r"^device_array: order 1 is not 'C' or 'F'"),
    ((4, "f4"), {"device": "1"}, TypeError,
     r"^device_array: device='1' is not an int ordinal, a cubridge.Device or None \(the current device\)"),
    ((4, "f4"), {"device": 1.0}, TypeError, r"^device_array: device=1.0 is not an int ordinal"),
    ((4, "f4"), {"device": True}, TypeError, r"^device_array: device=True is not an int ordinal"),
])
def test_device_array_arguments_checked_before_allocating(args, kwargs, exc, message):
    # device_array is C++ end to end; every argument is checked before the driver is asked for memory.
    with pytest.raises(exc, match=message):
        cubridge.device_array(*args, **kwargs)


def test_device_array_resolves_a_mutable_dtype_argument_each_time():
    # Lists (descr-style dtype arguments) may change between calls, so they are never cached by identity:
    # changing one changes the dtype, seen here as the itemsize the bad-order check is never reached with.
    spec = [("a", "<f4"), ("b", "<f4")]
    np = pytest.importorskip("numpy")
    assert np.dtype(spec).itemsize == 8
    with pytest.raises(ValueError, match="order 'K'"):
        cubridge.device_array(2, spec, order="K")
    spec.append(("c", "bogus"))
    with pytest.raises(TypeError, match=r"is not a NumPy dtype"):
        cubridge.device_array(2, spec)


# ---- the dict parser: every malformed input -----------------------------------------------------

def test_not_a_dict():
    with pytest.raises(TypeError, match=r"__cuda_array_interface__: expected a dict, got \[1\] \(list\)"):
        imp([1])


@pytest.mark.parametrize("key", ["shape", "typestr", "data", "version"])
def test_missing_required_key(ptr, key):
    d = desc(ptr)
    del d[key]
    with pytest.raises(ValueError, match=rf"the required key '{key}' is missing \(required: 'shape', "
                                         r"'typestr', 'data', 'version'\)"):
        imp(d)


@pytest.mark.parametrize("over,exc,message", [
    ({"shape": 5}, TypeError, r"\['shape'\]: expected a tuple of int, got 5 \(int\)"),
    ({"shape": (2, 3.0)}, TypeError, r"\['shape'\]: expected a tuple of int, got \(2, 3.0\)"),
    ({"shape": (2, True)}, TypeError, r"\['shape'\]: expected a tuple of int"),
    ({"shape": (2, -3)}, ValueError, r"\['shape'\]\[1\]: -3 is negative \(extents must be >= 0\)"),
    ({"shape": (2**70,)}, ValueError, r"\['shape'\]: integer 1180591620717411303424 does not fit in 64 bits"),
    ({"typestr": 4}, TypeError, r"\['typestr'\]: expected a str such as '<f4', got 4"),
    ({"data": 5}, TypeError, r"\['data'\]: expected a 2-tuple \(pointer: int, read_only: bool\), got 5"),
    ({"data": (1, False, 3)}, TypeError, r"\['data'\]: expected a 2-tuple"),
    ({"data": ("0x10", False)}, TypeError, r"\['data'\]\[0\]: expected an int device pointer, got '0x10'"),
    ({"data": (-16, False)}, ValueError, r"\['data'\]\[0\]: -16 is not a valid pointer"),
    ({"data": (2**64, False)}, ValueError, r"\['data'\]\[0\]: 18446744073709551616 is not a valid pointer \(expected an int in 0 .. 2\*\*64-1\)"),
    ({"version": "3"}, TypeError, r"\['version'\]: expected an int \(3\), got '3'"),
    ({"version": 4}, ValueError, r"\['version'\]: 4 is not a version this consumer understands "
                                 r"\(accepted: 0, 1, 2, 3\)"),
    ({"version": -1}, ValueError, r"\['version'\]: -1 is not a version"),
    ({"strides": (4,)}, ValueError, r"\['strides'\]: has 1 entries but 'shape' has 2 \(one byte stride per "
                                    r"dimension, or None for C-contiguous\)"),
    ({"strides": (12, "4")}, TypeError, r"\['strides'\]: expected a tuple of int"),
    ({"stream": 0}, ValueError, r"\['stream'\]: 0 is disallowed by the CUDA Array Interface v3 \(use 1 for "
                                r"the legacy default stream, 2 for the per-thread default stream"),
    ({"stream": -5}, ValueError, r"\['stream'\]: -5 is negative"),
    ({"stream": 1.5}, TypeError, r"\['stream'\]: expected None or an int"),
    ({"stream": True}, TypeError, r"\['stream'\]: expected None or an int"),
    ({"mask": 3}, TypeError, r"\['mask'\]: expected None or an object exposing __cuda_array_interface__, "
                             r"got 3 \(int\)"),
])
def test_malformed_values(ptr, over, exc, message):
    with pytest.raises(exc, match=r"__cuda_array_interface__" + message):
        imp(desc(ptr, **over))


def test_read_only_flag_must_be_bool(ptr):
    with pytest.raises(TypeError, match=r"\['data'\]\[1\]: expected a bool read-only flag, got 0 \(int\)"):
        imp(desc(ptr, data=(ptr, 0)))


def test_misaligned_pointer(ptr):
    with pytest.raises(ValueError, match=rf"\['data'\]: pointer {hex(ptr + 4)} is not aligned to 8 bytes "
                                         r"as typestr '<f8' requires"):
        imp(desc(ptr + 4, typestr="<f8"))


def test_size_overflow(ptr):
    with pytest.raises(ValueError, match="overflows 64 bits"):
        imp(desc(ptr, shape=(2**40, 2**40)))


def test_zero_size_array_with_null_pointer():
    a = imp({"shape": (0, 4), "typestr": "<f8", "data": (0, False), "version": 3})
    assert a.size == 0 and a.ptr == 0
    assert a.__cuda_array_interface__["data"] == (0, False)


def test_numpy_integers_accepted(ptr):
    np = pytest.importorskip("numpy")
    a = imp(desc(ptr, shape=(np.int64(2), np.int32(3))))
    assert a.shape == (2, 3)


# ---- versions 0-2 -------------------------------------------------------------------------------

@pytest.mark.parametrize("version", [0, 1, 2])
def test_old_versions_have_no_stream_semantics(ptr, version):
    a = imp(desc(ptr, version=version, stream=0xBEEF))
    assert a.stream is None and not a.sync
    assert imp(desc(ptr, version=version, stream=0)).stream is None  # not even validated before v3


def test_mask_needs_version_1(ptr):
    m = imp(desc(ptr, typestr="|b1"))
    with pytest.raises(ValueError, match=r"\['mask'\]: version 0 of the interface has no mask"):
        imp(desc(ptr, version=0, mask=m))
    assert imp(desc(ptr, version=1, mask=m)).mask is not None


def test_v1_explicit_strides_for_c_contiguous(ptr):
    a = imp(desc(ptr, version=1, strides=(12, 4)))
    assert a.is_c_contiguous()
    assert a.__cuda_array_interface__["strides"] == (12, 4)  # given explicitly, re-exported as given


# ---- mask -----------------------------------------------------------------------------------------

def test_mask_accepted_exposed_and_sliced(ptr):
    m = imp(desc(ptr + 4096, typestr="|b1"))
    a = imp(desc(ptr, mask=m))
    assert a.mask.shape == (2, 3) and a.mask.typestr == "|b1"
    assert a.__cuda_array_interface__["mask"] is a.mask
    s = a[1:, ::2]
    assert s.mask.shape == s.shape == (1, 2)


def test_mask_shape_must_match(ptr):
    m = imp(desc(ptr, shape=(3,), typestr="|b1"))
    with pytest.raises(ValueError, match=r"\['mask'\]: the mask's shape differs from 'shape'"):
        imp(desc(ptr, mask=m))


def test_mask_cannot_be_honoured_by_dlpack_or_copies(ptr):
    a = imp(desc(ptr, mask=imp(desc(ptr, typestr="|b1"))))
    with pytest.raises(NotImplementedError, match="DLPack cannot carry"):
        a.__dlpack__(max_version=(1, 0))
    with pytest.raises(NotImplementedError, match="a plain copy cannot honour"):
        a.copy_to_host()


# ---- export ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("stream_in,stream_out", [(None, None), (1, 1), (2, 2), (0xBEEF00, 0xBEEF00)])
def test_export_is_v3_and_never_stream_0(ptr, stream_in, stream_out):
    a = imp(desc(ptr, stream=stream_in))
    cai = a.__cuda_array_interface__
    assert cai["version"] == 3
    assert cai["stream"] == stream_out
    assert cai["shape"] == (2, 3) and cai["typestr"] == "<f4" and cai["data"] == (ptr, False)
    assert cai["strides"] is None  # C-contiguous without explicit strides
    assert cai == a.__cuda_array_interface__  # stable, and a fresh dict each time
    assert cai is not a.__cuda_array_interface__


def test_export_stream_option(ptr):
    a = imp(desc(ptr, stream=2))
    try:
        assert cubridge.array_options(export_stream=False) == {"sync": True, "export_stream": False}
        assert a.__cuda_array_interface__["stream"] is None
    finally:
        cubridge.array_options(export_stream=True)
    assert a.__cuda_array_interface__["stream"] == 2


def test_round_trip_through_the_dict(ptr):
    a = imp(desc(ptr, shape=(4, 5), strides=(-20, 4), data=(ptr + 60, True), stream=2))
    b = imp(a.__cuda_array_interface__, owner=a)
    assert (b.shape, b.strides, b.ptr, b.readonly, b.typestr) == ((4, 5), (-20, 4), ptr + 60, True, "<f4")
    assert b.stream.cai_value == 2 and b.base is a


# ---- lifetime --------------------------------------------------------------------------------------

class Producer:
    def __init__(self, d):
        self._d = d

    @property
    def __cuda_array_interface__(self):
        return self._d


def test_as_cuda_array_keeps_the_producer_alive(ptr):
    p = Producer(desc(ptr))
    ref = weakref.ref(p)
    a = cubridge.as_cuda_array(p)
    del p
    gc.collect()
    assert ref() is not None and a.base is ref()
    del a
    gc.collect()
    assert ref() is None


def test_from_cuda_array_interface_keeps_owner_or_nothing(ptr):
    owner = Producer(None)
    ref = weakref.ref(owner)
    a = imp(desc(ptr), owner=owner)
    del owner
    gc.collect()
    assert ref() is not None
    del a
    gc.collect()
    assert ref() is None
    assert imp(desc(ptr)).base is None


def test_slices_keep_the_parent_alive(ptr):
    p = Producer(desc(ptr))
    ref = weakref.ref(p)
    s = cubridge.as_cuda_array(p)[1]
    del p
    gc.collect()
    assert ref() is not None
    del s
    gc.collect()
    assert ref() is None


def test_as_cuda_array_rejects_non_arrays():
    with pytest.raises(TypeError, match=r"as_cuda_array: int is not a GPU array \(expected an object with "
                                        r"__cuda_array_interface__ or __dlpack__"):
        cubridge.as_cuda_array(5)


def test_as_cuda_array_of_ours_is_identity(ptr):
    a = imp(desc(ptr))
    assert cubridge.as_cuda_array(a) is a
    assert cubridge.from_dlpack(a) is a


# ---- sync switches ---------------------------------------------------------------------------------

def test_sync_flag(ptr):
    assert imp(desc(ptr, stream=2)).sync
    assert not imp(desc(ptr, stream=2), sync=False).sync
    assert not imp(desc(ptr)).sync  # no stream, nothing to synchronise with
    with pytest.raises(TypeError, match=r"sync: expected True, False or None .* got 1"):
        imp(desc(ptr), sync=1)


def test_sync_default_can_be_switched_off(ptr):
    try:
        cubridge.array_options(sync=False)
        assert not imp(desc(ptr, stream=2)).sync
        assert imp(desc(ptr, stream=2), sync=True).sync
    finally:
        cubridge.array_options(sync=True)


def test_sync_environment_switch():
    code = "import cubridge; print(cubridge.array_options()['sync'])"
    env = dict(os.environ, CUBRIDGE_CUDA_ARRAY_INTERFACE_SYNC="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    env["CUBRIDGE_CUDA_ARRAY_INTERFACE_SYNC"] = "1"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


# ---- views: slicing, contiguity, reshape ----------------------------------------------------------

def test_slicing(ptr):
    a = imp(desc(ptr, shape=(4, 6)))
    s = a[1:3, ::2]
    assert (s.shape, s.strides, s.ptr) == ((2, 3), (24, 8), ptr + 24)
    assert not s.is_c_contiguous()
    r = a[::-1]
    assert (r.shape, r.strides, r.ptr) == ((4, 6), (-24, 4), ptr + 72)
    assert r.__cuda_array_interface__["strides"] == (-24, 4)
    assert a[2].shape == (6,) and a[2].ptr == ptr + 48
    assert a[..., 1].shape == (4,) and a[..., 1].strides == (24,)
    assert a[-1, -1].shape == () and a[-1, -1].ptr == ptr + 92
    assert a[5:].shape == (0, 6)
    assert len(a) == 4


def test_slicing_errors(ptr):
    a = imp(desc(ptr, shape=(4, 6)))
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        a[4]
    with pytest.raises(IndexError, match=r"too many indices \(3\) for an array of 2 dimension"):
        a[0, 0, 0]
    with pytest.raises(TypeError, match=r"DeviceArray indices must be ints, slices or '...', got 'x' \(str\)"):
        a["x"]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        a[::0]


def test_contiguity_transpose_reshape(ptr):
    f = imp(desc(ptr, shape=(3, 4), strides=(4, 12)))
    assert f.is_f_contiguous() and not f.is_c_contiguous()
    assert f.T.is_c_contiguous() and f.T.shape == (4, 3)
    c = imp(desc(ptr, shape=(3, 4)))
    r = c.reshape((2, -1))
    assert r.shape == (2, 6) and r.base is c
    with pytest.raises(ValueError, match="reshape: the view is not C-contiguous"):
        f.reshape((12,))
    assert f.reshape((12,), order="F").shape == (12,)


# ---- DLPack ----------------------------------------------------------------------------------------

class DLProducer:
    """A foreign DLPack producer that forwards to a cubridge array (the protocol only)."""

    def __init__(self, arr, legacy=False):
        self.arr, self.legacy, self.calls = arr, legacy, []

    def __dlpack__(self, stream=None, max_version=None, **kw):
        self.calls.append((stream, max_version))
        if self.legacy:
            if max_version is not None:
                raise TypeError("unexpected keyword argument 'max_version'")
            return self.arr.__dlpack__(stream=stream)
        return self.arr.__dlpack__(stream=stream, max_version=max_version)

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


def test_dlpack_round_trip_versioned(ptr):
    a = imp(desc(ptr, shape=(3, 4), strides=(4, 12), data=(ptr, True)))
    p = DLProducer(a)
    b = cubridge.from_dlpack(p)
    assert p.calls == [(1, (1, 3))]  # legacy default stream unless told otherwise; DLPack 1.x
    assert (b.shape, b.strides, b.ptr, b.typestr, b.readonly) == ((3, 4), (4, 12), ptr, "<f4", True)
    assert b.stream.cai_value == 1
    assert a.__dlpack_device__() == (2, 0)


def test_dlpack_legacy_producer(ptr):
    a = imp(desc(ptr))
    p = DLProducer(a, legacy=True)
    b = cubridge.from_dlpack(p, sync=False)
    assert p.calls[-1] == (-1, None)  # sync=False asks the producer for no synchronisation
    assert b.shape == (2, 3) and not b.readonly


def test_dlpack_capsule_protocol(ptr):
    import ctypes
    a = imp(desc(ptr))
    cap = a.__dlpack__(max_version=(1, 0))
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    assert get_name(cap) == b"dltensor_versioned"
    assert get_name(a.__dlpack__()) == b"dltensor"
    del cap  # an unconsumed capsule frees its tensor (checked under ASan in the C++ tests)
    api = type(a).__dlpack_c_exchange_api__
    assert get_name(api) == b"dlpack_exchange_api"


@pytest.mark.parametrize("call,exc,message", [
    (dict(stream=0), ValueError, r"stream=0 is ambiguous and disallowed"),
    (dict(max_version=3), TypeError, r"max_version must be None or a \(major, minor\) tuple, got 3"),
    (dict(dl_device=(1, 0)), BufferError, r"dl_device \(1, 0\) differs from the array's \(2, 0\)"),
])
def test_dlpack_export_errors(ptr, call, exc, message):
    with pytest.raises(exc, match=message):
        imp(desc(ptr)).__dlpack__(**call)


def test_dlpack_cannot_express(ptr):
    with pytest.raises(BufferError, match=r"dtype '>f4' has no DLPack equivalent"):
        imp(desc(ptr, typestr=">f4")).__dlpack__(max_version=(1, 0))
    with pytest.raises(BufferError, match=r"stride 6 of axis 0 is not a multiple of the itemsize 4"):
        imp(desc(ptr, shape=(2,), strides=(6,))).__dlpack__(max_version=(1, 0))
    with pytest.raises(BufferError, match="read-only and the pre-1.0 DLPack capsule cannot say so"):
        imp(desc(ptr, data=(ptr, True))).__dlpack__()


def test_from_dlpack_rejects(ptr):
    with pytest.raises(TypeError, match=r"from_dlpack: int has no __dlpack__"):
        cubridge.from_dlpack(3)

    class Cpu:
        def __dlpack__(self, **kw):
            raise AssertionError("not called")

        def __dlpack_device__(self):
            return (1, 0)
    with pytest.raises(ValueError, match=r"from_dlpack: the array is on DLPack device \(1, 0\), which the "
                                         r"GPU cannot address"):
        cubridge.from_dlpack(Cpu())


def test_as_cuda_array_falls_back_to_dlpack(ptr):
    a = cubridge.as_cuda_array(DLProducer(imp(desc(ptr))))
    assert a.shape == (2, 3) and isinstance(a.base, DLProducer)


# ---- the C array API ------------------------------------------------------------------------------

def test_c_api_capsule():
    import ctypes
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    assert get_name(cubridge._core._array_c_api) == b"cubridge.array_c_api"


def test_c_api_fills_the_struct_from_our_array(ptr):
    a = imp(desc(ptr, shape=(4, 6), data=(ptr, True), stream=2))[:, 1:]
    c = cubridge._core._c_import(a)
    assert c["version"] == 1 and c["typestr"] == "<f4" and c["itemsize"] == 4
    assert c["shape"] == (4, 5) and c["strides"] == (24, 4) and c["data"] == ptr + 4
    assert c["flags"] & 0x1 and c["flags"] & 0x2 and not c["flags"] & 0x8  # read-only, stream, not C
    assert c["stream"] == 2 and c["owner"] is a
    with pytest.raises(ValueError, match="the array is read-only but CUBRIDGE_IMPORT_WRITABLE"):
        cubridge._core._c_import(a, flags=2)


def test_c_api_spells_each_dtype_in_turn(ptr):
    # The C API keeps the last dtype's typestr field: imports alternating between dtypes (datetime units and
    # opaque sizes among them, which the typestr alone tells apart) each get their own, NUL-padded.
    kinds = ["<f4", "<i8", "<M8[s]", "<M8[ms]", "|V12", "|V8", "|b1", "<c16", "<f4"]
    for typestr in kinds + list(reversed(kinds)):
        itemsize = 1 if typestr == "|b1" else 12 if typestr == "|V12" else 16 if typestr == "<c16" else \
            4 if typestr == "<f4" else 8
        c = cubridge._core._c_import(imp(desc(ptr, typestr=typestr, strides=(3 * itemsize, itemsize))))
        assert c["typestr"] == typestr and c["itemsize"] == itemsize


def test_c_api_from_cai_and_dlpack_producers(ptr):
    p = Producer(desc(ptr, stream=None))
    c = cubridge._core._c_import(p)
    assert c["shape"] == (2, 3) and c["owner"].base is p and not c["flags"] & 0x2
    d = cubridge._core._c_import(DLProducer(imp(desc(ptr))))
    assert d["shape"] == (2, 3) and d["flags"] & 0x8
    with pytest.raises(TypeError, match="as_cuda_array: object is not a GPU array"):
        cubridge._core._c_import(object())


# ---- the C++ helper for extension authors (cubridge/array/python_array.hpp) ------------------------

def test_cpp_helper_views_any_array_with_requirements(ptr):
    a = imp(desc(ptr, shape=(4, 6), stream=2))
    h = cubridge._core._cpp_helper_import(a, typestr="<f4", ndim=2, order="C")
    assert (h["ptr"], h["shape"], h["strides"], h["typestr"], h["stream"]) == (ptr, (4, 6), (24, 4), "<f4", 2)
    h = cubridge._core._cpp_helper_import(Producer(desc(ptr, shape=(3,), typestr="<i8")))
    assert h["shape"] == (3,) and h["typestr"] == "<i8" and h["stream"] is None
    with pytest.raises(ValueError, match=r"array_from_python: dtype '<f4' is not the required '<f8'"):
        cubridge._core._cpp_helper_import(a, typestr="<f8")
    with pytest.raises(ValueError, match=r"array_from_python: the array has 2 dimension\(s\), 3 required"):
        cubridge._core._cpp_helper_import(a, ndim=3)
    with pytest.raises(ValueError, match="not contiguous in the required order"):
        cubridge._core._cpp_helper_import(a.T, order="C")
    with pytest.raises(ValueError, match="read-only but CUBRIDGE_IMPORT_WRITABLE"):
        cubridge._core._cpp_helper_import(imp(desc(ptr, data=(ptr, True))), writable=True)
    with pytest.raises(ValueError, match=r"TypeError: as_cuda_array: int is not a GPU array"):
        cubridge._core._cpp_helper_import(3)


def test_numpy_dtype_property(ptr):
    np = pytest.importorskip("numpy")
    assert imp(desc(ptr, descr=[("", "<f4")])).dtype == np.dtype("<f4")  # CuPy sends descr for plain types
    dt = np.dtype([("a", "<f4"), ("b", "<i4")])
    assert imp(desc(ptr, typestr="|V8", descr=dt.descr)).dtype == dt
    assert imp(desc(ptr, typestr=">i2")).dtype == np.dtype(">i2")


def test_published_exchange_table_works_like_a_c_consumer_uses_it(ptr):
    a = imp(desc(ptr, shape=(3, 4), strides=(4, 12), data=(ptr, True)))
    r = cubridge._core._exchange_table_selftest(a)
    assert r["version"] == (1, 3)
    assert r["borrowed_shape"] == (3, 4) and r["borrowed_strides"] == (1, 3) and r["borrowed_data"] == ptr
    assert r["flags"] & 1  # READ_ONLY survives the owning export
    b = r["reimported"]
    assert isinstance(b, cubridge.DeviceArray)
    assert (b.shape, b.strides, b.ptr, b.readonly) == ((3, 4), (4, 12), ptr, True)
    assert r["work_stream"] in (1, 2)  # CU_STREAM_LEGACY or CU_STREAM_PER_THREAD
    with pytest.raises(TypeError, match="publishes no usable __dlpack_c_exchange_api__"):
        cubridge._core._exchange_table_selftest(Producer(None))
