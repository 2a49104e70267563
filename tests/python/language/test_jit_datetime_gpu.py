"""datetime64/timedelta64 kernels on the GPU: numba-cuda's test_datetime kernels and the operators of
test_jit_datetime.py run through cubridge on NumPy (and, where installed, CuPy) arrays, checked against NumPy's
own arithmetic and, where numba-cuda is installed, against numba-cuda's result on the same inputs."""
import numpy as np
import pytest

import cubridge
from test_jit_char_seq_gpu import _numba_cuda  # numba-cuda where installed and usable, else None
from test_jit_datetime import EPOCHS, HOUR, T0, assign, basic_datetime_kernel, scalar_datetime_kernel

pytestmark = pytest.mark.gpu


def _both(fn, make, grid=1, block=1):
    """Runs fn through cubridge (and numba-cuda where installed) on fresh inputs from make(); returns ours."""
    ours = make()
    cubridge.jit(fn)[grid, block](*ours)
    cuda = _numba_cuda()
    if cuda is not None:
        theirs = make()
        cuda.jit(fn)[grid, block](*theirs)
        for a, b in zip(ours, theirs):
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a.view(np.int64) if a.dtype.kind in "Mm" else a,
                                              b.view(np.int64) if b.dtype.kind in "Mm" else b)
    return ours


def _dates():
    rng = np.random.default_rng(7)
    start = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    end = start + rng.integers(0, 10000, start.size)
    end[3] = np.datetime64("NaT")
    return start, end


def test_basic_datetime_kernel():
    start, end = _dates()
    _, _, delta = _both(basic_datetime_kernel, lambda: (start.copy(), end.copy(), np.zeros(start.size, "m8[D]")))
    np.testing.assert_array_equal(delta.view(np.int64), (end - start).view(np.int64))  # NaT included


def test_scalar_datetime_kernel():
    dates = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    target, delta = dates[5], dates[6] - dates[5]
    _, _, _, matches, outdelta = _both(scalar_datetime_kernel, lambda: (
        dates.copy(), target, delta, np.zeros(dates.size, np.bool_), np.zeros(dates.size, "M8[D]")))
    assert list(matches.nonzero()[0]) == [5]
    np.testing.assert_array_equal(outdelta, dates - delta)


def mixed_units(out_td, out_dt, out_cmp, d, h, td_min):
    for i in range(out_td.size):
        out_td[i] = d[i] - h[i]           # timedelta64[h]
        out_dt[i] = d[i] + td_min[i]      # datetime64[m]
        out_cmp[i] = d[i] < h[i]


def test_operands_are_brought_to_the_finer_unit_as_numpy_does():
    d = np.arange("2024-01-01", "2024-01-09", dtype="datetime64[D]")
    h = d.astype("datetime64[h]") + np.arange(-4, 4) * 7
    td_min = np.arange(8).astype("timedelta64[m]") * 61
    d[2] = np.datetime64("NaT")
    n = d.size
    out_td, out_dt, out_cmp = _both(mixed_units, lambda: (
        np.zeros(n, "m8[h]"), np.zeros(n, "M8[m]"), np.zeros(n, np.bool_), d.copy(), h.copy(), td_min.copy()))[:3]
    np.testing.assert_array_equal(out_td.view(np.int64), (d - h).view(np.int64))
    np.testing.assert_array_equal(out_dt.view(np.int64), (d + td_min).view(np.int64))
    np.testing.assert_array_equal(out_cmp, d < h)  # NaT compares False


def scaled(out, td, k):
    for i in range(out.size):
        out[i] = -(td[i] * k)


def test_timedelta_times_an_integer_keeps_nat():
    td = np.array([1, -2, 3, 0], "m8[s]")
    td[1] = np.timedelta64("NaT")
    out = _both(scaled, lambda: (np.zeros(4, "m8[s]"), td.copy(), 3))[0]
    np.testing.assert_array_equal(out.view(np.int64), (-(td * 3)).view(np.int64))


def store_delta(out, td):
    out[0] = out[0] + td


def test_a_scalar_of_another_unit_is_refused_at_the_launch():
    k = cubridge.jit("void(datetime64[D][::1], timedelta64[D])")(store_delta)
    with pytest.raises((TypeError, ValueError), match=r"timedelta64\[D\].*numpy.timedelta64\(3,'h'\)|"
                                                      r"numpy.timedelta64\(3,'h'\).*timedelta64\[D\]"):
        k[1, 1](np.zeros(2, "M8[D]"), np.timedelta64(3, "h"))
    with pytest.raises((TypeError, ValueError), match=r"an int \(3\)"):
        k[1, 1](np.zeros(2, "M8[D]"), 3)


def test_an_array_of_another_unit_is_refused_at_the_launch():
    k = cubridge.jit("void(datetime64[D][::1], timedelta64[D])")(store_delta)
    with pytest.raises((TypeError, ValueError), match=r"typestr '<M8\[s\]' \(an array of datetime64\[D\] takes "
                                                      r"typestr '<M8\[D\]'"):
        k[1, 1](np.zeros(2, "M8[s]"), np.timedelta64(1, "D"))


def test_datetime_cupy_inputs():
    cp = pytest.importorskip("cupy", minversion="14.0.0")
    arr = cp.array(np.arange("2005-02", "2006-02", dtype="datetime64[D]").view("int64")).view("datetime64[D]")
    out = cp.empty(arr.size, dtype="float64").view("datetime64[D]")
    cubridge.jit(assign)[1, 1](out, arr)
    np.testing.assert_array_equal(arr.get(), out.get())


def with_globals(out_td, out_dt, d):
    for i in range(out_td.size):
        out_td[i] = d[i] - T0 + (EPOCHS[1] - EPOCHS[0])
        out_dt[i] = d[i] + HOUR


def test_global_datetime_constants_and_arrays():
    d = np.arange("2024-02-01", "2024-02-06", dtype="datetime64[D]")
    d[1] = np.datetime64("NaT")
    out_td, out_dt, _ = _both(with_globals, lambda: (np.zeros(d.size, "m8[D]"), np.zeros(d.size, "M8[h]"), d.copy()))
    np.testing.assert_array_equal(out_td.view(np.int64), (d - T0 + (EPOCHS[1] - EPOCHS[0])).view(np.int64))
    np.testing.assert_array_equal(out_dt.view(np.int64), (d + HOUR).view(np.int64))
