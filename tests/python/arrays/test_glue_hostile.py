"""Hostile input to the Python glue, round 2 (issue 25): each case once crashed, hung or answered wrongly.
- borrowed references under user code: a host array's `__array_interface__` emptied by a shape item's
  `__index__` or the data flag's `__bool__`, a typestr that is not UTF-8-encodable, a CAI 'data' list
  emptied by its item's `__repr__` in the error path;
- the first use from several threads (a function-local static whose initializer imported NumPy);
- daemon threads inside GIL-free work (link, libNVVM, NVRTC, random seeding, copies, synchronize) when the
  interpreter exits (CPython ends them with pthread_exit; a noexcept guard made that std::terminate);
- answers that must not be cached (a dtype argument whose `.dtype` changes), a memory region that wraps
  past 2**64, a shape that never ends, a mask getter's own exception, subarray dtypes.
Crash and hang cases run in a child process with a timeout, so a regression fails one test instead of
taking the suite down. No GPU unless marked: every case fails before the driver is needed."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cubridge
from cubridge import KernelSignature
from conftest import described_address


def run_child(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs `code` with `args` in a fresh interpreter (the same sys.path); the result, or a failure naming
    a hang."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True,
                              text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the child process hung for {timeout} s; its output: {e.stdout!r} {e.stderr!r}")


def assert_clean_exit(r: subprocess.CompletedProcess, expect: str = "done"):
    assert r.returncode == 0, f"exit status {r.returncode}; stderr:\n{r.stderr[-3000:]}"
    assert "terminate called" not in r.stderr and "Fatal Python error" not in r.stderr, r.stderr[-3000:]
    assert expect in r.stdout, r.stdout


# ---- 1. the host path's __array_interface__ under user code --------------------------------------------

HOSTILE_HOST = r'''
import numpy as np
from cubridge import KernelSignature

class Emptier:
    """An int-like whose __index__ (or __bool__) empties the dict it came from, dropping every value."""
    def __init__(self, value, victim):
        self.value, self.victim = value, victim
    def __index__(self):
        self.victim.clear()
        return self.value
    def __bool__(self):
        self.victim.clear()
        return False

class Host:
    def __init__(self, where):
        self.where = where
    @property
    def __array_interface__(self):
        base = np.zeros(4, np.float32)
        d = {"version": 3, "typestr": "<f4", "strides": None}
        keep = [base]
        if self.where == "shape":
            d["shape"] = (Emptier(4, d),)
            d["data"] = (base.ctypes.data, False)
        else:
            d["shape"] = (4,)
            d["data"] = (base.ctypes.data, Emptier(0, d))
        self.keep = keep
        return d

sig = KernelSignature("float32[:]")
for where in ("shape", "flag"):
    for _ in range(200):
        try:
            sig.pack(Host(where))
        except (TypeError, ValueError) as e:
            pass
print("done")
'''


def test_host_interface_emptied_by_index_or_bool_is_not_read_after_free():
    assert_clean_exit(run_child(HOSTILE_HOST))


def test_host_interface_data_flag_must_be_a_bool():
    class Host:
        def __init__(self, flag):
            self.base = np.zeros(4, np.float32)
            self.__array_interface__ = {"version": 3, "shape": (4,), "typestr": "<f4",
                                        "data": (self.base.ctypes.data, flag)}
    sig = KernelSignature("float32[:]")
    with pytest.raises(TypeError, match=r"argument 0: __array_interface__\['data'\]\[1\]: expected a bool "
                                        r"read-only flag, got 0 \(int\)"):
        sig.pack(Host(0))
    sig.pack(Host(False))  # NumPy's own spelling


NOT_UTF8_TYPESTR = r'''
import re
import numpy as np
import cubridge
base = np.zeros(4, np.float32)

class Host:
    __array_interface__ = {"version": 3, "shape": (4,), "typestr": "<f\ud800", "data": (base.ctypes.data, False)}
try:
    cubridge.KernelSignature("float32[:]").pack(Host())
except ValueError as e:
    assert re.search(r"argument 0: __array_interface__\['typestr'\]: '<f\\ud800' cannot be encoded as UTF-8", str(e)), e
else:
    raise AssertionError("the host typestr was taken")
desc = {"version": 3, "shape": (4,), "typestr": "<f\udfff", "data": (0x7F0000000000, False)}
try:
    cubridge.from_cuda_array_interface(desc)
except ValueError as e:
    assert re.search(r"__cuda_array_interface__\['typestr'\]: '<f\\udfff' cannot be encoded", str(e)), e
else:
    raise AssertionError("the CAI typestr was taken")
print("done")
'''


def test_typestr_that_is_not_utf8_is_refused_by_both_readers():
    assert_clean_exit(run_child(NOT_UTF8_TYPESTR))


def test_host_interface_errors_name_the_host_interface():
    base = np.zeros(4, np.float32)

    class Host:
        __array_interface__ = {"version": 3, "shape": (2**70,), "typestr": "<f4", "data": (base.ctypes.data, False)}
    with pytest.raises(ValueError, match=r"^argument 0: __array_interface__\['shape'\]: integer 118059162071741130"
                                         r"3424 does not fit in 64 bits"):
        KernelSignature("float32[:]").pack(Host())


def test_host_interface_missing_key_names_it():
    class Host:
        __array_interface__ = {"version": 3, "shape": (4,), "typestr": "<f4"}
    with pytest.raises(ValueError, match=r"argument 0: __array_interface__: the required key 'data' is missing "
                                         r"\(required: 'shape', 'typestr', 'data'\)"):
        KernelSignature("float32[:]").pack(Host())


# ---- 2. the CAI 'data' error path: the item's repr empties the list ---------------------------------------

EMPTIED_DATA = r'''
import cubridge

class Evil:
    def __init__(self, victim):
        self.victim = victim
    def __repr__(self):
        self.victim.clear()
        return "Evil()"

for slot in (0, 1):
    for _ in range(300):
        data = [0x7F0000000000, False]
        data[slot] = Evil(data)
        try:
            cubridge.from_cuda_array_interface({"version": 3, "shape": (4,), "typestr": "<f4", "data": data})
        except TypeError as e:
            assert "Evil()" in str(e) and "(Evil)" in str(e), e
print("done")
'''


def test_cai_data_item_whose_repr_empties_the_list_is_not_read_after_free():
    assert_clean_exit(run_child(EMPTIED_DATA))


# ---- 3. the first use from several threads ------------------------------------------------------------------

FIRST_USE_FROM_THREADS = r'''
import sys, threading
import cubridge
assert "numpy" not in sys.modules, "this case needs NumPy not yet imported"
errors = []
barrier = threading.Barrier(4)
def body():
    barrier.wait()
    try:
        cubridge._core.device_array(4, "f4", "C", None)
    except Exception as e:  # no GPU: refused by the driver, after the dtype was resolved
        errors.append(type(e).__name__)
threads = [threading.Thread(target=body) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print("done", sorted(set(errors)))
'''


def test_first_device_array_from_several_threads_does_not_deadlock():
    probe = run_child("import sys, cubridge; print('numpy' in sys.modules)")
    if probe.stdout.strip() != "False":
        pytest.skip("importing cubridge imports NumPy here, so the first use cannot be the import")
    for _ in range(5):
        assert_clean_exit(run_child(FIRST_USE_FROM_THREADS, timeout=60))


# ---- 4. daemon threads inside GIL-free work when the interpreter exits ------------------------------------

DAEMON_AT_EXIT = r'''
import sys, threading, time
import cubridge
work, delay = sys.argv[1], float(sys.argv[2])
started = threading.Event()

def seeding():
    buf = bytearray(16 * 4_000_000)
    while True:
        started.set()
        cubridge._core._init_xoroshiro128p_states(buf, 1234, 0)

IR = """target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
declare float @__nv_sinf(float)
define float @f(float %x) {
  %y = call float @__nv_sinf(float %x)
  ret float %y
}
!nvvmir.version = !{!0}
!0 = !{i32 2, i32 0}
"""

def nvvm():
    while True:
        started.set()
        cubridge.nvvm_compile(IR, (9, 0), libdevice=True)

SOURCE = "extern \"C\" __global__ void k(float* x) { for (int i = 0; i < 64; ++i) x[i] = sinf(x[i]) * cosf(x[i]); }"

def nvrtc():
    while True:
        started.set()
        cubridge.nvrtc_compile(SOURCE, arch=(9, 0))

def link():
    ptx = cubridge.nvrtc_compile(SOURCE, arch=(9, 0), relocatable=True).code
    while True:
        started.set()
        cubridge.link([ptx], (9, 0), lto=False)

t = threading.Thread(target=globals()[work], daemon=True)
t.start()
started.wait(60)
time.sleep(delay)
print("done", flush=True)
'''


@pytest.mark.parametrize("work", ["seeding", "nvvm", "nvrtc", "link"])
def test_daemon_thread_in_gil_free_work_at_exit_does_not_abort(work):
    for delay in ("0", "0.05", "0.2"):
        r = run_child(DAEMON_AT_EXIT, work, delay, timeout=180)
        if work != "seeding" and r.returncode != 0 and "could not be found" in r.stderr:
            pytest.skip(f"the CUDA toolkit's library for {work} is missing: {r.stderr.strip().splitlines()[-1]}")
        assert_clean_exit(r)


DAEMON_DEVICE_AT_EXIT = r'''
import sys, threading, time
import numpy as np
import cubridge
work = sys.argv[1]
a = cubridge.device_array(1 << 24, np.float32)
host = np.empty(1 << 24, np.float32)
s = cubridge.stream()
started = threading.Event()
def body():
    while True:
        started.set()
        if work == "copy_to_host":
            a.copy_to_host(host)
        else:
            s.synchronize()
threading.Thread(target=body, daemon=True).start()
started.wait(60)
time.sleep(0.05)
print("done", flush=True)
'''


@pytest.mark.gpu
@pytest.mark.parametrize("work", ["copy_to_host", "synchronize"])
def test_daemon_thread_in_device_work_at_exit_does_not_abort(work):
    for _ in range(3):
        assert_clean_exit(run_child(DAEMON_DEVICE_AT_EXIT, work, timeout=180))


# ---- 9. answers that must not be cached; a region that wraps --------------------------------------------

resolve = cubridge._core._resolve_dtype


def test_dtype_argument_whose_dtype_changes_is_resolved_again():
    class Changing:
        dtype = np.dtype(np.float32)
    first = resolve(Changing)
    Changing.dtype = np.dtype(np.float64)
    assert (first, resolve(Changing)) == (("<f4", (), None), ("<f8", (), None))
    holder = type("Holder", (), {})()  # an instance whose dtype attribute changes
    holder.dtype = np.dtype(np.int16)
    first = resolve(holder)
    holder.dtype = np.dtype(np.int64)
    assert (first, resolve(holder)) == (("<i2", (), None), ("<i8", (), None))


def test_structured_dtype_renamed_is_resolved_again():
    dt = np.dtype([("a", "<f4"), ("b", "<i4")])
    assert resolve(dt) == (dt.str, (), dt.descr)
    dt.names = ("x", "y")  # NumPy lets a structured dtype's names change: its descr does
    assert resolve(dt) == (dt.str, (), [("x", "<f4"), ("y", "<i4")])


def test_immutable_dtype_arguments_resolve_alike_every_time():
    for arg in ("f4", np.float32, float, np.dtype("<i2")):
        assert resolve(arg) == resolve(arg) == (np.dtype(arg).str, (), None)


def test_memory_pointer_region_that_wraps_past_2_64_is_refused():
    with pytest.raises(ValueError, match=r"MemoryPointer: pointer 0xfffffffffffff000 \+ size 9223372036854775808 "
                                         r"passes the end of the 64-bit address space"):
        cubridge.MemoryPointer(None, 2**64 - 4096, 2**63)
    with pytest.raises(ValueError, match=r"PinnedMemory: pointer 0xffffffffffffffff \+ size 2 passes"):
        cubridge.PinnedMemory(None, 2**64 - 1, 2)
    top = cubridge.MemoryPointer(None, 2**64 - 4096, 4095)  # its one-past-the-end address is still one
    assert top.view(1024).device_pointer == 2**64 - 3072
    with pytest.raises(IndexError):
        top.view(8192)


# ---- 10. a shape that never ends; subarray dtypes ---------------------------------------------------------

NEVER_ENDING_SHAPE = r'''
import itertools, os, resource
import cubridge
if "asan" not in os.environ.get("LD_PRELOAD", ""):  # ASan reserves terabytes of address space for its shadow
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # a regression fails here, not the machine
class Endless:
    def __len__(self): return 2
    def __getitem__(self, i): return 3  # never raises IndexError
for shape in (itertools.count(), iter([2, 3]), (x for x in [2, 3])):
    try:
        cubridge._core.device_array(shape, "f4", "C", None)
    except TypeError as e:
        assert "shape must be an int or a tuple of int" in str(e), e
    else:
        raise AssertionError(f"{shape!r} was taken")
try:
    cubridge._core.device_array(Endless(), "f4", "C", None)
except Exception as e:  # read by index up to its length: (3, 3); no GPU: the driver refuses
    assert "shape" not in str(e), e
print("done")
'''


def test_shape_that_never_ends_is_refused_at_once():
    assert_clean_exit(run_child(NEVER_ENDING_SHAPE, timeout=60))


def test_shape_with_more_extents_than_numpy_allows_is_refused():
    with pytest.raises(ValueError, match=r"device_array: shape has 65 extents; at most 64 \(NumPy's limit\)"):
        cubridge.device_array((1,) * 65, np.float32)
    with pytest.raises(ValueError, match=r"device_array: shape range\(0, 100\) has 100 extents; at most 64"):
        cubridge.device_array(range(100), np.float32)


def test_subarray_dtype_expands_the_shape_as_numpy_does():
    assert resolve(np.dtype(("f4", (2, 2)))) == ("<f4", (2, 2), None)
    rec = np.dtype([("a", "<f4", (2,))])
    assert resolve(np.dtype((rec, (3,)))) == (rec.str, (3,), rec.descr)


@pytest.mark.gpu
def test_subarray_dtype_device_array_matches_numpy():
    a = cubridge.device_array(3, np.dtype(("f4", (2, 2))))
    h = np.empty(3, np.dtype(("f4", (2, 2))))
    assert (a.shape, a.dtype) == (h.shape, h.dtype) == ((3, 2, 2), np.float32)


# ---- also seen: a mask getter's exception -------------------------------------------------------------------

def test_mask_getter_exception_is_reported_as_itself():
    ptr, _keep = described_address()

    class Mask:
        @property
        def __cuda_array_interface__(self):
            raise KeyError("the mask's own failure")
    desc = {"version": 3, "shape": (4,), "typestr": "<f4", "data": (ptr, False), "mask": Mask()}
    with pytest.raises(KeyError, match="the mask's own failure"):
        cubridge.from_cuda_array_interface(desc)

    class NoMask:
        pass
    desc["mask"] = NoMask()
    with pytest.raises(TypeError, match=r"\['mask'\]: expected None or an object exposing __cuda_array_interface__"):
        cubridge.from_cuda_array_interface(desc)


# ---- found by fuzz/atheris/fuzz_descr.py: NumPy's own descr of an empty structured field -----------------

def test_descr_with_an_empty_nested_list_is_read_as_numpy_reads_it():
    dt = np.dtype([("a", []), ("b", "<f4")])
    assert dt.descr == [("a", []), ("b", "<f4")] and dt.itemsize == 4
    ptr, _keep = described_address()
    a = cubridge.from_cuda_array_interface({"version": 3, "shape": (2,), "typestr": "|V4", "data": (ptr, False),
                                            "descr": dt.descr})
    assert a.__cuda_array_interface__["descr"] == dt.descr
    with pytest.raises(ValueError, match=r"\['descr'\]: describes 4 bytes per element but typestr '\|V8' has 8"):
        cubridge.from_cuda_array_interface({"version": 3, "shape": (2,), "typestr": "|V8", "data": (ptr, False),
                                            "descr": dt.descr})
