"""numba-cuda's launch-argument extensions on @cubridge.jit kernels (cubridge._launch_extensions; rules in its
docstring), compile-only: the loaded kernel is replaced by a recorder, so what reaches the launch is checked
without a GPU (test_dispatcher_extensions_gpu.py runs them on the device against numba-cuda)."""
import numpy as np
import pytest

import cubridge
from cubridge import _launch_extensions
from cubridge._launch_extensions import ExtendedLaunch

# numba.cuda may be imported by other tests: its low-occupancy warning is then on for these small grids
pytestmark = pytest.mark.filterwarnings("ignore::cubridge.PerformanceWarning")


def set_to_three(arr):
    arr[0] = 3


class Recorder:
    """Stands in for the loaded kernel: records the configuration and the arguments of each launch."""

    def __init__(self):
        self.launches = []

    def __getitem__(self, config):
        return lambda *args: self.launches.append((config, args))

    def forall(self, ntasks, stream, sharedmem):
        return lambda *args: self.launches.append((("forall", ntasks, stream), args))


def recorded(d):
    rec = Recorder()
    d._kernel = lambda sig: rec  # the Dispatcher's loading step, replaced (no GPU here)
    return rec


@pytest.fixture(autouse=True)
def synchronized(monkeypatch):
    """The context synchronization before write-backs, recorded instead (no GPU here)."""
    calls = []
    monkeypatch.setattr(_launch_extensions, "_synchronize", lambda: calls.append("synchronized"))
    return calls


class Tag:
    """An extension replacing each value by (name, value) and noting what it was given."""

    def __init__(self, name, seen):
        self.name, self.seen = name, seen

    def prepare_args(self, ty, val, stream, retr):
        self.seen.append((self.name, ty, val, stream))
        retr.append(lambda: self.seen.append((self.name, "written back")))
        return ty, (self.name, val)


def test_extensions_run_last_first_then_the_write_backs_after_the_launch(monkeypatch):
    seen = []
    monkeypatch.setattr(_launch_extensions, "_synchronize", lambda: seen.append(("synchronized",)))
    d = cubridge.jit(extensions=[Tag("a", seen)])(set_to_three)
    d.extensions.append(Tag("b", seen))  # numba users add them after jit
    rec = recorded(d)
    x = np.zeros(1, np.int64)
    d[1, 1, 0, 0](x)
    assert rec.launches == [((1, 1, 0, 0), (("a", ("b", x)),))]
    assert [s[0] for s in seen] == ["b", "a", "synchronized", "b", "a"]  # the context waited for before write-backs
    assert seen[3:] == [("b", "written back"), ("a", "written back")]
    assert seen[0][3] == 0  # the launch's stream as given


def test_the_type_given_is_the_signatures_parameter_in_numbas_spelling_where_numba_is_imported():
    types = pytest.importorskip("numba.core.types")
    seen = []
    d = cubridge.jit("void(int64[::1])", extensions=[Tag("a", seen)])(set_to_three)
    recorded(d)
    d[1, 1](np.zeros(1, np.int64))
    assert seen[0][1] == types.Array(types.int64, 1, "C")


def test_forall_goes_through_the_extensions_too():
    seen = []
    d = cubridge.jit(extensions=[Tag("a", seen)])(set_to_three)
    rec = recorded(d)
    x = np.zeros(1, np.int64)
    d.forall(4, stream=7)(x)
    assert rec.launches == [(("forall", 4, 7), (("a", x),))] and seen[0][3] == 7


def test_an_argument_hint_is_typed_by_its_value_and_moved_by_its_to_device():
    args = pytest.importorskip("numba.cuda.args")

    class FakeIn(args.ArgHint):  # numba's ArgHint protocol: to_device(retr, stream) gives what is passed
        def to_device(self, retr, stream=0):
            retr.append(lambda: log.append("copied back"))
            return ("device", self.value)

    log = []

    class Wrap:
        def prepare_args(self, ty, val, stream, retr):
            return ty, FakeIn(val)

    d = cubridge.jit(extensions=[Wrap()])(set_to_three)
    rec = recorded(d)
    x = np.zeros(1, np.int64)
    d[1, 1](x)
    assert rec.launches == [((1, 1), (("device", x),))] and log == ["copied back"]

    class Keep:
        def prepare_args(self, ty, val, stream, retr):
            return ty, val

    d = cubridge.jit(extensions=[Keep()])(set_to_three)
    rec = recorded(d)
    d[1, 1](FakeIn(x))  # a hint given directly: typed by its value (int64[::1]), moved by to_device
    assert rec.launches == [((1, 1), (("device", x),))] and log == ["copied back"] * 2


def test_without_extensions_the_launch_path_is_untouched():
    d = cubridge.jit(set_to_three)
    assert d.extensions == [] and not isinstance(d[1, 1], ExtendedLaunch)


def test_the_subscript_follows_the_extensions_as_they_change():
    """The subscript asks at every launch whether there are extensions: appended, removed, the list replaced by
    another or by another container, the kernel of a numba-cuda program."""
    class Ext:
        def prepare_args(self, ty, val, stream, retr):
            return ty, val

    d = cubridge.jit(set_to_three)
    ext = Ext()
    d.extensions.append(ext)
    assert isinstance(d[1, 1], ExtendedLaunch)
    d.extensions.clear()
    assert not isinstance(d[1, 1], ExtendedLaunch)
    d.extensions = (ext,)  # a tuple a user assigned: its own truth
    assert isinstance(d[1, 1], ExtendedLaunch)
    d.extensions = None
    assert not isinstance(d[1, 1], ExtendedLaunch) and d.extensions is None
    d.extensions = []
    d._numba_launch = True  # numba-cuda's checks go through _hooked_subscript too
    calls = []
    d._hooked_subscript = lambda config: calls.append(config) or "hooked"
    assert d[1, 1] == "hooked" and calls == [(1, 1)]


def test_a_copy_keeps_the_extensions_appended_after_jit():
    """A kernel pickled by value (here: copied) takes the extensions its list holds now, not only jit's."""
    import copy

    class Ext:
        def prepare_args(self, ty, val, stream, retr):
            return ty, val

    def local(arr):  # a function pickle cannot find by name: the kernel goes by value
        arr[0] = 3

    d = cubridge.jit(local)
    ext = Ext()
    d.extensions.append(ext)
    made = copy.copy(d)
    assert made is not d and made.extensions == [ext] and isinstance(made[1, 1], ExtendedLaunch)


def test_a_dispatcher_and_an_extension_that_refers_to_it_are_collected():
    """The extensions live in the dispatcher's C++ base, whose GC slots show them to the collector."""
    import gc
    import weakref

    class BackRef:
        def prepare_args(self, ty, val, stream, retr):
            return ty, val

    d = cubridge.jit(set_to_three)
    ext = BackRef()
    ext.kernel = d
    d.extensions.append(ext)
    gone = weakref.ref(d)
    del d, ext
    gc.collect()
    assert gone() is None


@pytest.mark.parametrize("bad", [object(), [object()], [1], "ext"])
def test_an_extension_without_prepare_args_is_refused_by_name(bad):
    with pytest.raises(TypeError, match="extension|extensions must be a list"):
        cubridge.jit(extensions=bad)(set_to_three)


def test_an_extension_appended_without_prepare_args_is_refused_at_the_launch():
    d = cubridge.jit(set_to_three)
    recorded(d)
    d.extensions.append(42)
    with pytest.raises(TypeError, match=r"extension 42 \(int\) has no callable prepare_args"):
        d[1, 1](np.zeros(1, np.int64))


def view_giving(args, view_class):
    """An extension wrapping each argument in a numba ArgHint whose to_device gives a `view_class()` (numba-cuda
    0.30's cuda.In gives a cuda.core StridedMemoryView)."""
    class ToView(args.ArgHint):
        def to_device(self, retr, stream=0):
            return view_class()

    class Wrap:
        def prepare_args(self, ty, val, stream, retr):
            return ty, ToView(val)

    return Wrap()


def test_a_strided_memory_view_from_a_hint_is_passed_as_its_array_interface():
    """numba-cuda 0.30's cuda.In(x).to_device gives a cuda.core StridedMemoryView (strides in elements)."""
    args = pytest.importorskip("numba.cuda.args")

    class StridedMemoryView:  # the attributes cuda.core's view has, under its module
        ptr, shape, strides, dtype, readonly, is_device_accessible = 4096, (3, 2), (2, 1), np.dtype("<f4"), False, True

    StridedMemoryView.__module__ = "cuda.core._memoryview"

    d = cubridge.jit(extensions=[view_giving(args, StridedMemoryView)])(set_to_three)
    rec = recorded(d)
    d[1, 1](np.zeros((3, 2), np.float32))
    (passed,) = rec.launches[0][1]
    assert passed.__cuda_array_interface__ == {"version": 3, "shape": (3, 2), "typestr": "<f4", "data": (4096, False),
                                               "strides": (8, 4), "stream": None}


def set_record_to_three(rec):
    rec[0]["b"] = 3


RECORD = np.dtype([("b", np.int32)], align=True)


@pytest.mark.parametrize("view_dtype", [RECORD, np.dtype("V4")], ids=["records", "bare-void-items"])
def test_a_strided_memory_view_of_records_is_passed_as_its_array_interface_even_with_dlpack(view_dtype):
    """numba-cuda 0.30's cuda.In(records).to_device gives a StridedMemoryView that offers DLPack, which has no record
    dtype (cuda.core's export of it fails): the record array goes through the CUDA Array Interface with its descr.
    cuda.core views a host record array through its typestr alone ('|V4': no fields) and numba-cuda allocates the
    device view with that dtype, so a view of bare void items of the records' size takes the fields of the array
    the hint wraps (numba types the launch by that array too: numba-cuda's test_record_in_from_config)."""
    args = pytest.importorskip("numba.cuda.args")

    class StridedMemoryView:  # the attributes cuda.core's view has, under its module, DLPack included
        ptr, shape, strides, dtype, readonly, is_device_accessible = 8192, (1,), None, view_dtype, False, True

        def __dlpack__(self, stream=None):
            raise AssertionError("DLPack is not asked for a record array")

    StridedMemoryView.__module__ = "cuda.core._memoryview"

    d = cubridge.jit(extensions=[view_giving(args, StridedMemoryView)])(set_record_to_three)
    rec = recorded(d)
    d[1, 1](np.zeros(1, RECORD))
    (passed,) = rec.launches[0][1]
    assert passed.__cuda_array_interface__ == {"version": 3, "shape": (1,), "typestr": "|V4", "data": (8192, False),
                                               "strides": None, "stream": None, "descr": [("b", "<i4")]}


@pytest.mark.parametrize("view_dtype", [np.dtype("V8"), np.dtype("<i4")], ids=["other-size", "not-void"])
def test_a_view_that_does_not_fit_the_records_keeps_its_own_dtype(view_dtype):
    """Only a view of bare void items of the records' size takes their fields; any other view is passed as it
    is (the kernel layer checks it against the signature and refuses what does not fit, by name)."""
    from cubridge import _launch_extensions

    class StridedMemoryView:
        ptr, shape, strides, readonly, is_device_accessible = 8192, (1,), None, False, True
        dtype = view_dtype

    StridedMemoryView.__module__ = "cuda.core._memoryview"
    passed = _launch_extensions._as_argument(StridedMemoryView(), RECORD)
    assert passed.__cuda_array_interface__["typestr"] == view_dtype.str
    assert "descr" not in passed.__cuda_array_interface__
