"""Random numbers in kernels: numba-cuda's ``numba.cuda.random`` (xoroshiro128+), bit for bit.

The host side seeds one generator per thread as numba-cuda does (splitmix64 of the seed, then each
generator 2**64 steps past the one before: ``create_xoroshiro128p_states``, ``init_xoroshiro128p_states``);
the jumps run in C++ (src/random/). The device functions below are written in the Python subset that
cubridge compiles and follow numba-cuda's arithmetic step for step (casts, shift widths, the float
conversions, Box-Muller with the second value dropped), so a kernel draws the same numbers with either
library from either library's states. A kernel may name them from here or from ``numba.cuda.random``:
the compiler reads numba's functions as these (``_environment._collect``) and never compiles numba's source.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from . import _arrays, _core, _records, _types

__all__ = [
    "xoroshiro128p_dtype", "xoroshiro128p_type", "create_xoroshiro128p_states", "init_xoroshiro128p_states",
    "init_xoroshiro128p_states_cpu", "init_xoroshiro128p_state", "xoroshiro128p_next", "xoroshiro128p_jump",
    "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64", "xoroshiro128p_normal_float32",
    "xoroshiro128p_normal_float64", "rotl", "uint64_to_unit_float32", "uint64_to_unit_float64",
    "TWO_PI_FLOAT32", "TWO_PI_FLOAT64",
]

# numba's dtype, aligned as numba makes it, so that numba's kernels take these arrays as their own.
xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)
# A CUDA Array Interface descr has no alignment flag, so an array of these states would read back as
# packed (same layout) and type apart from numba's: arrays of exactly this descr are taken to be numba's
# states (DeviceArray.dtype, so cubridge.typeof and _numba_type_), and explicit signatures match.
_arrays.remember_dtype(xoroshiro128p_dtype)
# Its record type, for signatures: xoroshiro128p_type[::1] (named as numba names it).
xoroshiro128p_type = _types.from_dtype(xoroshiro128p_dtype)

TWO_PI_FLOAT32 = np.float32(2 * math.pi)
TWO_PI_FLOAT64 = np.float64(2 * math.pi)


# ---- device functions, compiled by cubridge. A compiled function and the functions and constants it
# reaches share one namespace, so the helpers and constants they use have names of their own: a kernel's
# own rotl or TWO_PI_FLOAT32 never stands in for them. ----

_XOROSHIRO128P_TWO_PI_FLOAT32 = TWO_PI_FLOAT32
_XOROSHIRO128P_TWO_PI_FLOAT64 = TWO_PI_FLOAT64
# The jump polynomial for 2**64 steps, low word first.
_XOROSHIRO128P_JUMP_LOW = np.uint64(0xBEAC0467EBA5FACB)
_XOROSHIRO128P_JUMP_HIGH = np.uint64(0xD86B048B86AA9922)


def _xoroshiro128p_rotl(x, k):
    x = np.uint64(x)
    k = np.uint32(k)
    return (x << k) | (x >> np.uint32(64 - k))


def _xoroshiro128p_unit_float64(x):
    # The top 53 bits, scaled into [0, 1).
    x = np.uint64(x)
    return (x >> np.uint32(11)) * (np.float64(1) / (np.uint64(1) << np.uint32(53)))


def _xoroshiro128p_unit_float32(x):
    # Rounded from the float64: like numba's, it can round up to 1.0.
    return np.float32(_xoroshiro128p_unit_float64(x))


def _xoroshiro128p_splitmix64(seed):
    z = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint32(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint32(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint32(31))


def rotl(x, k):
    """Left rotate x (uint64) by k bits."""
    return _xoroshiro128p_rotl(x, k)


def uint64_to_unit_float64(x):
    """Convert uint64 to a float64 in [0.0, 1.0)."""
    return _xoroshiro128p_unit_float64(x)


def uint64_to_unit_float32(x):
    """Convert uint64 to a float32 in [0.0, 1.0] (the rounding can give 1.0, as numba's does)."""
    return _xoroshiro128p_unit_float32(x)


def init_xoroshiro128p_state(states, index, seed):
    """Set ``states[index]`` to the splitmix64 state of ``seed`` (s0 == s1)."""
    i = np.int64(index)
    z = _xoroshiro128p_splitmix64(seed)
    states[i]["s0"] = z
    states[i]["s1"] = z


def xoroshiro128p_next(states, index):
    """Return the next random uint64 and advance ``states[index]``."""
    i = np.int64(index)
    s0 = states[i]["s0"]
    s1 = states[i]["s1"]
    result = s0 + s1
    s1 ^= s0
    states[i]["s0"] = _xoroshiro128p_rotl(s0, np.uint32(55)) ^ s1 ^ (s1 << np.uint32(14))
    states[i]["s1"] = _xoroshiro128p_rotl(s1, np.uint32(36))
    return result


def xoroshiro128p_jump(states, index):
    """Advance ``states[index]`` by 2**64 steps."""
    i = np.int64(index)
    s0 = np.uint64(0)
    s1 = np.uint64(0)
    for w in range(2):
        word = _XOROSHIRO128P_JUMP_LOW if w == 0 else _XOROSHIRO128P_JUMP_HIGH
        for b in range(64):
            if word & (np.uint64(1) << np.uint32(b)):
                s0 ^= states[i]["s0"]
                s1 ^= states[i]["s1"]
            xoroshiro128p_next(states, i)
    states[i]["s0"] = s0
    states[i]["s1"] = s1


def xoroshiro128p_uniform_float32(states, index):
    """Return a float32 in [0.0, 1.0) and advance ``states[index]``."""
    return _xoroshiro128p_unit_float32(xoroshiro128p_next(states, index))


def xoroshiro128p_uniform_float64(states, index):
    """Return a float64 in [0.0, 1.0) and advance ``states[index]``."""
    return _xoroshiro128p_unit_float64(xoroshiro128p_next(states, index))


def xoroshiro128p_normal_float32(states, index):
    """Return a float32 from N(0, 1) (Box-Muller) and advance ``states[index]`` by two steps."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-np.float32(2.0) * math.log(u1)) * math.cos(_XOROSHIRO128P_TWO_PI_FLOAT32 * u2)


def xoroshiro128p_normal_float64(states, index):
    """Return a float64 from N(0, 1) (Box-Muller) and advance ``states[index]`` by two steps. As numba's,
    it draws float32 uniforms and takes their float32 logarithm."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-np.float64(2.0) * math.log(u1)) * math.cos(_XOROSHIRO128P_TWO_PI_FLOAT64 * u2)


# What the compiler reads for numba.cuda.random's functions of the same name.
_DEVICE_FUNCTIONS = {f.__name__: f for f in (
    rotl, uint64_to_unit_float64, uint64_to_unit_float32, init_xoroshiro128p_state, xoroshiro128p_next,
    xoroshiro128p_jump, xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64,
    xoroshiro128p_normal_float32, xoroshiro128p_normal_float64)}


# ---- host side ----

def _uint64_argument(what: str, value, allow_negative: bool) -> int:
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {value!r} ({type(value).__name__})") from None
    low = -2**63 if allow_negative else 0
    if not low <= v < 2**64:
        accepted = "[-2**63, 2**64) (negative seeds wrap modulo 2**64, as numba's uint64(seed))" if allow_negative \
            else "[0, 2**64)"
        raise ValueError(f"{what} must be in {accepted}, got {v}")
    return v % 2**64


def _count(n) -> int:
    try:
        v = operator.index(n)
    except TypeError:
        raise TypeError(f"create_xoroshiro128p_states: n must be an int (the number of states), got {n!r}") from None
    if v < 0:
        raise ValueError(f"create_xoroshiro128p_states: n must be >= 0, got {v}")
    return v


def _host_states(n: int, seed, subsequence_start, caller: str) -> np.ndarray:
    seed = _uint64_argument(f"{caller}: seed", seed, allow_negative=True)
    start = _uint64_argument(f"{caller}: subsequence_start", subsequence_start, allow_negative=False)
    host = np.empty(n, dtype=xoroshiro128p_dtype)
    _core._init_xoroshiro128p_states(host.view(np.uint8), seed, start)
    return host


def _states_dtype_error(caller: str, states) -> str | None:
    cai = states.__cuda_array_interface__
    typestr, descr, shape = cai.get("typestr"), cai.get("descr"), tuple(cai.get("shape", ()))
    if len(shape) != 1:
        return f"{caller}: states must be 1-d, got shape {shape}"
    if descr is None and getattr(states, "dtype", None) is not None:
        # numba's device arrays export no descr for records: their own dtype says what the fields are
        try:
            descr = np.dtype(states.dtype).descr
        except TypeError:
            pass
    fields = [tuple(f[:2]) for f in descr or ()]
    if typestr != "|V16" or fields != [("s0", "<u8"), ("s1", "<u8")]:
        return (f"{caller}: states must have numba's xoroshiro128p_dtype (typestr '|V16', descr "
                f"[('s0', '<u8'), ('s1', '<u8')]), got typestr {typestr!r} and descr {descr!r}")
    strides = cai.get("strides")
    if strides is not None and shape[0] > 1 and tuple(strides) != (16,):
        return f"{caller}: states must be contiguous, got strides {tuple(strides)}"
    return None


def init_xoroshiro128p_states_cpu(states, seed, subsequence_start):
    """Fill a NumPy array of xoroshiro128p_dtype with the states ``init_xoroshiro128p_states`` makes."""
    caller = "init_xoroshiro128p_states_cpu"
    if not isinstance(states, np.ndarray) or states.ndim != 1 or states.dtype != xoroshiro128p_dtype:
        raise TypeError(f"{caller}: states must be a 1-d NumPy array of xoroshiro128p_dtype, got {states!r}")
    if not states.flags.c_contiguous or not states.flags.writeable:
        raise ValueError(f"{caller}: states must be contiguous and writeable")
    states[...] = _host_states(states.shape[0], seed, subsequence_start, caller)


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Initialise the GPU array ``states`` (numba's xoroshiro128p_dtype, 1-d; a cubridge array, a numba
    DeviceNDArray or any CUDA Array Interface exporter): generator i starts ``subsequence_start + i``
    jumps of 2**64 steps past the splitmix64 state of ``seed``, so that no two threads' streams overlap
    within 2**64 draws. Seeded on the CPU, copied on ``stream`` (0: the default stream)."""
    caller = "init_xoroshiro128p_states"
    if not _arrays.is_cuda_array(states):
        raise TypeError(f"{caller}: states must be a GPU array (__cuda_array_interface__), got "
                        f"{type(states).__name__}")
    why = _states_dtype_error(caller, states)
    if why:
        raise ValueError(why)
    target = states if isinstance(states, _core.DeviceArray) else _arrays.as_cuda_array(states)
    host = _host_states(int(target.shape[0]), seed, subsequence_start, caller)
    if host.shape[0]:
        # The same 16 bytes per state whatever the target's dtype says of them: a numba array read through
        # its interface alone (no descr) is a plain '|V16' array here.
        target.copy_to_device(host.view(target.dtype), stream=stream)  # stream 0: the default stream, as numba


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A new GPU array of ``n`` xoroshiro128+ states (numba's xoroshiro128p_dtype), initialised as
    ``init_xoroshiro128p_states`` does; numba-cuda's kernels take it as they take their own."""
    caller = "create_xoroshiro128p_states"
    n = _count(n)
    host = _host_states(n, seed, subsequence_start, caller)
    stream = _arrays._numba_stream(stream)
    states = _arrays.device_array(n, xoroshiro128p_dtype, "C", stream)
    if n:
        states.copy_to_device(host, stream=stream)
    return states
