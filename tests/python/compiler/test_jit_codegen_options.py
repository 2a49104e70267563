"""Code generation options as numba-cuda's tests check them (test_optimization, test_inline). The rules:

1. opt=False keeps an unoptimised kernel's locals in local memory: its PTX has __local_depot0 (the entry
   comes first in the module, as numba-cuda's does); opt=True has none;
2. an optimised kernel is its own entry (no call of a body function, as numba-cuda's); unoptimised its body
   is a function the entry calls, never marked alwaysinline; a device function is alwaysinline when not told
   otherwise (cubridge's default) or with forceinline=True; forceinline=False or inline='never' written out
   leaves it a plain call (numba-cuda's default), the call kept in the IR; inline='always' (or True) is
   numba-cuda's IR-level inlining: the body is written into each caller, no call of it and no alwaysinline
   anywhere (with debug info, or for a recursive function, it stays a call of an alwaysinline function);
   a kernel dispatcher called from a kernel keeps its options, and numba-cuda's inline='always' is read;
3. internal functions are named __cb_fn<N>_<length><name>, so a function's Python name is preceded by its
   length as in numba's mangled names;
4. compile(forceinline=...) is for LTO-IR of device functions: forceinline with another output raises
   ValueError("Can only designate forced inlining in LTO-IR ..."), with a kernel "Cannot force-inline
   kernels"; True and False give different LTO-IR;
5. the C ABI passes an array argument as numba-cuda's C ABI does: its 5 + 2N data-model fields;
6. _dbg_optnone=True (numba-cuda's debugging flag) marks every function not forced inline optnone noinline,
   never a kernel entry (NVVM wants it inlinable); the IR declares no bool variable of an if's condition
   (numba-cuda's test_no_if_op_bools_declared); a non-bool value is refused by name."""
import re

import pytest

import cubridge
from parity import kernels_calls as _parity_calls

CC = (9, 0)
SIG = "void(int32[::1])"


def kernel_func(x):
    x[0] = 1


def test_opt_false_keeps_locals_in_local_memory():
    sig = "void(float64[::1])"
    noopt = cubridge.jit(sig, opt=False, cache=False)(kernel_func).inspect_asm(sig)
    opt = cubridge.jit(sig, cache=False)(kernel_func).inspect_asm(sig)
    assert "__local_depot0" in noopt
    assert "__local_depot0" not in opt


def _caller_ir(**helper_options):
    helper = cubridge.jit(device=True, **helper_options)(set_zero)

    def call_set_zero(a):
        helper(a)
    return cubridge.jit(SIG)(call_set_zero).inspect_llvm(SIG)


def set_zero(a):
    a[0] = 0


def _definition(ir, pattern):
    m = re.search(pattern, ir)
    assert m is not None, ir
    return m.group()


@pytest.mark.parametrize("options,forced", [
    ({}, True), ({"forceinline": True}, True),
    ({"forceinline": False}, False), ({"inline": "never"}, False), ({"inline": False}, False),
])
def test_alwaysinline_marks_device_functions_as_told(options, forced):
    ir = _caller_ir(**options)
    assert re.search(r"call [a-zA-Z0-9]* @", ir), ir  # the call is in the IR; NVVM inlines it
    helper = _definition(ir, r"define.*[^_]set_zero.*")
    assert ("alwaysinline" in helper) == forced, helper
    assert "alwaysinline" not in _definition(ir, r"define.*call_set_zero.*")


@pytest.mark.parametrize("options", [{"forceinline": False}, {"inline": "never"}, {"inline": False}])
def test_a_kernel_dispatcher_called_from_a_kernel_keeps_its_inline_options(options):
    # numba-cuda's test_inline: @cuda.jit(inline=...) without device=True, called from a kernel, compiles as a
    # device function with its options; written 'never' / False, no alwaysinline anywhere and the call kept
    helper = cubridge.jit(**options)(set_zero)

    def call_set_zero(a):
        helper(a)
    ir = cubridge.jit(SIG)(call_set_zero).inspect_llvm(SIG)
    assert re.search(r"call [a-zA-Z0-9]* @", ir), ir
    assert "alwaysinline" not in ir, ir


@pytest.mark.parametrize("device", [True, False])
@pytest.mark.parametrize("inline", ["always", True])
def test_inline_always_writes_the_body_into_the_caller(inline, device):
    helper = cubridge.jit(device=device, inline=inline)(set_zero)

    def call_set_zero(a):
        helper(a)
    ir = cubridge.jit(SIG)(call_set_zero).inspect_llvm(SIG)
    assert not re.search(r"call [a-zA-Z0-9]* @", ir), ir  # numba-cuda's test_inline pattern
    assert "alwaysinline" not in ir and "set_zero(" not in ir.replace("call_set_zero(", ""), ir
    assert re.search(r"store i32 \S+, i32\* %t\d+", ir), ir  # a[0] = 0, in the kernel


# the parity case's helper (loops, continue, early tuple returns), as a cubridge device function
clipped_sum = cubridge.jit(device=True, inline="always")(_parity_calls.clipped_sum.py_func)


@cubridge.jit(device=True, inline="always")
def checked_double(n):
    if n < 0:
        raise ValueError("negative count")
    return n * 2


def inlined_bodies(a, out):
    s, n = clipped_sum(a, 0.5, 10.0)
    t, m = clipped_sum(a, 1.5, 3.0)
    out[0] = s + t + checked_double(n + m)


@pytest.mark.parametrize("debug", [False, True])
def test_inlined_bodies_with_loops_returns_and_raises_assemble(debug):
    sig = "void(float64[::1], float64[::1])"
    k = cubridge.jit(sig, debug=debug, opt=not debug)(inlined_bodies)
    ir = k.inspect_llvm(sig)
    calls = re.findall(r"call i32 @(__cb_fn\w+)\(", ir)
    if debug:  # each instruction would need an inlinedAt location: calls of alwaysinline functions instead
        assert any("clipped_sum" in c for c in calls) and "alwaysinline" in ir
    else:
        assert calls == [] and "alwaysinline" not in ir, ir
    r = cubridge.ptxas_check(k.inspect_asm(sig), CC)
    assert r, r.log


def test_numba_dispatchers_inline_always_is_read():
    numba_cuda = pytest.importorskip("numba.cuda")
    helper = numba_cuda.jit(device=True, inline="always")(set_zero)
    if "inline" not in getattr(helper, "targetoptions", {}):
        pytest.skip("this numba's dispatcher does not record inline= (numba-cuda's targetoptions do)")

    def call_set_zero(a):
        helper(a)
    ir = cubridge.jit(SIG)(call_set_zero).inspect_llvm(SIG)
    assert not re.search(r"call [a-zA-Z0-9]* @", ir), ir


def test_internal_names_carry_the_length_of_the_python_name():
    ir = _caller_ir()
    assert "@__cb_fn1_8set_zero(" in ir


def call_twice(a):
    set_zero(a)
    set_zero(a)


def test_an_optimised_kernel_is_its_own_entry():
    # numba-cuda's shape: the kernel function itself is the entry (void), with no call of a body function;
    # unoptimised, the body is a function of its own called with a status slot (local memory).
    ir = cubridge.jit(SIG)(call_twice).inspect_llvm(SIG)
    entry = _definition(ir, r"define void @.*call_twice.*")
    assert "__cb_fn0" not in ir, ir
    assert entry.startswith("define void @_ZN")
    noopt = cubridge.jit(SIG, opt=False)(call_twice).inspect_llvm(SIG)
    assert re.search(r"call i32 @__cb_fn0_10call_twice\(", noopt), noopt


def test_compile_forceinline_is_for_device_ltoir():
    with pytest.raises(ValueError, match=r"Can only designate forced inlining in LTO-IR \(output='ltoir'\), got "
                                         r"output='ptx'"):
        cubridge.compile(set_zero, "void(float32[::1])", device=True, forceinline=True)
    with pytest.raises(ValueError, match=r"Cannot force-inline kernels"):
        cubridge.compile(set_zero, "void(float32[::1])", device=False, abi="numba", output="ltoir",
                         forceinline=True)
    plain, resty = cubridge.compile(set_zero, "void(float32[::1])", device=True, output="ltoir", forceinline=False,
                                    cc=CC)
    forced, _ = cubridge.compile(set_zero, "void(float32[::1])", device=True, output="ltoir", forceinline=True,
                                 cc=CC)
    assert resty is None and plain != forced


def test_forceinline_false_leaves_the_c_abi_body_unmarked():
    def ir(**kw):
        return cubridge._compiler._compile_result(set_zero, "void(float32[::1])", device=True, output="llvm",
                                                  directives=cubridge._jit_options.jit_options(**kw)).nvvm_ir
    assert "alwaysinline" not in _definition(ir(forceinline=False), r"define internal.*set_zero.*")
    assert "alwaysinline" in _definition(ir(forceinline=True), r"define internal.*set_zero.*")


@pytest.mark.parametrize("sig,params", [("void(float32[::1])", 7), ("void(float64[:, :], int32)", 10)])
def test_the_c_abi_passes_arrays_as_their_data_model_fields(sig, params):
    ptx, _ = cubridge.compile(set_zero if "int32)" not in sig else _two, sig, device=True, abi="c", cc=CC)
    name = "set_zero" if "int32)" not in sig else "_two"
    assert f"{name}_param_{params - 1}" in ptx and f"{name}_param_{params}" not in ptx
    assert cubridge.ptxas_check(ptx, CC)


def _two(a, i):
    a[i, 0] = 1.0


def choice(cond1, cond2):
    if cond1 and cond2:
        return 1
    else:
        return 2


def test_dbg_optnone_marks_functions_optnone_noinline():
    f = cubridge.jit("int64(boolean, boolean)", debug=True, opt=False, _dbg_optnone=True, device=True)(choice)
    ir = f.inspect_llvm()[f.signatures[0]]
    assert re.search(r"define .*choice.* optnone noinline", ir), ir
    for line in ir.splitlines():
        if "llvm.dbg.declare" in line:
            assert "bool" not in line
    helper = cubridge.jit(device=True)(set_zero)

    def call_set_zero(a):
        helper(a)
    ir = cubridge.jit(SIG, debug=True, opt=False, _dbg_optnone=True)(call_set_zero).inspect_llvm(SIG)
    assert "alwaysinline" in _definition(ir, r"define.*[^_]set_zero.*")  # forced inline: left alone
    assert "optnone" not in _definition(ir, r"define void @.*call_set_zero.*")  # the kernel entry
    r = cubridge.ptxas_check(cubridge.jit(SIG, debug=True, opt=False, _dbg_optnone=True)(call_set_zero)
                             .inspect_asm(SIG), CC)
    assert r, r.log
    with pytest.raises(TypeError, match=r"jit: _dbg_optnone='yes' is not a bool"):
        cubridge.jit(_dbg_optnone="yes")
