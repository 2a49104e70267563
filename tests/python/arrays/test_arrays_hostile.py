"""Hostile input to the array face must end in a clear Python exception naming what is wrong, never in a
crash, a hang, a use after free or nanobind's abort:
- producers that lie: DLPack 1.3 exchange tables and borrowed tensors built by hand (ctypes, as a careless or
  hostile producer would), through `as_cuda_array`/`from_dlpack` (owned exports) and the C API (`_c_import`,
  borrowed exports), which share one tensor checker;
- CAI dicts that recurse (a mask naming itself, descr lists nested deep or containing themselves), that
  mutate themselves from `__index__` while being read, or whose descr sizes overflow;
- objects used from several threads while the GIL is released (the linker).
No GPU: every case fails before the driver is needed."""
import ctypes
import gc
import threading
import weakref

import pytest

import cubridge
from conftest import described_address

INT = ctypes.c_int


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class Header(ctypes.Structure):
    pass


Header._fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev_api", ctypes.POINTER(Header))]

ALLOCATOR = ctypes.CFUNCTYPE(INT, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
FROM_PY = ctypes.CFUNCTYPE(INT, ctypes.c_void_p, ctypes.c_void_p)
TO_PY = ctypes.CFUNCTYPE(INT, ctypes.c_void_p, ctypes.c_void_p)
DLTENSOR_FROM_PY = ctypes.CFUNCTYPE(INT, ctypes.c_void_p, ctypes.POINTER(DLTensor))
WORK_STREAM = ctypes.CFUNCTYPE(INT, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))


class Table(ctypes.Structure):
    _fields_ = [("header", Header), ("allocator", ALLOCATOR), ("from_py", FROM_PY), ("to_py", TO_PY),
                ("dltensor_from_py", DLTENSOR_FROM_PY), ("work_stream", WORK_STREAM)]


def _fails(*args):  # returns -1 and sets no Python error, as any ctypes-built producer does
    return -1


def _no_stream(device_type, device_id, out):
    out[0] = None
    return 0


_KEEP = []  # ctypes callbacks and tables must outlive the types that publish them


def table(**overrides):
    t = Table()
    t.header.major, t.header.minor = 1, 3
    t.allocator, t.from_py, t.to_py = ALLOCATOR(_fails), FROM_PY(_fails), TO_PY(_fails)
    t.dltensor_from_py, t.work_stream = DLTENSOR_FROM_PY(_fails), WORK_STREAM(_no_stream)
    for name, value in overrides.items():
        setattr(t, name, value)
    _KEEP.append(t)
    return t


def capsule(address: int):
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    name = ctypes.create_string_buffer(b"dlpack_exchange_api")
    _KEEP.append(name)
    return new(address, ctypes.cast(name, ctypes.c_char_p), None)


def producer(api):
    """An instance of a fresh type publishing `api` as its __dlpack_c_exchange_api__."""
    return type("Producer", (), {"__dlpack_c_exchange_api__": api})()


def both_imports(obj):
    """The two consumer paths: the Python import (owned export) and the C API (borrowed export)."""
    return [lambda: cubridge.as_cuda_array(obj), lambda: cubridge._core._c_import(obj)]


@pytest.mark.parametrize("api, message", [
    (12345, r"Producer.__dlpack_c_exchange_api__: the table at 0x3039 is not readable memory"),
    (-5, r"is not readable memory"),
    ("table", r"a str; expected a capsule named 'dlpack_exchange_api'"),
], ids=["int-address", "negative-int", "str"])
def test_a_table_that_is_not_a_table_is_refused_by_name(api, message):
    for imp in both_imports(producer(api)):
        with pytest.raises(ValueError, match=message):
            imp()


def test_a_capsule_with_another_name_is_refused():
    t = table()
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    wrong = new(ctypes.addressof(t), b"not_dlpack", None)
    with pytest.raises(ValueError, match=r"a capsule named 'not_dlpack'; expected one named 'dlpack_exchange_api'"):
        cubridge.as_cuda_array(producer(wrong))


@pytest.mark.parametrize("field, name", [("allocator", "managed_tensor_allocator"),
                                         ("from_py", "managed_tensor_from_py_object_no_sync"),
                                         ("to_py", "managed_tensor_to_py_object_no_sync"),
                                         ("work_stream", "current_work_stream")])
def test_null_function_pointers_are_named(field, name):
    t = table()
    ctypes.memset(ctypes.addressof(t) + getattr(Table, field).offset, 0, ctypes.sizeof(ctypes.c_void_p))
    for imp in both_imports(producer(capsule(ctypes.addressof(t)))):
        with pytest.raises(ValueError, match=f"{name} is NULL"):
            imp()


def test_a_prev_api_chain_that_loops_is_refused_not_followed_forever():
    a, b = Header(2, 0), Header(2, 0)
    a.prev_api, b.prev_api = ctypes.pointer(b), ctypes.pointer(a)
    _KEEP.extend([a, b])
    with pytest.raises(ValueError, match=r"the prev_api chain loops"):
        cubridge.as_cuda_array(producer(capsule(ctypes.addressof(a))))


def test_a_chain_without_major_version_1_falls_back_to_the_other_protocols():
    old = Header(0, 9)
    _KEEP.append(old)
    with pytest.raises(TypeError, match="not a GPU array"):  # no table, no CAI, no __dlpack__
        cubridge.as_cuda_array(producer(capsule(ctypes.addressof(old))))


def test_a_function_failing_without_a_python_error_becomes_one():
    obj = producer(capsule(ctypes.addressof(table())))
    with pytest.raises(RuntimeError, match=r"managed_tensor_from_py_object_no_sync returned -1 without setting"):
        cubridge.as_cuda_array(obj)
    with pytest.raises(RuntimeError, match=r"dltensor_from_py_object_no_sync returned -1 without setting"):
        cubridge._core._c_import(obj)


def _borrowing(shape, ndim=None, shape_is_null=False, strides=None, dtype=(2, 32, 1)):
    """A producer whose borrowed export (dltensor_from_py_object_no_sync) describes this tensor; `dtype` is its
    DLPack (code, bits, lanes)."""
    dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
    steps = (ctypes.c_int64 * len(strides))(*strides) if strides else None
    _KEEP.extend([dims, steps])

    def export(obj, out):
        t = out[0]
        t.data = 0x10000
        t.device = DLDevice(2, 0)
        t.ndim = len(shape) if ndim is None else ndim
        t.dtype = DLDataType(*dtype)
        t.shape = ctypes.cast(None if shape_is_null else dims, ctypes.POINTER(ctypes.c_int64))
        t.strides = ctypes.cast(steps, ctypes.POINTER(ctypes.c_int64)) if steps else None
        t.byte_offset = 0
        return 0

    return producer(capsule(ctypes.addressof(table(dltensor_from_py=DLTENSOR_FROM_PY(export)))))


@pytest.mark.parametrize("kw, message", [
    (dict(shape=(), ndim=8, shape_is_null=True), r"ndim 8 with no shape array \(shape is NULL\) is malformed"),
    (dict(shape=(-5, 2**62)), r"shape\[0\] is -5 \(extents must be >= 0\)"),
    (dict(shape=(2**62, 4)), r"the shape's size in bytes overflows 64 bits"),
    (dict(shape=(4, 4), strides=(2**62, 1)), r"stride 4611686018427387904 of axis 0 overflows 64 bits in bytes"),
    (dict(shape=(1,) * 40), r"ndim 40 is outside 0..32"),
], ids=["ndim8-null-shape", "negative-extent", "size-overflow", "stride-overflow", "too-many-dims"])
def test_the_c_api_checks_a_borrowed_tensor_as_from_dlpack_does(kw, message):
    with pytest.raises(ValueError, match=r"cubridge array C API: " + message):
        cubridge._core._c_import(_borrowing(**kw))


def test_the_c_api_reads_each_borrowed_tensors_dtype_when_dtypes_alternate():
    # The C API keeps the last DLPack dtype it converted: tensors of other dtypes, one after another and back again,
    # each get their own typestr, itemsize and byte strides; a refused dtype leaves the next import right; and a
    # tensor of the dtype seen last is still checked whole.
    cases = [((2, 32, 1), "<f4", 4), ((2, 64, 1), "<f8", 8), ((0, 8, 1), "|i1", 1), ((1, 16, 1), "<u2", 2),
             ((6, 8, 1), "|b1", 1), ((5, 64, 1), "<c8", 8), ((4, 16, 1), "<V2", 2), ((2, 32, 1), "<f4", 4)]
    for _ in range(2):
        for dtype, typestr, itemsize in cases:
            c = cubridge._core._c_import(_borrowing((5, 3), strides=(1, 5), dtype=dtype))
            assert (c["typestr"], c["itemsize"]) == (typestr, itemsize), dtype
            assert c["shape"] == (5, 3) and c["strides"] == (itemsize, 5 * itemsize), dtype
    with pytest.raises(ValueError, match="lanes"):
        cubridge._core._c_import(_borrowing((4,), dtype=(2, 32, 4)))
    assert cubridge._core._c_import(_borrowing((4,), dtype=(2, 64, 1)))["typestr"] == "<f8"
    with pytest.raises(ValueError, match=r"shape\[0\] is -5"):  # the dtype seen last: the layout still checked
        cubridge._core._c_import(_borrowing((-5,), dtype=(2, 64, 1)))


def test_publishing_types_are_not_pinned_forever():
    t = capsule(ctypes.addressof(table()))
    refs = []
    for _ in range(200):
        obj = producer(t)
        with pytest.raises(RuntimeError):
            cubridge.as_cuda_array(obj)
        refs.append(weakref.ref(type(obj)))
        del obj
    gc.collect()
    alive = sum(r() is not None for r in refs)
    assert alive <= 64, f"{alive} of 200 publishing types are still alive: the table cache pins them"


# ---- CAI dicts that recurse, mutate themselves or overflow -------------------------------------------

PTR, _PTR_KEEP = described_address()


def cai(**over):
    d = {"shape": (2, 3), "typestr": "<f4", "data": (PTR, False), "version": 3, "strides": None, "stream": None}
    d.update(over)
    return d


class ClearsItsList:
    """An extent whose __index__ empties the list holding it (the list's item array is freed mid-read)."""

    def __init__(self, owner: list, value: int):
        self.owner, self.value = owner, value

    def __index__(self):
        self.owner.clear()
        self.owner.extend(range(1000))  # reallocate, so a stale item pointer reads freed memory
        return self.value


@pytest.mark.parametrize("key", ["shape", "strides"])
def test_an_extent_that_mutates_its_list_is_read_from_a_copy(key):
    values = [2, 3] if key == "shape" else [12, 4]
    values[0] = ClearsItsList(values, values[0])
    a = cubridge.from_cuda_array_interface(cai(**{key: values}))
    assert (a.shape, a.strides) == ((2, 3), (12, 4))


def test_a_descr_extent_that_mutates_its_list_is_read_from_a_copy():
    extents = [0, 2]
    extents[0] = ClearsItsList(extents, 1)
    fields = [("a", "<f4", extents)]
    a = cubridge.from_cuda_array_interface(cai(typestr="|V8", descr=fields))
    assert a.itemsize == 8


def test_a_mask_whose_interface_names_itself_is_refused():
    class Masked:
        pass

    m = Masked()
    m.__cuda_array_interface__ = cai(mask=m)
    with pytest.raises(ValueError, match=r"\['mask'\]: the mask's own interface has a 'mask'"):
        cubridge.from_cuda_array_interface(cai(mask=m))


def test_descr_nested_100k_deep_is_refused_at_the_depth_limit():
    d = [("a", "<f4")]
    for _ in range(100_000):
        d = [("x", d)]
    with pytest.raises(ValueError, match=r"descr lists nest more than 32 deep"):
        cubridge.from_cuda_array_interface(cai(typestr="|V4", descr=d))


def test_a_descr_list_that_contains_itself_is_refused():
    d = []
    d.append(("x", d))
    with pytest.raises(ValueError, match=r"descr lists nest more than 32 deep \(or the list contains itself\)"):
        cubridge.from_cuda_array_interface(cai(typestr="|V4", descr=d))


def test_descr_sizes_that_overflow_64_bits_are_refused():
    with pytest.raises(ValueError, match=r"\['descr'\]\[0\]: the size in bytes overflows 64 bits"):
        cubridge.from_cuda_array_interface(cai(typestr="|V8", descr=[("a", "<f4", (2**61 + 1, 8))]))
    with pytest.raises(ValueError, match=r"\['descr'\]: the size in bytes overflows 64 bits"):
        cubridge.from_cuda_array_interface(cai(typestr="|V8", descr=[("a", "<f8", 2**59), ("b", "<f8", 2**59)]))


# ---- objects shared across threads -------------------------------------------------------------------

def test_linking_while_another_thread_adds_inputs_is_safe():
    def f(x):
        return x + 1.0

    lto, _ = cubridge.compile(f, "float32(float32)", cc=(9, 0), output="ltoir", abi_info={"abi_name": "g"})
    linker = cubridge.Linker((9, 0)).add_ltoir(lto, "g.ltoir")
    errors, done = [], threading.Event()

    def add_forever():
        i = 0
        while not done.is_set() and i < 2000:
            linker.add_ltoir(lto, f"again{i}.ltoir")  # the vector of inputs grows (and moves) under a link
            i += 1

    adder = threading.Thread(target=add_forever)
    adder.start()
    try:
        for _ in range(10):
            try:
                linker.link_ptx()
            except Exception as e:  # noqa: BLE001 - a link error is fine; a crash is not
                errors.append(e)
    finally:
        done.set()
        adder.join()
    assert linker.input_count >= 1
    assert all(isinstance(e, cubridge.LinkError) for e in errors), errors  # duplicate symbols, never a crash


# ---- slicing with extreme bounds and steps: Python's lengths, no overflow ------------------------------

def test_slices_with_huge_steps_and_bounds_have_pythons_lengths():
    import itertools
    import sys
    big = [None, 0, 1, -1, 3, -3, 7, sys.maxsize, -sys.maxsize, -sys.maxsize - 1, 2**70, -2**70]
    steps = [None, 1, 2, -1, -2, 3, sys.maxsize, -sys.maxsize, 2**70, -2**70]
    for n in (0, 1, 5):
        a = cubridge.from_cuda_array_interface(cai(shape=(n,)))
        for start, stop, step in itertools.product(big, big, steps):
            k = slice(start, stop, step)
            assert a[k].shape == (len(range(n)[k]),), (n, k)


# ---- unclear errors made clear -------------------------------------------------------------------------

class UnprintableRepr:
    def __repr__(self):
        return "\udcff"  # a lone surrogate: not encodable as UTF-8


def test_values_whose_repr_cannot_be_encoded_still_give_a_message():
    a = cubridge.from_cuda_array_interface(cai())
    with pytest.raises(TypeError, match=r"from_dlpack: stream: <unprintable> is not a stream"):
        cubridge.from_dlpack(a, stream=UnprintableRepr())
    with pytest.raises(TypeError, match=r"IpcHandle: base must be None or the MemoryPointer it was exported "
                                        r"from, got <unprintable> \(UnprintableRepr\)"):
        cubridge.IpcHandle(UnprintableRepr(), b"x" * 64, 10)


@pytest.mark.parametrize("source_info, shown", [(123, r"123 \(int\)"), ("abc", r"'abc' \(str\)")])
def test_ipc_handle_source_info_of_the_wrong_type_is_named(source_info, shown):
    with pytest.raises(TypeError, match=r"IpcHandle: source_info must be None or the 16 bytes of a device UUID, "
                                        r"got " + shown):
        cubridge.IpcHandle(None, b"x" * 64, 10, source_info=source_info)


def test_a_context_of_the_wrong_type_is_named():
    with pytest.raises(TypeError, match=r"context must be None or a cubridge Context, got 3 \(int\)"):
        cubridge.MemoryPointer(3, 0x1000, 10)


@pytest.mark.parametrize("text, shown", [("void(float32[:]\x00, int32)", r"'void\(float32\[:\]\\x00, int32\)'"),
                                         ("void(flo\x01at32)", r"'void\(flo\\x01at32\)'")])
def test_signatures_with_control_characters_are_shown_whole(text, shown):
    with pytest.raises(ValueError, match=r"kernel signature " + shown):
        cubridge.KernelSignature(text)


def test_compile_signatures_with_a_nul_are_shown_whole():
    def f(x):
        return x

    with pytest.raises(ValueError, match=r"signature 'float32\(float32\\x00\)': unknown argument type 'float32\\x00'"):
        cubridge.compile(f, "float32(float32\x00)")


# ---- XLA opaque bytes with names that are not UTF-8 -----------------------------------------------------

def _opaque_int_entries(*names):
    import struct
    body = b"".join(bytes([1, len(n)]) + n + struct.pack("<q", i) for i, n in enumerate(names))
    return b"CBXO" + struct.pack("<BBH", 1, 0, len(names)) + body


def test_opaque_names_that_are_not_utf8_stay_distinct_and_round_trip():
    import cubridge.xla as cx
    data = _opaque_int_entries(b"\xff", b"\xfe")
    decoded = cx.decode_opaque(data)
    assert len(decoded) == cx.validate_opaque(data) == 2  # was {'\ufffd': 1}: two entries merged into one
    assert cx.encode_opaque(decoded) == data


def test_opaque_errors_quoting_non_utf8_names_are_readable():
    import cubridge.xla as cx
    with pytest.raises(ValueError, match=r"opaque: malformed at byte 19: entry '\\xff' appears twice"):
        cx.validate_opaque(_opaque_int_entries(b"\xff", b"\xff"))  # was a UnicodeDecodeError


def test_distinct_descrs_do_not_grow_the_dtype_cache_forever():
    pytest.importorskip("numpy")
    from cubridge import _arrays
    for i in range(1000):
        a = cubridge.from_cuda_array_interface(cai(typestr="|V4", descr=[(f"f{i}", "<f4")]))
        assert a.dtype.names == (f"f{i}",)
    assert len(_arrays._DTYPES) <= _arrays._MAX_DTYPES
