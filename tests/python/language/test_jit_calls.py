"""How real code calls helpers (issue 12, item 3), on the CPU: keyword arguments and defaults bound as
Python binds them (with Python's errors at the call site), helpers reached through modules and under other
names, `x is None` on omitted arguments (numba's branch pruning), helpers returning nothing, and every
option of numba-cuda's cuda.jit accepted by cubridge.jit with its meaning. Result types are numba's
(checked with numba's own typing where its CPU target shows them)."""
import math
import os
import sys

import numpy

numpy.row_stack = getattr(numpy, "row_stack", numpy.vstack)  # numba 0.68 still names it

import numba  # noqa: E402
import pytest  # noqa: E402

import cubridge  # noqa: E402
from cubridge import _compiler, _core, _jit_options  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity import helpers_pkg  # noqa: E402
from parity.helpers_pkg import sub  # noqa: E402

CC = (9, 0)
HERE = os.path.basename(__file__)


def nvvm_ir(fn, sig, **options):
    o = _compiler._options(False, False, options.get("device", True), False, None, True, "c", None, "ptx")
    source, name = _compiler._collect(fn, o)
    return _core._compile_source(source, name, sig, o).nvvm_ir


# ---- keyword arguments and defaults ----

def scaled(x, scale=2.0, offset=None):
    if offset is None:
        return x * scale  # with offset None, the other return (None + ...) is pruned, as numba prunes it
    return x * scale + offset


def call_keywords(a, b):
    return scaled(a, offset=b) + scaled(x=b, scale=3)


def call_defaults(a):
    return scaled(a)


def call_explicit_none(a):
    return scaled(a, 1.0, None)


def weighted(x, w=(1.0, 0.5), bias=-1):
    return x * w[0] + w[1] + bias


def call_tuple_default(a):
    return weighted(a) + weighted(a, bias=2)


def test_keywords_and_defaults_type_as_numba():
    assert cubridge.compile(call_keywords, "(float32, float32)")[1] == cubridge.float64
    assert cubridge.compile(call_defaults, "(float32,)")[1] == cubridge.float64
    assert cubridge.compile(call_defaults, "(int32,)")[1] == cubridge.float64
    assert cubridge.compile(call_explicit_none, "(int64,)")[1] == cubridge.float64
    assert cubridge.compile(call_tuple_default, "(float32,)")[1] == cubridge.float64


def test_defaults_agree_with_numba_njit():
    # numba's CPU target (the same typing numba-cuda uses) on clones whose helpers are njit functions.
    helpers = dict(scaled=numba.njit(scaled), weighted=numba.njit(weighted))
    for fn, args in [(call_keywords, (numpy.float32(1), numpy.float32(2))), (call_defaults, (numpy.float32(1),)),
                     (call_tuple_default, (numpy.float32(1),))]:
        clone = numba.njit(_rebind(fn, **helpers))
        clone(*args)
        numba_result = clone.nopython_signatures[0].return_type
        sig = "(" + ", ".join("float32" for _ in args) + ")"
        assert cubridge.compile(fn, sig)[1].name == str(numba_result)


def default_is_computed_when_def_runs(x, k=len("abc")):
    return x * k


def test_default_values_are_those_python_computed():
    # The default is an expression the compiler could not fold (len("abc")): Python's value (3) is used.
    ptx, resty = cubridge.compile(lambda_free_caller, "(int64,)")
    assert resty == cubridge.int64


def lambda_free_caller(x):
    return default_is_computed_when_def_runs(x)


def too_many(a):
    return scaled(a, 1.0, 2.0, 3.0)


def unknown_keyword(a):
    return scaled(a, sclae=2.0)


def duplicate(a):
    return scaled(a, x=a)


def missing(a):
    return weighted()


def two_missing(a):
    return scaled()


def test_argument_errors_are_pythons_named_at_the_call():
    with pytest.raises(cubridge.CompileError, match=HERE + r":\d+:\d+: scaled\(\) takes 3 positional arguments but 4 were given"):
        cubridge.compile(too_many, "(float32,)")
    with pytest.raises(cubridge.CompileError,
                       match=r"scaled\(\) got an unexpected keyword argument 'sclae' \(its parameters: x, scale, offset\)"):
        cubridge.compile(unknown_keyword, "(float32,)")
    with pytest.raises(cubridge.CompileError, match=r"scaled\(\) got multiple values for argument 'x'"):
        cubridge.compile(duplicate, "(float32,)")
    with pytest.raises(cubridge.CompileError, match=r"weighted\(\) missing 1 required positional argument: 'x'"):
        cubridge.compile(missing, "(float32,)")
    with pytest.raises(cubridge.CompileError, match=r"scaled\(\) missing 1 required positional argument: 'x'"):
        cubridge.compile(two_missing, "(float32,)")


def test_parameter_without_default_after_default_is_refused():
    src = "def f(x=1, y):\n    return x\n"
    with pytest.raises(cubridge.CompileError, match=r"m.py:1:12: parameter 'y' without a default follows a parameter with a default"):
        o = _compiler._options(False, False, True, False, None, True, "c", None, "ptx")
        o.filename = "m.py"
        _core._compile_source(src, "f", "(int64, int64)", o)


# ---- is None / is not None ----

def pick(x, y=None):
    return x if y is None else x + y


def not_none(x, y=None):
    if y is not None:
        return x - y
    return x


def call_pick(a, b):
    return pick(a) + pick(a, b) + not_none(a) + not_none(a, b)


def is_numbers(a, b):
    return a is b


def is_not_numbers(a, b):
    return a is not b


def is_arrays(a, b):
    return a is b


def test_is_none_folds_on_the_argument_type():
    assert cubridge.compile(call_pick, "(int32, float32)")[1] == cubridge.float64


# `x is y` of values that are not None is numba's generic_is: one immutable type compares with ==, two types
# are never the same object, arrays and records (mutable) have no `is`. Values on the GPU: parity/kernels_calls.
def test_is_of_numbers_is_equality_of_one_type_and_false_across_types():
    ir = cubridge.compile(is_numbers, "(int32, int32)", output="llvm")[0]
    assert "icmp eq i32" in ir
    ir = cubridge.compile(is_not_numbers, "(int32, int32)", output="llvm")[0]
    assert "icmp ne i32" in ir
    assert cubridge.compile(is_numbers, "(int32, int64)")[1] == cubridge.boolean
    ir = cubridge.compile(is_numbers, "(int32, int64)", output="llvm")[0]
    assert "icmp" not in ir.split("define")[-1]  # a constant False: no comparison


def test_is_of_arrays_is_refused_by_name():
    with pytest.raises(cubridge.CompileError, match=r"the 'is' operator on a value of type array\(int64, 1d, A\) is "
                                                    r"not supported"):
        cubridge.compile(is_arrays, "(int64[:], int64[:])", abi="numba")


# ---- helpers that return nothing ----

def store(a, i, v):
    a[i] = v


def early(a, i):
    if i < 0:
        return
    a[i] += 1.0


def explicit_none(a, i):
    a[i] = 0.0
    return None


def kernel_calls_void_helpers(a):
    store(a, 0, 2.0)
    early(a, 1)
    explicit_none(a, 2)


def mixed_value_and_none(x):
    if x > 0:
        return x
    return None


def optional_checked(x):
    r = mixed_value_and_none(x)
    if r is not None:
        return r + 1
    return x


def optional_is_none(x):
    r = mixed_value_and_none(x)
    if r is None:
        return x
    return r * 2


def optional_unwrapped(x):
    return mixed_value_and_none(x) + 1


def optional_ifexp(x):
    r = mixed_value_and_none(x)
    return (r if r is not None else x) + 0


def optional_returned(x):
    return mixed_value_and_none(x)


def none_then_value(x):
    r = None if x < 0 else x
    if r is None:
        return 0
    return r + 0  # r itself is Optional(int64): returning it would make the result Optional, as in numba


def test_optional_results_as_numba_types_them():
    # numba: mixed_value_and_none(float64) -> OptionalType(float64); checked or used as a float64.
    for fn in (optional_checked, optional_is_none, optional_unwrapped, optional_ifexp):
        assert cubridge.compile(fn, "(float64,)")[1] == cubridge.float64, fn.__name__
        clone = numba.njit(_rebind(fn, mixed_value_and_none=numba.njit(mixed_value_and_none)))
        clone(1.0)
        assert str(clone.nopython_signatures[0].return_type) == "float64"
    assert cubridge.compile(none_then_value, "(int64,)")[1] == cubridge.int64
    with pytest.raises(cubridge.CompileError, match=r"'optional_returned' returns OptionalType\(float64\): only the "
                                                    r"functions it calls may return an Optional"):
        cubridge.compile(optional_returned, "(float64,)")


def test_optional_is_tested_at_run_time_and_unwrapped_with_a_check():
    ptx, _ = cubridge.compile_ptx(optional_kernel, "void(float32[:], float32[:])", cc=CC)
    assert cubridge.ptxas_check(ptx, CC)
    ir = nvvm_ir(optional_unwrapped, "(float64,)")
    assert "{double, i1}" in ir


def optional_kernel(x, out):
    r = mixed_value_and_none(x[0])
    out[0] = r if r is not None else -1.0
    out[1] = mixed_value_and_none(x[1])


def _rebind(fn, **names):
    import types as _t
    return _t.FunctionType(fn.__code__, dict(globals(), **names), fn.__name__)


def test_helpers_returning_nothing():
    ptx, resty = cubridge.compile_ptx(kernel_calls_void_helpers, "void(float32[:])", cc=CC)
    assert resty is None and cubridge.ptxas_check(ptx, CC)


# ---- modules, aliases, closures, tuples of functions ----

def module_calls(x):
    return (helpers_pkg.shift(x) + helpers_pkg.OFFSET + helpers_pkg.sub.clamp(x, hi=0.5) + sub.smooth(x)
            + helpers_pkg.WEIGHTS[2] + sub.LIMIT)


def square(x):
    return x * x


def negate(x):
    return -x


OPS = (square, negate)
twice = square


def aliases(x):
    return OPS[0](x) + OPS[-1](x) + twice(x)


def make(op):
    def apply(x):
        return op(x) + 1
    return apply


def make_pair(ops):
    def pair(x):
        return ops[0](x) * ops[1](x)
    return pair


def test_module_members_and_other_names():
    assert cubridge.compile(module_calls, "(float32,)")[1] == cubridge.float64
    assert cubridge.compile(aliases, "(int32,)")[1] == cubridge.int64  # numba: -int32 is int64
    assert cubridge.compile(make(negate), "(float32,)")[1] == cubridge.float64
    assert cubridge.compile(make_pair((square, negate)), "(int64,)")[1] == cubridge.int64
    ir = nvvm_ir(aliases, "(int32,)")
    assert ir.count("define internal") >= 2  # square and negate compiled by their own names


def two_applies(x):
    return apply_a(x) + apply_b(x)


apply_a, apply_b = make(square), make(negate)


def test_two_helpers_with_one_name_are_refused_by_name():
    with pytest.raises(cubridge.CompileError, match=r"two different functions named 'apply' are called .*rename one"):
        cubridge.compile(two_applies, "(int64,)")


def call_unknown_module_member(x):
    return helpers_pkg.missing_fn(x)


def test_unknown_module_member_is_refused():
    with pytest.raises(cubridge.CompileError, match=r"call of 'parity.helpers_pkg.missing_fn' is not supported"):
        cubridge.compile(call_unknown_module_member, "(int64,)")


# ---- cuda.jit options ----

def test_every_numba_cuda_option_is_accepted():
    for options in [dict(device=True, inline="always"), dict(device=True, inline="never"), dict(device=True, inline=True),
                    dict(device=True, forceinline=True), dict(debug=True, opt=False), dict(lineinfo=True),
                    dict(fastmath=True), dict(fastmath={"nsz", "arcp", "contract", "afn", "reassoc"}),
                    dict(max_registers=32), dict(launch_bounds=256), dict(launch_bounds=(256, 2, 1)),
                    dict(lto=True), dict(cache=False), dict(extensions=[]), dict(boundscheck=False), dict(link=[])]:
        cubridge.jit(**options)


def test_unknown_and_bad_options_are_refused_by_name():
    with pytest.raises(TypeError, match=r"jit: unknown option\(s\) 'argtypes'; cubridge.jit accepts device, inline, "
                                        r"forceinline, link, debug, opt, lineinfo, cache, fastmath, max_registers"):
        cubridge.jit(argtypes=(numba.float32,))
    with pytest.raises(NotImplementedError, match=r"bounds checking is not supported"):
        cubridge.jit(boundscheck=True)
    with pytest.raises(ValueError, match=r"fastmath flag\(s\) 'fats' unknown; numba's flags are afn, arcp, contract"):
        cubridge.jit(fastmath={"fats"})
    with pytest.raises(ValueError, match=r"inline='sometimes': kwarg 'inline' must be one of the strings 'always' or "
                                         r"'never', or it can be a callable that returns True/False"):
        cubridge.jit(device=True, inline="sometimes")
    with pytest.raises(ValueError, match=r"inline=3: kwarg 'inline' must be one of the strings"):
        cubridge.jit(inline=3)
    with pytest.raises(ValueError, match=r"max_registers must be a positive int, got 0"):
        cubridge.jit(max_registers=0)
    with pytest.raises(ValueError, match=r"launch_bounds takes 1 to 3 items"):
        cubridge.jit(launch_bounds=(1, 2, 3, 4))
    with pytest.raises(TypeError, match=r"extension <object object at .*> \(object\) has no callable prepare_args"):
        cubridge.jit(extensions=[object()])
    with pytest.raises(FileNotFoundError, match=r"link file 'no/such.ptx' does not exist"):
        cubridge.jit(link=["no/such.ptx"])
    with pytest.raises(TypeError, match=r"jit: debug='yes' is not a bool"):
        cubridge.jit(debug="yes")


@cubridge.jit(device=True, inline="never")
def kept_out_of_line(x):
    return x * 3


@cubridge.jit(device=True, forceinline=True)
def forced_inline(x):
    return x + 3


def calls_decorated(x):
    return kept_out_of_line(x) + forced_inline(x)


def test_inline_never_leaves_the_helper_to_nvvm():
    ir = nvvm_ir(calls_decorated, "(int32,)")
    lines = [line for line in ir.splitlines() if line.startswith("define internal i32 @")]
    assert any("kept_out_of_line" in line and "alwaysinline" not in line for line in lines), lines
    assert any("forced_inline" in line and "alwaysinline" in line for line in lines), lines


def write_index(a):
    a[0] = 1


def test_max_registers_and_launch_bounds_become_ptx_directives():
    k = cubridge.jit("void(int32[:])", max_registers=40, launch_bounds=(128, 4))(write_index)
    ptx = k.inspect_ptx()["void(int32[:])"]
    assert ".maxntid 128, 1, 1\n.minnctapersm 4\n.maxnreg 40\n{" in ptx  # written by the compiler (libNVVM)
    assert cubridge.ptxas_check(ptx, CC)
    ptx, _ = cubridge.compile_ptx(write_index, "void(int32[:])", cc=CC, launch_bounds=(64, 1, 2))
    assert ".maxclusterrank 2" in ptx and cubridge.ptxas_check(ptx, CC)
    with pytest.raises(ValueError, match=r"launch_bounds' third item \(max blocks per cluster: 2\) needs "
                                         r"thread-block clusters, compute capability 9.0 or higher; the target is 7.5"):
        cubridge.compile_ptx(write_index, "void(int32[:])", cc=(7, 5), launch_bounds=(64, 1, 2))
    plain, _ = cubridge.compile_ptx(write_index, "void(int32[:])", cc=CC)
    assert ".maxntid" not in plain and ".maxnreg" not in plain
    with pytest.raises(ValueError, match=r"launch_bounds apply to kernels compiled to PTX"):
        cubridge.compile(write_index, "void(int32[:])", device=True, abi="numba", launch_bounds=64)


def test_fastmath_flag_set_means_fastmath():
    plain, _ = cubridge.compile_ptx(sqrt_div, "void(float32[:])", cc=CC)
    fast, _ = cubridge.compile_ptx(sqrt_div, "void(float32[:])", cc=CC, fastmath={"afn", "arcp"})
    assert "sqrt.approx" in fast and "sqrt.approx" not in plain


def sqrt_div(a):
    a[0] = math.sqrt(a[1]) / a[2]


def test_link_files_are_linked_by_nvjitlink(tmp_path):
    cu = tmp_path / "extra.cu"
    cu.write_text('extern "C" __device__ int extra_twice(int x) { return 2 * x; }\n')
    k = cubridge.jit("void(int32[:])", link=[str(cu)])(write_index)
    assert cubridge.jit(device=True, link=[str(cu)])(write_index).targetoptions["link"] == (str(cu),)
    cubin = _jit_options.link_image(k.inspect_ptx()["void(int32[:])"], k._options, CC)
    assert cubin[:4] == b"\x7fELF"


def add_index(a):
    i = cubridge.grid(1)
    if i < a.shape[0]:
        a[i] += i


@pytest.mark.gpu
def test_kernel_options_launch_on_the_gpu(tmp_path):
    """max_registers and launch_bounds directives load and run; a kernel linked with a .cu file by
    nvJitLink at load runs (its values are the kernel's own: calling the linked function needs declare_device)."""
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    cu = tmp_path / "extra.cu"
    cu.write_text('extern "C" __device__ int extra_twice(int x) { return 2 * x; }\n')
    for options in (dict(max_registers=32), dict(launch_bounds=(128, 2)), dict(link=[str(cu)])):
        k = cubridge.jit("void(int64[::1])", **options)(add_index)
        a = cp.zeros(256, dtype=cp.int64)
        k[2, 128](a)
        assert (a.get() == numpy.arange(256)).all(), options
