"""The one import (python/src/py_import.hpp): the route decided per Python type (its cache holds no type
alive and follows a type that changes), and CuPy's attribute path proved equal to the CAI path on a fake
CuPy type whose `__cuda_array_interface__` follows CuPy's export rule (version, stream, empty data,
strides None when C-contiguous). Runs without a GPU (fake addresses; no driver, so no pointer check) and on
one (addresses inside a real allocation, which the driver's pointer check accepts); the same comparison on
real CuPy arrays is in test_arrays_import_gpu.py.
"""
import gc
import sys
import types
import weakref

import numpy as np
import pytest

import cubridge
from conftest import described_address


BASE, _BUFFER = described_address()  # nothing dereferences it here


# ---- the route per type -------------------------------------------------------------------------------

def test_routes_of_ours_an_exchange_type_and_the_rest():
    ours = cubridge.from_cuda_array_interface({"shape": (3,), "typestr": "<f4", "data": (BASE, False),
                                                "version": 3})

    class Exchange:
        __dlpack_c_exchange_api__ = 12345

    assert cubridge._core._import_route(ours) == "ours"
    assert cubridge._core._import_route(Exchange()) == "exchange"
    assert cubridge._core._import_route(object()) == "attributes"
    assert cubridge._core._import_route(np.zeros(3)) == "attributes"


def test_the_route_follows_a_type_that_changes():
    class Later:
        pass

    assert cubridge._core._import_route(Later()) == "attributes"  # decided and cached
    Later.__dlpack_c_exchange_api__ = 12345  # changing the type clears its version tag
    assert cubridge._core._import_route(Later()) == "exchange"
    del Later.__dlpack_c_exchange_api__
    assert cubridge._core._import_route(Later()) == "attributes"


def test_the_route_cache_keeps_no_type_alive_and_is_bounded():
    refs = []
    for i in range(100):  # more types than the cache has entries
        cls = type(f"T{i}", (), {"__dlpack_c_exchange_api__": i} if i % 2 else {})
        before = sys.getrefcount(cls)
        assert cubridge._core._import_route(cls()) == ("exchange" if i % 2 else "attributes")
        assert sys.getrefcount(cls) == before
        refs.append(weakref.ref(cls))
        del cls
    gc.collect()
    assert all(r() is None for r in refs)
    # A new type at a freed type's address is decided afresh (its version tag is new).
    for i in range(100):
        cls = type(f"U{i}", (), {} if i % 2 else {"__dlpack_c_exchange_api__": i})
        assert cubridge._core._import_route(cls()) == ("attributes" if i % 2 else "exchange")


# ---- CuPy's attribute path against its CAI ----------------------------------------------------------

class FakeMemoryPointer:
    def __init__(self, ptr):
        self.ptr = ptr


class FakeCupy:
    """CuPy's ndarray as the attribute path reads it, with CuPy's own export rule as its CAI."""

    def __init__(self, shape, dtype, strides=None, ptr=BASE, state=None):
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)
        c = np.empty(0, self.dtype).itemsize
        cs = []
        for n in reversed(self.shape):
            cs.insert(0, c)
            c *= n
        self.strides = tuple(strides) if strides is not None else tuple(cs)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        live = [i for i, n in enumerate(self.shape) if n != 1]
        self._c_contiguous = self.size == 0 or all(self.strides[i] == cs[i] for i in live)
        self.data = FakeMemoryPointer(ptr)
        self._state = state

    @property
    def __cuda_array_interface__(self):
        s = self._state
        d = {"shape": self.shape, "typestr": self.dtype.str, "descr": self.dtype.descr}
        ver = s.util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION
        if ver == 3:
            p = s.current_stream().ptr
            d["stream"] = p if p != 0 else s.default_stream_ptr()
        elif ver != 2:
            raise ValueError("CUPY_CUDA_ARRAY_INTERFACE_EXPORT_VERSION can only be set to 3 (default) or 2")
        d["version"] = ver
        d["strides"] = None if self._c_contiguous else self.strides
        d["data"] = (self.data.ptr if self.size > 0 else 0, False)
        return d


class CupyState:
    """The module state CuPy's export reads: the export version and the current / default stream."""

    def __init__(self, version=3, current=0, default=1):
        self.util = types.SimpleNamespace(CUDA_ARRAY_INTERFACE_EXPORT_VERSION=version)
        self.current = current
        self.default = default

    def current_stream(self):
        return types.SimpleNamespace(ptr=self.current)

    def default_stream_ptr(self):
        return self.default


def install_fake_cupy(util, state):
    """Registers modules named like CuPy's (cupy, its stream modules, `util` as cupy._util) over `state`, for a
    child process that has not shown cubridge CuPy yet (it resolves CuPy's names once); returns the `cupy` module,
    whose ndarray is CuPy's own type to cubridge."""
    cupy = types.ModuleType("cupy")
    cupy.ndarray = type("ndarray", (FakeCupy,), {})
    cuda_stream = types.ModuleType("cupy.cuda.stream")
    cuda_stream.get_current_stream = state.current_stream
    backend_stream = types.ModuleType("cupy_backends.cuda.stream")
    backend_stream.get_default_stream_ptr = state.default_stream_ptr
    for name, mod in [("cupy", cupy), ("cupy._util", util), ("cupy.cuda", types.ModuleType("cupy.cuda")),
                      ("cupy.cuda.stream", cuda_stream), ("cupy_backends", types.ModuleType("cupy_backends")),
                      ("cupy_backends.cuda", types.ModuleType("cupy_backends.cuda")),
                      ("cupy_backends.cuda.stream", backend_stream)]:
        sys.modules[name] = mod
    state.util = util
    return cupy


def facts(a):
    """Everything a consumer reads from an imported array, export included."""
    cai = a.__cuda_array_interface__
    return {"ptr": a.ptr, "shape": a.shape, "strides": a.strides, "typestr": a.typestr, "readonly": a.readonly,
            "sync": a.sync, "stream": cai["stream"], "cai_strides": cai["strides"], "data": cai["data"],
            "device": a.device_id, "base": a.base}


def both_paths(obj, state, sync=None):
    fast = cubridge._core._cupy_view(obj, state.util, state.current_stream, state.default_stream_ptr, sync)
    slow = cubridge.from_cuda_array_interface(obj.__cuda_array_interface__, obj, sync)
    return fast, slow


CASES = {
    "1-d float32": ((32,), "f4", None),
    "2-d C float64": ((3, 4), "f8", None),
    "2-d F int16": ((3, 4), "i2", (2, 6)),
    "sliced every other": ((5,), "f4", (8,)),
    "negative stride": ((4,), "i4", (-4,)),
    "extent of 1 with any stride": ((1, 4), "u1", (999, 1)),
    "3-d transposed complex64": ((2, 3, 4), "c8", (8, 16, 48)),
    "bool": ((7,), "?", None),
    "float16": ((2, 2), "f2", None),
    "uint64": ((3,), "u8", None),
    "0-d": ((), "f4", None),
    "empty": ((0,), "f4", None),
    "empty 2-d": ((4, 0), "i8", None),
    "big-endian": ((3,), ">f4", None),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("stream", [(3, 0, 1), (3, 0, 2), (3, 0xABC000, 1), (2, 0xABC000, 1)],
                         ids=["v3 null stream", "v3 null stream per-thread", "v3 own stream", "v2 no stream"])
@pytest.mark.parametrize("sync", [None, False])
def test_cupy_path_equals_the_cai_path(case, stream, sync):
    shape, dtype, strides = CASES[case]
    state = CupyState(*stream)
    obj = FakeCupy(shape, dtype, strides, state=state)
    fast, slow = both_paths(obj, state, sync)
    assert fast is not None
    assert facts(fast) == facts(slow)


def test_cupy_path_declines_what_only_the_dict_says():
    state = CupyState()
    rec = FakeCupy((3,), np.dtype([("x", "<f4"), ("y", "<i4")]), state=state)
    assert cubridge._core._cupy_view(rec, state.util, state.current_stream, state.default_stream_ptr) is None
    for bad_version in (1, 4, "3"):
        state = CupyState(version=bad_version)
        obj = FakeCupy((3,), "f4", state=state)
        assert cubridge._core._cupy_view(obj, state.util, state.current_stream, state.default_stream_ptr) is None


def test_cupy_path_raises_as_the_cai_path_does():
    state = CupyState()
    obj = FakeCupy((3, -1), "f4", state=state)  # a shape no CuPy array has; the array layer refuses it
    with pytest.raises(ValueError) as fast:
        cubridge._core._cupy_view(obj, state.util, state.current_stream, state.default_stream_ptr)
    with pytest.raises(ValueError) as slow:
        cubridge.from_cuda_array_interface(obj.__cuda_array_interface__, obj)
    assert str(fast.value) == str(slow.value)
    obj = FakeCupy((3,), "f4", state=state)
    obj.dtype = np.dtype("O")  # an object dtype: the typestr rule of the array layer refuses it
    with pytest.raises(ValueError, match=r"'\|O' is not a valid typestr") as fast:
        cubridge._core._cupy_view(obj, state.util, state.current_stream, state.default_stream_ptr)
    with pytest.raises(ValueError) as slow:
        cubridge.from_cuda_array_interface(obj.__cuda_array_interface__, obj)
    assert str(fast.value) == str(slow.value)


@pytest.mark.parametrize("field", ["ptr", "stream"])
def test_cupy_path_leaves_negative_values_to_the_cai_path(field):
    state = CupyState(current=-5 if field == "stream" else 0)
    obj = FakeCupy((3,), "f4", ptr=-4096 if field == "ptr" else BASE, state=state)
    assert cubridge._core._cupy_view(obj, state.util, state.current_stream, state.default_stream_ptr) is None
    with pytest.raises(ValueError, match="not a valid pointer" if field == "ptr" else "is negative"):
        cubridge.from_cuda_array_interface(obj.__cuda_array_interface__, obj)


def test_a_raising_stream_getter_propagates():
    state = CupyState()

    def broken():
        raise RuntimeError("no current stream")  # as a getter CuPy calls could fail

    obj = FakeCupy((3,), "f4", state=state)
    with pytest.raises(RuntimeError, match="no current stream"):
        cubridge._core._cupy_view(obj, state.util, broken, state.default_stream_ptr)


# ---- CuPy's fields read from the object (py_cupy_layout.hpp) against its attributes -------------------

def real_cupy():
    """CuPy itself (it imports, and builds arrays over made-up addresses, without a GPU), or a skip."""
    try:
        import cupy
        from cupy.cuda import memory
    except Exception as e:  # noqa: BLE001 - any import failure means "not available here"
        pytest.skip(f"cupy is not importable: {e}")
    return cupy, memory


def cupy_array(shape, dtype, strides=None, ptr=BASE):
    """A real cupy.ndarray over UnownedMemory at `ptr`: nothing allocated, nothing read."""
    cupy, memory = real_cupy()
    return cupy.ndarray(shape, dtype, memory.MemoryPointer(memory.UnownedMemory(ptr, 1 << 30, None, 0), 0), strides)


def both_readers(a, state):
    by_fields = cubridge._core._cupy_view(a, state.util, state.current_stream, state.default_stream_ptr,
                                          from_object=True)
    by_attributes = cubridge._core._cupy_view(a, state.util, state.current_stream, state.default_stream_ptr)
    return by_fields, by_attributes


def test_this_process_learnt_where_cupy_keeps_an_arrays_facts():
    real_cupy()
    cubridge._core._import_route(cupy_array((2,), "f4"))  # CuPy's facts are resolved at its first array
    reader = cubridge._core._cupy_reader()
    assert reader is not None and reader["layout"] is not None, reader
    offsets = reader["layout"]
    assert len({offsets[k] for k in ("shape", "strides", "dtype", "data")}) == 4  # four distinct fields
    assert reader["stream_functions"] is True


REAL_CASES = {name: case for name, case in CASES.items() if name != "big-endian"}  # CuPy has native order only


@pytest.mark.parametrize("case", REAL_CASES)
@pytest.mark.parametrize("stream", [(3, 0, 1), (3, 0xABC000, 1), (2, 0, 1)], ids=["v3 null", "v3 own", "v2"])
def test_cupy_fields_read_from_the_object_equal_the_attributes(case, stream):
    shape, dtype, strides = CASES[case]
    a = cupy_array(shape, dtype, strides)
    by_fields, by_attributes = both_readers(a, CupyState(*stream))
    assert by_fields is not None
    assert facts(by_fields) == facts(by_attributes)


def test_cupy_views_and_reshapes_in_place_are_read_as_they_are_now():
    a = cupy_array((4, 6), "f8")
    state = CupyState()
    for v in (a[1:, ::2], a.T, a[::-1], a[2], a.reshape(2, 12), a.view("i4")):
        by_fields, by_attributes = both_readers(v, state)
        assert facts(by_fields) == facts(by_attributes)
    a.shape = (3, 8)  # CuPy changes the array's own shape vector: the next read sees it
    by_fields, by_attributes = both_readers(a, state)
    assert by_fields.shape == (3, 8) and facts(by_fields) == facts(by_attributes)


def memo_counts():
    return cubridge._core._import_memo()


def test_a_cupy_array_imported_again_is_the_remembered_view_until_a_fact_changes():
    a = cupy_array((4, 6), "f8")
    state = CupyState()
    first, _ = both_readers(a, state)
    before = memo_counts()
    again, _ = both_readers(a, state)
    assert memo_counts()["hits"] == before["hits"] + 1
    assert facts(again) == facts(first)
    # Each fact the view is made from, changed, is a miss that makes the view afresh.
    a.shape = (6, 4)
    by_fields, by_attributes = both_readers(a, state)
    assert by_fields.shape == (6, 4) and facts(by_fields) == facts(by_attributes)
    other_stream = CupyState(current=0xABC000)
    by_fields, by_attributes = both_readers(a, other_stream)
    assert facts(by_fields)["stream"] == 0xABC000 and facts(by_fields) == facts(by_attributes)
    for sync in (False, None):
        by_fields = cubridge._core._cupy_view(a, state.util, state.current_stream, state.default_stream_ptr, sync,
                                              from_object=True)
        assert by_fields.sync == (sync is None)


def test_a_launchs_many_arrays_keep_their_views_side_by_side():
    """A launch imports its arrays in turn: each must find its own view again at the next launch, not evict
    another's (the memo's sets are 4-way: 12 arrays meet 5 to a set about once in 20,000 address draws)."""
    state = CupyState()
    arrays = [cupy_array((8,), "f4", ptr=BASE + 256 * i) for i in range(12)]
    for a in arrays:
        both_readers(a, state)
    before = memo_counts()
    for a in arrays:
        both_readers(a, state)
    after = memo_counts()
    assert after["hits"] - before["hits"] == 12 and after["kept"] == before["kept"]


def test_views_a_launch_borrows_are_never_replaced_while_it_runs():
    """A launch borrows the memo's views (no count per array): while its pins live, more arrays than the memo
    has slots are each read right, the views handed out stay as they were, and the ones that found no free
    way are not kept; after the launch the memo takes new views again."""
    state = CupyState()
    arrays = [cupy_array((i % 7 + 1,), "f4", ptr=BASE + 256 * i) for i in range(300)]

    def one_launch():
        views = []
        before = memo_counts()
        for a in arrays:
            by_fields, by_attributes = both_readers(a, state)
            assert facts(by_fields) == facts(by_attributes)
            views.append(by_fields)
        kept = memo_counts()["kept"] - before["kept"]
        # Every array's view is still its own after the others were imported (each by_fields is a copy
        # made at once; the pinned ones must also still be found again).
        hits_before = memo_counts()["hits"]
        for a, v in zip(arrays, views):
            again, _ = both_readers(a, state)
            assert facts(again) == facts(v)
        return kept, memo_counts()["hits"] - hits_before

    kept, hits = cubridge._core._with_memo_pins(one_launch)
    assert kept <= 256  # the slots; nothing pinned was replaced to keep more
    assert hits == kept  # each kept view is found again; those not kept were made afresh
    kept_after, _ = one_launch()  # no pins: the memo replaces views again
    assert kept_after > 0


def test_a_new_cupy_array_at_a_freed_arrays_address_gets_its_own_view():
    state = CupyState()
    for shape, dtype in (((8,), "f4"), ((2, 4), "i4"), ((8,), "f8"), ((3,), "c8")):
        a = cupy_array(shape, dtype)  # often at the address the last one was freed from
        by_fields, by_attributes = both_readers(a, state)
        assert facts(by_fields) == facts(by_attributes)
        del a, by_fields, by_attributes
        gc.collect()


def test_reading_from_the_object_needs_a_cupy_array():
    state = CupyState()
    real_cupy()
    with pytest.raises(ValueError, match="from_object needs a cupy.ndarray"):
        cubridge._core._cupy_view(FakeCupy((3,), "f4", state=state), state.util, state.current_stream,
                                  state.default_stream_ptr, from_object=True)


# ---- typeof through the one import -------------------------------------------------------------------

@pytest.mark.parametrize("shape,strides,want", [((3, 4), None, "float32[:, ::1]"), ((3, 4), (4, 12), "float32[::1, :]"),
                                                ((3, 4), (32, 8), "float32[:, :]"), ((5,), None, "float32[::1]")])
def test_typeof_of_a_cai_array_is_decided_in_cpp(shape, strides, want):
    class Cai:
        __cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "data": (BASE, True), "version": 3,
                                    "strides": strides}

    assert cubridge._core._array_param(Cai()) == "const " + want
    assert cubridge.typeof(Cai()) == "const " + want


def test_typeof_leaves_host_arrays_and_records_to_python():
    assert cubridge._core._array_param(np.zeros(3, np.float32)) is None
    assert cubridge._core._array_param(3) is None

    class Records:
        __cuda_array_interface__ = {"shape": (3,), "typestr": "|V8", "data": (BASE, False), "version": 3,
                                    "descr": [("x", "<f4"), ("y", "<i4")]}

    assert cubridge._core._array_param(Records()) is None
    # a 0-d GPU array is numba's 0-d array
    assert cubridge._core._array_param(cubridge.from_cuda_array_interface(
        {"shape": (), "typestr": "<f4", "data": (BASE, False), "version": 3})) == "array(float32, 0d, C)"


# ---- the route to CuPy's path, with a stand-in `cupy` package (in a child process: the CuPy facts are
# resolved once per process, and the real CuPy may be imported by other tests of this one) -------------

CHILD = r"""
import sys, types
import numpy as np
sys.path[:0] = [{here!r}, {root!r}]  # this file, and conftest.py
from test_arrays_import import FakeCupy, CupyState, facts, install_fake_cupy, BASE

state = CupyState(current=0xABC000)
util = types.ModuleType("cupy._util")
util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION = 3
cupy = install_fake_cupy(util, state)

import cubridge
a = cupy.ndarray((3, 4), "f4", (4, 12), state=state)
assert cubridge._core._import_route(a) == "cupy", cubridge._core._import_route(a)
assert cubridge._core._import_route(FakeCupy((3,), "f4", state=state)) == "attributes"  # a subclass is not CuPy's type
fast = cubridge.as_cuda_array(a)
slow = cubridge.from_cuda_array_interface(a.__cuda_array_interface__, a)
assert facts(fast) == facts(slow), (facts(fast), facts(slow))
assert fast.__cuda_array_interface__["stream"] == 0xABC000
a.__class__.__cuda_array_interface__ = property(lambda self: (_ for _ in ()).throw(AssertionError("CAI read")))
assert cubridge._core._array_param(a) == "float32[::1, :]"  # typeof took CuPy's path, not the CAI
util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION = 2
assert cubridge.as_cuda_array(a).__cuda_array_interface__["stream"] is None
# the export version is read again after every change of CuPy's module (its dict's version tag)
for _ in range(2):
    util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION = 3
    assert cubridge.as_cuda_array(a).__cuda_array_interface__["stream"] == 0xABC000
    util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION = 4  # one CuPy refuses: the CAI is read, which says so
    try:
        cubridge.as_cuda_array(a)
        raise SystemExit("version 4 read without the CAI")
    except AssertionError as e:
        assert str(e) == "CAI read", e
    util.other_global = object()  # another change of the module: the version is read again, unchanged
    util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION = 2
    assert cubridge.as_cuda_array(a).__cuda_array_interface__["stream"] is None
print("ok")
"""


# CuPy's export version where its module answers without its dict (a module __getattr__, a module subclass's
# property): read at every import, never remembered by the dict's version tag.
CHILD_ANSWERED = r"""
import sys, types
sys.path[:0] = [{here!r}, {root!r}]
from test_arrays_import import CupyState, install_fake_cupy
state = CupyState(current=0xABC000)
box = {{"v": 3}}
if {kind!r} == "getattr":
    util = types.ModuleType("cupy._util")
    util.__getattr__ = lambda name: box["v"] if name == "CUDA_ARRAY_INTERFACE_EXPORT_VERSION" else getattr(None, name)
else:
    class Util(types.ModuleType):
        CUDA_ARRAY_INTERFACE_EXPORT_VERSION = property(lambda self: box["v"])
    util = Util("cupy._util")
cupy = install_fake_cupy(util, state)
import cubridge
a = cupy.ndarray((3, 4), "f4", (4, 12), state=state)
for v, stream in [(3, 0xABC000), (2, None), (3, 0xABC000)]:
    box["v"] = v
    assert cubridge.as_cuda_array(a).__cuda_array_interface__["stream"] == stream, (v, stream)
print("ok")
"""


@pytest.mark.parametrize("kind", ["getattr", "subclass"])
def test_cupys_export_version_answered_without_its_dict_is_read_each_time(kind):
    import os
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    child = CHILD_ANSWERED.format(here=here, root=os.path.dirname(here), kind=kind)
    r = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                       env=dict(os.environ, CUBRIDGE_LIBCUDA="/nonexistent/libcuda.so"))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_cupys_own_type_takes_the_attribute_path(tmp_path):
    import os
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    child = CHILD.format(here=here, root=os.path.dirname(here))
    r = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                       env=dict(os.environ, CUBRIDGE_LIBCUDA="/nonexistent/libcuda.so"))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
