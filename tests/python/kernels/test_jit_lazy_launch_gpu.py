"""The lazy @cubridge.jit launch (``k[griddim, blockdim](*args)`` with no signature given), issue 22 item 1 and
issue 27's "one import per argument":
- every argument is imported once per launch, the first launch included (a CAI getter counts the reads);
- the specialization is found by the dispatcher's cache, keyed on the arguments' Python types and the array
  facts typeof reads (element type, rank, layout, mutability) and the current device: a second launch with
  the same kinds is a hit and compiles nothing; another layout, dtype, rank, mutability or number type is
  another specialization, the one typeof names;
- what the cache does not know takes the dispatcher's general path, launching the same kernel as before
  (host NumPy arrays, NumPy scalars, subclasses of numbers, records) and never entering the cache;
- debug=True kernels (which re-raise the kernel's exception) are never cached;
- errors read as the general path's (configuration, arguments).
GPU tests: they launch. They also run under the host driver stand-in (bench/host_driver: CUBRIDGE_LIBCUDA),
which launches nothing; value checks are marked real_driver."""
import enum

import numpy as np
import pytest

import cubridge

pytestmark = pytest.mark.gpu


def fill(a, v):
    i = cubridge.grid(1)
    if i < a.size:
        a[i] = v


def fill2(a, v):
    i, j = cubridge.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = v


def read_only(a, out):
    i = cubridge.grid(1)
    if i < out.size:
        out[i] = a[i] + 1


class Counting:
    """A foreign producer: its CAI dict is built at each read, which it counts."""

    def __init__(self, base, readonly=False):
        self.base, self.readonly, self.reads = base, readonly, 0

    @property
    def __cuda_array_interface__(self):
        self.reads += 1
        d = dict(self.base.__cuda_array_interface__)
        d["data"] = (d["data"][0], self.readonly)
        return d


def _stats(d):
    return d._launch_cache_stats


def test_each_argument_is_imported_once_per_launch_first_launch_included():
    d = cubridge.jit(fill)
    a = Counting(cubridge.device_array(64, "f4"))
    d[1, 64](a, 1.5)
    assert a.reads == 1
    d[1, 64](a, 2.5)
    d[2, 32](a, 3.5)
    assert a.reads == 3
    assert _stats(d) == (2, 1, 1)
    assert len(d.overloads) == 1


def test_one_import_per_argument_with_several_arrays_of_one_producer():
    d = cubridge.jit(read_only)
    a, out = Counting(cubridge.device_array(8, "f4")), Counting(cubridge.device_array(8, "f4"))
    for _ in range(3):
        d[1, 8](a, out)
    assert (a.reads, out.reads) == (3, 3)


def many(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, n, v):
    i = cubridge.grid(1)
    if i < n:
        a11[i] = a0[i] + a1[i] + a2[i] + a3[i] + a4[i] + a5[i] + a6[i] + a7[i] + a8[i] + a9[i] + a10[i] + v


def wide(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, v):
    i = cubridge.grid(1)
    if i < a17.size:
        a17[i] = a0[i] + a16[i] + v


def test_more_arguments_than_the_keys_kept_in_place():
    """Past 16 arguments the launch's keys are on the heap: the cache finds the kernel as before."""
    d = cubridge.jit(wide)
    args = [cubridge.device_array(8, "f4") for _ in range(18)]
    args[5] = Counting(args[5])
    for _ in range(3):
        d[1, 8](*args, 1.0)
    assert _stats(d) == (2, 1, 1) and args[5].reads == 3


def eight(a0, a1, a2, a3, a4, a5, a6, v):
    i = cubridge.grid(1)
    if i < a6.size:
        a6[i] = a0[i] + v


def nine(a0, a1, a2, a3, a4, a5, a6, a7, v):
    i = cubridge.grid(1)
    if i < a7.size:
        a7[i] = a0[i] + v


@pytest.mark.parametrize("kernel, arrays", [(eight, 7), (nine, 8)], ids=["8 arguments", "9 arguments"])
@pytest.mark.parametrize("foreign", [[0], [-1], [1, -1]], ids=["first", "last", "two"])
def test_foreign_arrays_at_the_in_place_boundary_are_imported_once_each(kernel, arrays, foreign):
    """A launch of up to 8 arguments keeps its views in place, of more on the heap: at either side of the boundary,
    a foreign array anywhere among them (the last array included) is read once per launch and launches."""
    d = cubridge.jit(kernel)
    own = [cubridge.device_array(8, "f4") for _ in range(arrays)]
    picked = sorted({i % arrays for i in foreign})
    args = [Counting(a) if i in picked else a for i, a in enumerate(own)]
    for _ in range(3):
        d[1, 8](*args, 1.0)
    assert [args[i].reads for i in picked] == [3] * len(picked)
    assert _stats(d)[:2] == (2, 1)


@pytest.mark.parametrize("foreign", [[0], [11], [3, 7], list(range(12)), [0, 2, 4, 6, 8, 10]])
def test_foreign_arrays_among_many_arguments_are_imported_once_each(foreign):
    """Past 8 arguments the views are kept on the heap: any mix of foreign and own arrays, and the trailing scalars
    after them, launches with each foreign array read once."""
    d = cubridge.jit(many)
    arrays = [cubridge.device_array(8, "f4") for _ in range(12)]
    args = [Counting(a) if i in foreign else a for i, a in enumerate(arrays)]
    for _ in range(2):
        d[1, 8](*args, 8, 1.0)
    assert [args[i].reads for i in foreign] == [2] * len(foreign)
    assert _stats(d)[:2] == (1, 1)


def test_forall_takes_the_same_path():
    d = cubridge.jit(fill)
    a = Counting(cubridge.device_array(8, "f4"))
    d.forall(0)(a, 1.0)  # no tasks: typed, compiled and loaded, its arguments counted, nothing launched
    d.forall(0)(a, 2.0)
    assert a.reads == 2
    assert _stats(d) == (1, 1, 1)
    with pytest.raises(TypeError):  # not an int: Kernel.forall's own refusal, on the general path
        d.forall(0.5)(a, 1.0)
    with pytest.raises(ValueError, match="Can't create ForAll with negative task count: -1"):
        d.forall(-1)(a, 1.0)


def test_the_specialization_is_the_one_typeof_names():
    d = cubridge.jit(fill2)
    base = cubridge.device_array((4, 6), "f4")
    for arg in (base, base.T, base[:, ::2], cubridge.device_array((4, 6), "f8")):
        d[1, (4, 6)](arg, 1)
        want = cubridge.void(cubridge.typeof(arg), cubridge.int64)
        assert want in d.overloads, (want, list(d.overloads))
    assert len(d.overloads) == 4
    assert _stats(d) == (0, 4, 4)
    d[1, (4, 6)](base.T, 2)
    assert _stats(d) == (1, 4, 4)


def set_one(a, v):
    a[0] = 1


def test_number_types_are_their_own_specializations():
    d = cubridge.jit(set_one)
    a = cubridge.device_array(8, "f8")
    for v in (1, 1.0, True, 1 + 0j):
        d[1, 8](a, v)
    assert {str(s.args[1]) for s in d.overloads} == {"int64", "float64", "bool", "complex128"}
    assert _stats(d) == (0, 4, 4)
    for v in (2, 2.0, False):
        d[1, 8](a, v)
    assert _stats(d) == (3, 4, 4)


def test_readonly_arrays_are_their_own_specialization():
    d = cubridge.jit(read_only)
    base, out = cubridge.device_array(8, "f4"), cubridge.device_array(8, "f4")
    d[1, 8](Counting(base, readonly=True), out)
    d[1, 8](Counting(base, readonly=False), out)
    args = {str(s.args[0]) for s in d.overloads}
    assert args == {"readonly array(float32, 1d, C)", "array(float32, 1d, C)"}, args
    assert _stats(d)[1:] == (2, 2)


class Level(enum.IntEnum):
    LOW = 3


@pytest.mark.parametrize("value", [np.float32(2.0), np.int16(3), Level.LOW], ids=["np.float32", "np.int16", "IntEnum"])
def test_numbers_only_python_types_take_the_general_path_uncached(value):
    d = cubridge.jit(fill)
    a = cubridge.device_array(8, "f4")
    d[1, 8](a, value)
    assert _stats(d) == (0, 0, 0)
    assert list(d.overloads) == [cubridge.void(cubridge.typeof(a), cubridge.typeof(value))]


def test_host_arrays_take_the_general_path_with_its_warning():
    d = cubridge.jit(fill)
    with pytest.warns(cubridge.PerformanceWarning, match="(?i)host array"):
        d[1, 8](np.zeros(8, np.float32), 1.0)
    assert _stats(d) == (0, 0, 0)


def test_debug_kernels_are_not_cached():
    d = cubridge.jit(fill, debug=True, opt=False)
    a = cubridge.device_array(8, "f4")
    d[1, 8](a, 1.0)
    d[1, 8](a, 1.0)
    assert d._launch_cache_stats[2] == 0
    assert len(d.overloads) == 1


def test_eager_signatures_are_matched_through_the_cache():
    d = cubridge.jit(["void(float32[:], float32)", "void(float64[:], float64)"])(fill)
    a32, a64 = cubridge.device_array(8, "f4"), cubridge.device_array(8, "f8")
    d[1, 8](a64, 1.0)
    d[1, 8](a64, 2.0)
    assert _stats(d) == (1, 1, 1)
    assert len(d.overloads) == 2  # compiled eagerly, nothing more
    with pytest.raises(TypeError, match=r"No matching definition for argument type\(s\) array\(int32, 1d, C\), float64"):
        d[1, 8](cubridge.device_array(8, "i4"), 1.0)
    d[1, 8](a32, np.float32(1))  # a NumPy scalar: the general path matches it as before


def test_errors_read_as_the_general_path():
    d = cubridge.jit(fill)
    a = cubridge.device_array(8, "f4")
    with pytest.raises(TypeError, match=r"kernel\[\.\.\.\]: expected \[griddim, blockdim\]"):
        d[1](a, 1.0)
    with pytest.raises(TypeError, match=r"typeof: 'x' \(str\) cannot be a kernel argument"):
        d[1, 8](a, "x")
    with pytest.raises(TypeError, match="griddim"):
        d["a", 8](a, 1.0)
    d[1, 8](a, 1.0)
    with pytest.raises(TypeError, match=r"fill\(\) takes 2 positional arguments but 1 was given"):
        d._kernel_for_types([cubridge.typeof(a), cubridge.float64])[1, 8](a)


def test_a_configuration_the_device_refuses_is_refused_between_good_ones():
    """The kernel remembers per thread the configuration it validated last: one that fits launches again without
    the checks, any other is checked afresh (and the one before still launches)."""
    d = cubridge.jit(fill)
    a = cubridge.device_array(8, "f4")
    for _ in range(2):
        d[1, 8](a, 1.0)
        with pytest.raises(cubridge.LaunchConfigError, match=r"blockdim \(64, 32\): 2048 threads per block exceed"):
            d[1, (64, 32)](a, 1.0)
        with pytest.raises(cubridge.LaunchConfigError, match=r"griddim \(1, 1, 100000\): extent z"):
            d[(1, 1, 100000), 8](a, 1.0)
        with pytest.raises(cubridge.LaunchConfigError, match=r"sharedmem -1"):
            d[1, 8, 0, -1](a, 1.0)
    k = d.specialize(a, 1.0)
    k[1, 8](a, 1.0)
    with pytest.raises(cubridge.LaunchConfigError, match="threads per block"):
        k[1, (64, 32)](a, 1.0)


@pytest.mark.parametrize("make, change", [
    (lambda: [4], lambda g: g.__setitem__(0, 8)),
    (lambda: np.array(4), lambda g: g.fill(8)),
], ids=["list", "0-d NumPy array"])
def test_the_general_path_launches_the_configuration_as_read_at_the_subscript(make, change, monkeypatch):
    """A launch that takes the general path (a host NumPy argument here) is configured as the C++ path is: by the
    values its key had at the subscript, whatever its list or array holds by the call."""
    d = cubridge.jit(fill)
    seen = []
    general = d._general_launch
    monkeypatch.setattr(d, "_general_launch", lambda forall, config, args: (seen.append(config),
                                                                           general(forall, config, args)))
    g = make()
    launch = d[g, 8]
    change(g)
    with pytest.warns(cubridge.PerformanceWarning):
        launch(np.zeros(8, np.float32), 1.0)
    assert seen == [(4, 8)]


def test_arguments_the_cache_knows_are_launched_by_the_cached_kernel():
    d = cubridge.jit(fill)
    a = cubridge.device_array(8, "f4")
    d[1, 8](a, 1.0)
    k = d._kernel_for_types([cubridge.typeof(a), cubridge.float64])
    assert d.specialize(a, 1.0) is k


@pytest.mark.real_driver
def test_values_of_cached_launches_match_numpy():
    d = cubridge.jit(fill2)
    base = cubridge.device_array((4, 6), "f4")
    d[1, (4, 6)](base, 0.0)
    d[1, (6, 4)](base.T, 0.0)
    d[1, (4, 3)](base[:, ::2], 2.0)
    d[1, (4, 3)](base[:, ::2], 3.0)  # a hit: the strided view again
    got = base.copy_to_host()
    want = np.zeros((4, 6), np.float32)
    want[:, ::2] = 3.0
    np.testing.assert_array_equal(got, want)
    c = Counting(cubridge.device_array(32, "f4"))
    f = cubridge.jit(fill)
    for v in (1.0, 2.0, 7.0):
        f.forall(32)(c, v)
    np.testing.assert_array_equal(c.base.copy_to_host(), np.full(32, 7.0, np.float32))
    assert c.reads == 3


def _arrays_of_each_library(n):
    """Two arrays of n float32 of each GPU library importable here (cubridge's own always), as
    (name, array, read back to NumPy)."""
    made = [("cubridge", cubridge.device_array(n, "f4"), lambda x: x.copy_to_host()) for _ in range(2)]
    try:
        import cupy as cp
        made += [("CuPy", cp.zeros(n, dtype=cp.float32), cp.asnumpy) for _ in range(2)]
    except Exception:  # noqa: BLE001 - not importable or no GPU for it
        pass
    try:
        import torch
        if torch.cuda.is_available():
            made += [("PyTorch", torch.zeros(n, device="cuda"), lambda x: x.cpu().numpy()) for _ in range(2)]
    except Exception:  # noqa: BLE001
        pass
    return made


@pytest.mark.real_driver
def test_launches_that_alternate_arrays_each_write_the_array_given():
    # A launch keeps what it derived from each array's view (its key facts, its packed words) for the next launch
    # given the same view unchanged: alternating arrays, kernels and libraries must each reach the array given.
    n = 64
    made = _arrays_of_each_library(n)
    d = cubridge.jit(fill)
    for round_ in range(3):
        for k, (_, a, _) in enumerate(made):
            d[1, n](a, float(10 * round_ + k))
            d[1, n](a, float(10 * round_ + k))  # the same array again at once: what was derived is reused
    for k, (name, a, back) in enumerate(made):
        np.testing.assert_array_equal(back(a), np.full(n, 20.0 + k, np.float32), err_msg=name)


def index_values(a):
    i, j = cubridge.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = 10 * i + j


@pytest.mark.real_driver
def test_arrays_of_other_facts_at_one_position_each_get_their_specialization():
    # One position alternating C and F order, float32 and float64: each launch takes the specialization of the array
    # given, whose layout decides where each element is written.
    d = cubridge.jit(index_values)
    want = (10 * np.arange(4)[:, None] + np.arange(4)[None, :]).astype(np.float64)
    c32 = cubridge.device_array((4, 4), "f4")
    f32 = cubridge.to_device(np.asfortranarray(np.zeros((4, 4), np.float32)))
    c64 = cubridge.device_array((4, 4), "f8")
    for _ in range(2):
        for a in (c32, f32, c64, f32, c32):
            d[1, (4, 4)](a)
    for a in (c32, f32, c64):
        np.testing.assert_array_equal(a.copy_to_host(), want.astype(a.copy_to_host().dtype))


@pytest.mark.real_driver
def test_a_tensor_changed_in_place_between_launches_is_read_again():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    d = cubridge.jit(fill)
    t = torch.zeros(16, device="cuda")
    d[1, 32](t, 1.0)
    other = torch.zeros(32, device="cuda")
    t.set_(other)  # the same Python object, now over other memory and of another shape
    d[1, 32](t, 2.0)
    torch.cuda.synchronize()
    assert t.data_ptr() == other.data_ptr()  # set_ changed the object itself
    np.testing.assert_array_equal(other.cpu().numpy(), np.full(32, 2.0, np.float32))
    t.resize_(8)  # in place again: 8 elements of the same memory
    d[1, 32](t, 3.0)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(other.cpu().numpy(), np.r_[np.full(8, 3.0), np.full(24, 2.0)].astype(np.float32))
    # Facts the specialization depends on, changed in place: C order to F order (t_() swaps the strides of the same
    # memory and shape), then another dtype over the same memory.
    m = torch.zeros(4, 4, device="cuda")
    e = cubridge.jit(index_values)
    e[1, (4, 4)](m)
    m.t_()
    e[1, (4, 4)](m)  # the F-order specialization: m[i, j] is memory (j, i)
    torch.cuda.synchronize()
    want = 10 * np.arange(4)[:, None] + np.arange(4)[None, :]
    np.testing.assert_array_equal(m.cpu().numpy(), want.astype(np.float32))
    m.t_()
    m.data = m.view(torch.int32)
    e[1, (4, 4)](m)
    torch.cuda.synchronize()
    assert m.dtype == torch.int32
    np.testing.assert_array_equal(m.cpu().numpy(), want.astype(np.int32))


@pytest.mark.real_driver
def test_values_match_numba_cuda_where_importable():
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not importable")
    if not numba_cuda.is_available():
        pytest.skip("numba-cuda sees no GPU")
    global _nc
    _nc = numba_cuda  # the numba kernel's `_nc.grid`, resolved when numba-cuda compiles it
    ours, theirs = cubridge.jit(fill2), numba_cuda.jit(_numba_fill2)
    a = cubridge.device_array((4, 6), "f4")
    b = numba_cuda.device_array((4, 6), np.float32)
    for launch_a, launch_b, v in ((ours[1, (4, 6)], theirs[1, (4, 6)], 0.0), (ours[1, (4, 3)], theirs[1, (4, 3)], 5.0)):
        view_a, view_b = (a, b) if v == 0.0 else (a[:, ::2], b[:, ::2])
        launch_a(view_a, v)
        launch_b(view_b, v)
    np.testing.assert_array_equal(a.copy_to_host(), b.copy_to_host())


_nc = None


def _numba_fill2(a, v):
    i, j = _nc.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = v
