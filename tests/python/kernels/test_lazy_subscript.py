"""`kernel[griddim, blockdim, stream, sharedmem]` on a @cubridge.jit dispatcher (the lazy KernelLaunch of
python/src/py_launch.hpp), compile-only. Rules:
 1. The launch carries the configuration as given: its griddim, blockdim and sharedmem read back as numba-cuda's.
 2. A launch is immutable, so the dispatcher hands the launch it made last out again for the same configuration
    (numba-style code subscripts at every launch); any other configuration gets a launch of its own, and the
    one handed out before keeps its own.
 3. A configuration that names a stream is never handed out again (the stream object is held by that launch).
 4. A bad configuration is refused at every subscript, by name, as the first time.
 5. The launches are seen by the collector: a dispatcher whose launch it keeps, or that a user keeps in the
    dispatcher's own attributes, is collected once unreachable.
 6. A launch handed out again pickles as the dispatcher subscripted again (test_kernel_pickle has the rest).
 7. A configuration is read once, at the subscript: a list or an __index__ object in it that changes afterwards
    changes neither that launch (its pickle and its general path read the values as they were) nor a later one.
    A stream object named in it is kept as given (its handle is read again by the general path).
 8. A dispatcher whose C++ base was never initialized is refused by name, never read.
GPU launches through it: test_jit_lazy_launch_gpu."""
import gc
import pickle
import weakref

import pytest

import cubridge


def body(arr):
    arr[0] = 1


def config(launch):
    return launch.griddim, launch.blockdim, launch.sharedmem


def test_the_launch_reads_back_its_configuration():
    d = cubridge.jit(body)
    assert config(d[4, 32]) == ((4, 1, 1), (32, 1, 1), 0)
    assert config(d[(4, 2), (8, 4, 2), 0, 256]) == ((4, 2, 1), (8, 4, 2), 256)


def test_the_same_configuration_gets_the_same_launch():
    d = cubridge.jit(body)
    first = d[1, 32]
    assert d[1, 32] is first
    n = 1
    assert d[n, 16 * 2] is first  # equal values, other objects


@pytest.mark.parametrize("other", [(2, 32), (1, 64), ((1, 1), 32), (1, (32, 1)), (1, 32, None, 16)])
def test_another_configuration_gets_its_own_launch_and_the_first_keeps_its_own(other):
    d = cubridge.jit(body)
    first = d[1, 32]
    second = d[other]
    assert second is not first
    assert config(first) == ((1, 1, 1), (32, 1, 1), 0)
    assert d[1, 32] is not second and config(d[1, 32]) == ((1, 1, 1), (32, 1, 1), 0)


def test_a_configuration_naming_a_stream_is_never_handed_out_again():
    d = cubridge.jit(body)
    stream = cubridge.default_stream()
    named = d[1, 32, stream]
    assert d[1, 32, stream] is not named
    assert d[1, 32] is not named and d[1, 32, stream] is not d[1, 32]


@pytest.mark.parametrize("bad, error", [(("a", 32), TypeError), ((1,), TypeError), ((1, 32, None, "x"), TypeError)])
def test_a_bad_configuration_is_refused_every_time(bad, error):
    d = cubridge.jit(body)
    d[1, 32]
    for _ in range(2):
        with pytest.raises(error):
            d[bad]


def test_a_dispatcher_with_its_last_launch_is_collected():
    d = cubridge.jit(body)
    d[1, 32]
    gone = weakref.ref(d)
    del d
    gc.collect()
    assert gone() is None


def test_a_launch_kept_on_the_dispatcher_is_collected_with_it():
    d = cubridge.jit(body)
    d.saved = d[1, 1]
    d.named = d[1, 1, cubridge.default_stream()]
    gone = weakref.ref(d)
    del d
    gc.collect()
    assert gone() is None


def test_a_launch_handed_out_again_pickles_as_the_dispatcher_subscripted():
    launch = cubridge.jit(body)[5, (8, 2)]
    back = pickle.loads(pickle.dumps(launch))
    assert config(back) == ((5, 1, 1), (8, 2, 1), 0)


class Knob:
    """An __index__ object whose value changes."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


@pytest.mark.parametrize("make, change", [
    (lambda: [4], lambda g: g.__setitem__(0, 8)),
    (lambda: Knob(4), lambda g: setattr(g, "v", 8)),
])
def test_a_configuration_is_read_once_at_the_subscript(make, change):
    d = cubridge.jit(body)
    g = make()
    first = d[g, 32]
    change(g)
    assert config(first) == ((4, 1, 1), (32, 1, 1), 0)
    assert config(pickle.loads(pickle.dumps(first))) == ((4, 1, 1), (32, 1, 1), 0)
    assert d[4, 32] is first  # the same configuration
    again = d[g, 32]
    assert again is not first and config(again) == ((8, 1, 1), (32, 1, 1), 0)
    assert config(pickle.loads(pickle.dumps(d[4, 32]))) == ((4, 1, 1), (32, 1, 1), 0)


def test_an_uninitialized_dispatcher_is_refused_by_name():
    class Lazy(cubridge.Dispatcher):
        def __init__(self):  # never calls super().__init__()
            pass

    d = Lazy()
    with pytest.raises(TypeError, match="the dispatcher was not initialized"):
        d[1, 32]
    with pytest.raises(TypeError, match="the dispatcher was not initialized"):
        d._subscript((1, 32))
    with pytest.raises(TypeError, match="the dispatcher was not initialized"):
        cubridge._core._lazy_forall(d, 4, None, 0, ())
    with pytest.raises(TypeError, match="expected a cubridge.Dispatcher, got int"):
        cubridge._core._lazy_subscript(3, (1, 32))


def test_a_subclass_that_sets_extensions_before_initializing_is_told_so_and_can_go_on():
    class Early(cubridge.Dispatcher):
        def __init__(self, py_func, order):
            if order == "before":
                self.extensions = []  # before the base exists: refused by name, nothing half-made
            super().__init__(py_func)
            self.extensions.append("ext")

    def body(x):
        pass

    with pytest.raises(TypeError, match=r"Dispatcher.extensions: the dispatcher was not initialized yet .*"
                                        r"super\(\).__init__\(\) before it reads or sets extensions"):
        Early(body, "before")
    late = Early(body, "after")
    assert late.extensions == ["ext"]

    class Reader(cubridge.Dispatcher):
        def __init__(self):
            self.seen = self._numba_launch

    with pytest.raises(TypeError, match=r"Dispatcher._numba_launch: the dispatcher was not initialized yet"):
        Reader()


def test_the_dispatcher_properties_refuse_another_object_by_name():
    base = cubridge._core._DispatchCache
    kernel = cubridge.jit(lambda x: None)
    for name in ("extensions", "_numba_launch"):
        prop = base.__dict__[name]
        for other in (3, object(), cubridge.Dispatcher):
            with pytest.raises(TypeError, match=rf"Dispatcher.{name}: expected a cubridge.Dispatcher, got "):
                prop.__get__(other)
            with pytest.raises(TypeError, match=rf"Dispatcher.{name}: expected a cubridge.Dispatcher, got "):
                prop.__set__(other, [] if name == "extensions" else True)
        assert prop.__get__(kernel) == getattr(kernel, name)  # the dispatcher's own still answers
