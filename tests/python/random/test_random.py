"""cubridge.random (CPU): numba-cuda's numba.cuda.random, bit for bit.

Spec (numba-cuda's documented behaviour, docs "Random Number Generation" and numba/cuda/random.py):
- create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0) returns a 1-d GPU array of n states
  of xoroshiro128p_dtype ([('s0', uint64), ('s1', uint64)], aligned); init_xoroshiro128p_states(states, ...)
  fills an existing one. State 0 is splitmix64(seed) jumped subsequence_start times; state i is state i-1
  jumped once (2**64 steps). The seed is taken as uint64(seed) (negative seeds wrap).
- In kernels: xoroshiro128p_next -> uint64, xoroshiro128p_jump -> None, xoroshiro128p_uniform_float32 ->
  float32 in [0, 1), _float64 -> float64, xoroshiro128p_normal_float32/_float64 (Box-Muller of two float32
  uniforms, second value dropped), init_xoroshiro128p_state, rotl, uint64_to_unit_float32/_float64.
- Kernels name them through `from numba.cuda.random import X`, `cuda.random.X` and the module aliased.
Here: the host states equal numba's CPU initialisation; the device functions' Python source, run on NumPy
values, equals numba's CPU-jitted functions; kernels using each compile and assemble; bad arguments are
refused by name. The values on the GPU are compared with numba-cuda's by parity/kernels_random.py and
test_random_gpu.py."""
import ctypes
import os
import shutil
import sys

import numpy as np
import pytest

import cubridge
import cubridge.random as cr
from conftest import described_address

nr = pytest.importorskip("numba.cuda.random", reason="numba with numba.cuda is not installed")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "language"))  # test_jit_slices
needs_clang = pytest.mark.skipif(shutil.which("clang") is None, reason="clang is needed to run NVVM IR on the host")


def numba_states(n, seed, subsequence_start):
    out = np.zeros(n, dtype=nr.xoroshiro128p_dtype)
    # numba types a Python int seed as int64 (and refuses 2**63 and up), np.uint64 as uint64.
    seed = np.uint64(seed) if seed >= 2**63 else seed
    nr.init_xoroshiro128p_states_cpu(out, seed, subsequence_start)
    return out


def ours(n, seed, subsequence_start):
    out = np.zeros(n, dtype=cr.xoroshiro128p_dtype)
    cr.init_xoroshiro128p_states_cpu(out, seed, subsequence_start)
    return out


# ---- host side ----

@pytest.mark.parametrize("n", [0, 1, 2, 33, 1000])
@pytest.mark.parametrize("seed", [0, 1, 42, 123456789, 2**63 + 5, 2**64 - 1, -1, -(2**63)])
@pytest.mark.parametrize("subsequence_start", [0, 1, 5])
def test_states_equal_numbas_cpu_initialisation(n, seed, subsequence_start):
    np.testing.assert_array_equal(ours(n, seed, subsequence_start).view(np.uint64),
                                  numba_states(n, seed, subsequence_start).view(np.uint64))


def test_states_accept_numpy_integers_as_numba_does():
    np.testing.assert_array_equal(ours(9, np.uint64(2**64 - 3), np.int32(2)).view(np.uint64),
                                  numba_states(9, 2**64 - 3, 2).view(np.uint64))


def test_subsequence_start_continues_the_sequence_of_states():
    base = ours(64, 7, 0)
    np.testing.assert_array_equal(ours(24, 7, 40), base[40:])
    # A subsequence start numba would need 2**64 - 1 loop turns for is worked out by squaring; the state
    # after it has jumped 2**128 steps in all, one step round the cycle of 2**128 - 1.
    far = ours(2, 99, 2**64 - 1)
    one = np.zeros(1, dtype=nr.xoroshiro128p_dtype)
    nr.init_xoroshiro128p_state(one, 0, 99)
    nr.xoroshiro128p_next(one, 0)
    np.testing.assert_array_equal(far[1:], one)


def test_dtype_is_numbas():
    assert cr.xoroshiro128p_dtype == nr.xoroshiro128p_dtype
    assert cr.xoroshiro128p_dtype.isalignedstruct and cr.xoroshiro128p_dtype.itemsize == 16
    assert cr.xoroshiro128p_dtype.descr == [("s0", "<u8"), ("s1", "<u8")]
    assert cr.TWO_PI_FLOAT32 == nr.TWO_PI_FLOAT32 and cr.TWO_PI_FLOAT32.dtype == np.float32
    assert cr.TWO_PI_FLOAT64 == nr.TWO_PI_FLOAT64


def test_every_public_name_of_numba_cuda_random_is_here():
    numba_names = {n for n, v in vars(nr).items() if not n.startswith("_") and
                   getattr(v, "__module__", None) == nr.__name__ or
                   getattr(getattr(v, "py_func", None), "__module__", None) == nr.__name__}
    numba_names |= {"xoroshiro128p_dtype", "xoroshiro128p_type", "TWO_PI_FLOAT32", "TWO_PI_FLOAT64"}
    assert numba_names - set(cr.__all__) == set()
    assert all(hasattr(cr, n) for n in cr.__all__)


@pytest.mark.parametrize("call, error, message", [
    (lambda: cr.create_xoroshiro128p_states(-1, 1), ValueError, r"create_xoroshiro128p_states: n must be >= 0, got -1"),
    (lambda: cr.create_xoroshiro128p_states(2.0, 1), TypeError, r"n must be an int \(the number of states\), got 2.0"),
    (lambda: cr.create_xoroshiro128p_states((2, 3), 1), TypeError, r"n must be an int"),
    (lambda: cr.create_xoroshiro128p_states(4, 1.5), TypeError, r"seed must be an integer, got 1.5 \(float\)"),
    (lambda: cr.create_xoroshiro128p_states(4, "1"), TypeError, r"seed must be an integer, got '1' \(str\)"),
    (lambda: cr.create_xoroshiro128p_states(4, 2**64), ValueError,
     r"seed must be in \[-2\*\*63, 2\*\*64\) .*got 18446744073709551616"),
    (lambda: cr.create_xoroshiro128p_states(4, -(2**63) - 1), ValueError, r"seed must be in \[-2\*\*63, 2\*\*64\)"),
    (lambda: cr.create_xoroshiro128p_states(4, 1, -1), ValueError,
     r"create_xoroshiro128p_states: subsequence_start must be in \[0, 2\*\*64\), got -1"),
    (lambda: cr.create_xoroshiro128p_states(4, 1, 2**64), ValueError, r"subsequence_start must be in \[0, 2\*\*64\)"),
    (lambda: cr.create_xoroshiro128p_states(4, 1, 0.5), TypeError, r"subsequence_start must be an integer"),
    (lambda: cr.init_xoroshiro128p_states(np.zeros(4, cr.xoroshiro128p_dtype), 1), TypeError,
     r"init_xoroshiro128p_states: states must be a GPU array \(__cuda_array_interface__\), got ndarray"),
    (lambda: cr.init_xoroshiro128p_states_cpu(np.zeros(4, np.uint64), 1, 0), TypeError,
     r"init_xoroshiro128p_states_cpu: states must be a 1-d NumPy array of xoroshiro128p_dtype"),
    (lambda: cr.init_xoroshiro128p_states_cpu(np.zeros((2, 2), cr.xoroshiro128p_dtype), 1, 0), TypeError,
     r"states must be a 1-d NumPy array"),
    (lambda: cr.init_xoroshiro128p_states_cpu(np.zeros(8, cr.xoroshiro128p_dtype)[::2], 1, 0), ValueError,
     r"states must be contiguous and writeable"),
    (lambda: cr.init_xoroshiro128p_states_cpu(np.zeros(4, cr.xoroshiro128p_dtype), 1, -2), ValueError,
     r"init_xoroshiro128p_states_cpu: subsequence_start must be in \[0, 2\*\*64\), got -2"),
])
def test_bad_arguments_are_refused_by_name(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_core_seeding_refuses_buffers_that_are_not_whole_states():
    from cubridge import _core
    with pytest.raises(ValueError, match=r"_init_xoroshiro128p_states: the buffer holds 17 bytes, not a whole "
                                         r"number of 16-byte states"):
        _core._init_xoroshiro128p_states(np.zeros(17, np.uint8), 1, 0)
    read_only = np.zeros(2, cr.xoroshiro128p_dtype)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        _core._init_xoroshiro128p_states(read_only.view(np.uint8), 1, 0)


class _FakeGpuArray:
    def __init__(self, typestr, descr, shape=(4,), strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "descr": descr, "strides": strides,
                                         "data": (0x10000, False), "version": 3}


@pytest.mark.parametrize("states, message", [
    (_FakeGpuArray("<u8", [("", "<u8")]), r"states must have numba's xoroshiro128p_dtype \(typestr '\|V16', descr "
                                          r"\[\('s0', '<u8'\), \('s1', '<u8'\)\]\), got typestr '<u8'"),
    (_FakeGpuArray("|V16", [("a", "<u8"), ("b", "<u8")]), r"got typestr '\|V16' and descr \[\('a', '<u8'\)"),
    (_FakeGpuArray("|V16", [("s0", "<u8"), ("s1", "<u8")], shape=(2, 2)), r"states must be 1-d, got shape \(2, 2\)"),
    (_FakeGpuArray("|V16", [("s0", "<u8"), ("s1", "<u8")], strides=(32,)), r"states must be contiguous, got strides \(32,\)"),
])
def test_init_states_refuses_arrays_of_other_layouts(states, message):
    with pytest.raises(ValueError, match="init_xoroshiro128p_states: .*" + message):
        cr.init_xoroshiro128p_states(states, 1)


def test_numba_types_structured_cubridge_arrays_as_its_own():
    """numba types foreign arrays by typestr alone ('|V16' has no numba type): cubridge's structured arrays
    carry _numba_type_, the record cubridge.typeof gives; arrays of the states' descr are numba's aligned
    xoroshiro128p_type, so numba kernels with explicit signatures take them."""
    address, keep = described_address()
    cai = {"shape": (4,), "typestr": "|V16", "descr": cr.xoroshiro128p_dtype.descr, "data": (address, False),
           "version": 3, "strides": None}
    states = cubridge.from_cuda_array_interface(cai)
    assert states.dtype == nr.xoroshiro128p_dtype and states.dtype.isalignedstruct
    assert states._numba_type_ == nr.xoroshiro128p_type[::1]
    assert cubridge.typeof(states) == f"{nr.xoroshiro128p_type}[::1]"
    packed = cubridge.from_cuda_array_interface(dict(cai, typestr="|V12", descr=[("a", "<u8"), ("b", "<u4")]))
    assert not packed._numba_type_.dtype.aligned  # 12 bytes: not where align=True puts them (16)
    plain = cubridge.from_cuda_array_interface(dict(cai, typestr="<f4", descr=None))
    assert not hasattr(plain, "_numba_type_")  # numba reads the CAI of numeric arrays itself


# ---- the device functions' arithmetic, run as Python on NumPy values, against numba's CPU functions ----

@pytest.fixture
def quiet_overflow():
    with np.errstate(over="ignore"):  # uint64 arithmetic wraps on purpose
        yield


def _pair(n=8, seed=2024):
    return ours(n, seed, 0), numba_states(n, seed, 0)


def test_next_matches_numba(quiet_overflow):
    a, b = _pair()
    for _ in range(50):
        for i in range(a.shape[0]):
            assert cr.xoroshiro128p_next(a, i) == nr.xoroshiro128p_next(b, i)
    np.testing.assert_array_equal(a, b)


def test_jump_and_init_state_match_numba(quiet_overflow):
    a, b = _pair(4)
    cr.xoroshiro128p_jump(a, 2)
    nr.xoroshiro128p_jump(b, 2)
    np.testing.assert_array_equal(a, b)
    for seed in (0, 5, 2**64 - 1):
        cr.init_xoroshiro128p_state(a, 1, np.uint64(seed))
        nr.init_xoroshiro128p_state(b, 1, np.uint64(seed))
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name, dtype", [("xoroshiro128p_uniform_float32", np.float32),
                                         ("xoroshiro128p_uniform_float64", np.float64)])
def test_uniforms_match_numba_bit_for_bit(quiet_overflow, name, dtype):
    a, b = _pair()
    mine = np.array([getattr(cr, name)(a, i % 8) for i in range(400)], dtype=dtype)
    theirs = np.array([getattr(nr, name)(b, i % 8) for i in range(400)], dtype=dtype)
    np.testing.assert_array_equal(mine.view(np.uint8), theirs.view(np.uint8))
    assert type(getattr(cr, name)(a, 0)) is dtype


@pytest.mark.parametrize("name", ["xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64"])
def test_normals_match_numba(quiet_overflow, name):
    # CPython's math works in float64 where numba's float32 path uses logf/cosf: equal to float32 rounding
    # here; bit for bit on the GPU (parity/kernels_random.py).
    a, b = _pair()
    mine = [getattr(cr, name)(a, i % 8) for i in range(200)]
    theirs = [getattr(nr, name)(b, i % 8) for i in range(200)]
    np.testing.assert_allclose(mine, theirs, rtol=2e-6, atol=1e-6)
    np.testing.assert_array_equal(a, b)  # two steps each, as numba


@pytest.mark.parametrize("x", [0, 1, 2**11 - 1, 2**11, 2**53, 2**63, 2**64 - 2**11, 2**64 - 1, 0x123456789ABCDEF0])
def test_unit_float_conversions_match_numba(x):
    x = np.uint64(x)
    assert cr.uint64_to_unit_float64(x) == nr.uint64_to_unit_float64(x)
    f32 = cr.uint64_to_unit_float32(x)
    assert f32 == nr.uint64_to_unit_float32(x) and type(f32) is np.float32
    assert cr.uint64_to_unit_float32(np.uint64(2**64 - 1)) == 1.0  # float32 rounding, as numba


@pytest.mark.parametrize("k", [1, 14, 36, 55, 63])
def test_rotl_matches_numba(quiet_overflow, k):
    x = np.uint64(0x8000000000000001)
    assert cr.rotl(x, np.uint32(k)) == nr.rotl(x, np.uint32(k))


# ---- the compiled device functions, run on the host (clang compiles our NVVM IR for the CPU: the integer
# and uniform paths use no libdevice), against numba's CPU-jitted functions, bit for bit ----

STATES_SPELLING = f"{nr.xoroshiro128p_type}[::1]"


def _compiled(name, sig, tmp_path):
    from test_jit_slices import host_function
    return host_function(getattr(nr, name), sig, tmp_path)  # numba's function: cubridge compiles its own


def _call(f, result, *args):
    from test_jit_slices import array_pieces
    out = result()
    flat = []
    for a in args:
        flat += array_pieces(a) if isinstance(a, np.ndarray) else [a]
    assert f(ctypes.byref(out), *flat) == 0
    return out.value


@needs_clang
def test_compiled_next_and_jump_match_numba(tmp_path):
    (tmp_path / "n").mkdir()
    (tmp_path / "j").mkdir()
    next_ = _compiled("xoroshiro128p_next", f"uint64({STATES_SPELLING}, int64)", tmp_path / "n")
    jump = _compiled("xoroshiro128p_jump", f"({STATES_SPELLING}, int64)", tmp_path / "j")
    a, b = _pair(4, seed=77)
    for k in range(60):
        i = k % 4 - (k % 3 == 0)  # -1 too: indices wrap as numba's
        assert _call(next_, ctypes.c_uint64, a, ctypes.c_int64(i)) == nr.xoroshiro128p_next(b, i)
    for i in (1, -1):
        _call(jump, ctypes.c_int64, a, ctypes.c_int64(i))
        nr.xoroshiro128p_jump(b, i)
    np.testing.assert_array_equal(a, b)


@needs_clang
@pytest.mark.parametrize("name, result, dtype", [("xoroshiro128p_uniform_float32", ctypes.c_float, np.float32),
                                                 ("xoroshiro128p_uniform_float64", ctypes.c_double, np.float64)])
def test_compiled_uniforms_match_numba_bit_for_bit(tmp_path, name, result, dtype):
    f = _compiled(name, f"({STATES_SPELLING}, int64)", tmp_path)
    a, b = _pair(8, seed=3)
    mine = np.array([_call(f, result, a, ctypes.c_int64(i % 8)) for i in range(300)], dtype=dtype)
    theirs = np.array([getattr(nr, name)(b, i % 8) for i in range(300)], dtype=dtype)
    np.testing.assert_array_equal(mine.view(np.uint8), theirs.view(np.uint8))
    np.testing.assert_array_equal(a, b)


@needs_clang
def test_compiled_init_state_matches_numba(tmp_path):
    f = _compiled("init_xoroshiro128p_state", f"({STATES_SPELLING}, int64, int64)", tmp_path)
    a, b = _pair(3)
    for seed in (0, 1, 12345, -1, -(2**63), 2**63 - 1):
        _call(f, ctypes.c_int64, a, ctypes.c_int64(2), ctypes.c_int64(seed))
        nr.init_xoroshiro128p_state(b, 2, np.int64(seed))
        np.testing.assert_array_equal(a, b)


@needs_clang
def test_compiled_conversions_and_rotl_match_numba(tmp_path):
    for d in ("r", "f32", "f64"):
        (tmp_path / d).mkdir()
    rot = _compiled("rotl", "uint64(uint64, uint32)", tmp_path / "r")
    f32 = _compiled("uint64_to_unit_float32", "float32(uint64)", tmp_path / "f32")
    f64 = _compiled("uint64_to_unit_float64", "float64(uint64)", tmp_path / "f64")
    for x in (0, 1, 2**11, 2**53 + 12345, 2**63, 2**64 - 2**11, 2**64 - 1, 0x123456789ABCDEF0):
        ux = np.uint64(x)
        assert np.float32(_call(f32, ctypes.c_float, ctypes.c_uint64(x))) == nr.uint64_to_unit_float32(ux)
        assert _call(f64, ctypes.c_double, ctypes.c_uint64(x)) == nr.uint64_to_unit_float64(ux)
        for k in (1, 14, 36, 55, 63):
            assert _call(rot, ctypes.c_uint64, ctypes.c_uint64(x), ctypes.c_uint32(k)) == nr.rotl(ux, np.uint32(k))


# ---- kernels using the device functions compile (numba's spellings and cubridge's) and assemble ----

CC = (9, 0)


def _kernels():
    from numba import float32, float64, int64, uint64, void
    from parity import kernels_random as k
    states = nr.xoroshiro128p_type[::1]
    return [(k.uniform_float32, void(states, float32[:, ::1])), (k.uniform_float64, void(states, float64[:, ::1])),
            (k.normal_float32, void(states, float32[:, ::1])), (k.normal_float64, void(states, float64[:, ::1])),
            (k.next_uint64, void(states, uint64[:, ::1])), (k.jump_then_next, void(states, uint64[:, ::1])),
            (k.seeded_in_kernel, void(states, float32[:, ::1], int64)),
            (k.module_spelling, void(states, float64[:, ::1])), (k.aliased, void(states, float64[:, ::1]))]


@pytest.mark.parametrize("kernel, sig", _kernels(), ids=lambda v: getattr(v, "__name__", ""))
def test_kernels_in_numbas_spelling_compile_and_assemble(kernel, sig):
    ptx, resty = cubridge.compile_ptx(kernel, sig, cc=CC)
    assert resty is None
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log


def cubridge_spelling(states, out):
    from_cubridge = cr.xoroshiro128p_uniform_float32(states, 0)  # through the module
    out[0] = from_cubridge + cubridge.random.xoroshiro128p_normal_float32(states, 0)
    out[1] = xoroshiro128p_uniform_float32(states, 1)
    out[2] = rnd_uniform(states, 2)


from cubridge.random import xoroshiro128p_uniform_float32  # noqa: E402
from cubridge.random import xoroshiro128p_uniform_float32 as rnd_uniform  # noqa: E402


def test_kernel_in_cubridges_spelling_compiles():
    """cubridge.random's names, its module and its record type in the signature."""
    assert str(cr.xoroshiro128p_type) == str(nr.xoroshiro128p_type)
    ptx, _ = cubridge.compile_ptx(cubridge_spelling, (cr.xoroshiro128p_type[::1], cubridge.float32[::1]), cc=CC)
    assert cubridge.ptxas_check(ptx, CC)


@pytest.mark.parametrize("name", sorted(cr._DEVICE_FUNCTIONS))
def test_device_functions_result_types_are_numbas(name, quiet_overflow):
    """Each device function, compiled alone (numba's dispatcher stands for ours), returns the type numba's
    CPU compilation of the same function infers."""
    from numba import int64, uint32, uint64
    states = nr.xoroshiro128p_type[::1]
    host = numba_states(2, 1, 0)
    theirs = getattr(nr, name)
    numba_args, sig = {
        "rotl": ((np.uint64(5), np.uint32(3)), (uint64, uint32)),
        "uint64_to_unit_float32": ((np.uint64(5),), (uint64,)),
        "uint64_to_unit_float64": ((np.uint64(5),), (uint64,)),
        "init_xoroshiro128p_state": ((host, np.int64(0), np.int64(3)), (states, int64, int64)),
    }.get(name, ((host, np.int64(0)), (states, int64)))
    theirs(*numba_args)
    expected = theirs.nopython_signatures[-1].return_type
    _, resty = cubridge.compile(theirs, sig, abi="numba", cc=CC)
    assert ("none" if resty is None else str(resty)) == str(expected)


def rotl(x, k):  # not a rotation: it must not stand in for cubridge.random's
    return x + k


TWO_PI_FLOAT32 = 1.0  # nor must this stand in for cubridge.random's constant


def next_beside_own_rotl(states, i):
    return nr.xoroshiro128p_next(states, i) + rotl(np.uint64(0), np.uint64(0))


def normal_beside_own_constant(states, out):
    out[0] = nr.xoroshiro128p_normal_float32(states, 0) * TWO_PI_FLOAT32


@needs_clang
def test_a_modules_own_rotl_does_not_stand_in_for_cubridges(tmp_path):
    """Compiled functions share one namespace: cubridge.random's functions call helpers of their own."""
    from test_jit_slices import host_function
    f = host_function(next_beside_own_rotl, f"uint64({STATES_SPELLING}, int64)", tmp_path)
    a, b = _pair(2, seed=8)
    for _ in range(20):
        assert _call(f, ctypes.c_uint64, a, ctypes.c_int64(1)) == nr.xoroshiro128p_next(b, 1)


def test_a_modules_own_constant_does_not_stand_in_for_cubridges():
    from cubridge import _compiler, _core
    o = _compiler._options(False, False, False, False, CC, True, "numba", None, "ptx")
    source, name = _compiler._collect(normal_beside_own_constant, o)
    ir = _core._compile_source_to_ir(source, name, f"void({STATES_SPELLING}, float32[::1])", o).nvvm_ir
    assert "fmul float 0x401921FB60000000" in ir  # float32(2 pi) in the Box-Muller cosine, not 1.0


@pytest.mark.parametrize("kernel, message", [
    ("host_function_through_module", r"'numba.cuda.random.create_xoroshiro128p_states' cannot be called in compiled "
                                     r"code; the device functions of numba.cuda.random are xoroshiro128p_uniform_float32"),
    ("host_function_imported", r"'numba.cuda.random.init_xoroshiro128p_states' cannot be called in compiled code"),
    ("cubridge_host_function", r"'cubridge.random.create_xoroshiro128p_states' cannot be called in compiled code; "
                               r"the device functions of cubridge.random are"),
    ("missing_function", r"'numba.cuda.random.xoroshiro128p_uniform_float16' cannot be called in compiled code"),
])
def test_host_functions_in_kernels_are_refused_by_name(kernel, message):
    with pytest.raises(cubridge.CompileError, match=r"test_random.py:\d+:\d+: " + message):
        cubridge.compile_ptx(globals()[kernel], (nr.xoroshiro128p_type[::1],), cc=CC)


from numba import cuda  # noqa: E402
from numba.cuda.random import init_xoroshiro128p_states  # noqa: E402
from cubridge.random import create_xoroshiro128p_states  # noqa: E402


def host_function_through_module(states):
    cuda.random.create_xoroshiro128p_states(10, 1)


def host_function_imported(states):
    init_xoroshiro128p_states(states, 1)


def cubridge_host_function(states):
    create_xoroshiro128p_states(10, 1)


def missing_function(states):
    cuda.random.xoroshiro128p_uniform_float16(states, 0)
