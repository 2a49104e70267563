"""Calls of functions written with numba's low-level extension API, compiled by numba's own typing and lowering
(python/cubridge/_numba_lowering.py). The rules:

1. an @intrinsic call is typed by the intrinsic's typer for the numba types of the arguments, and its code is the
   LLVM IR its codegen builds, compiled in the same libNVVM program as the caller (the PTX holds it);
2. the arguments convert to the signature the typer returns, as numba casts them; the result has its return type
   (a bool intrinsic is usable as a condition); C pointers (void* included) pass as numba's CPointer / voidptr;
   an integer written as such is numba's IntegerLiteral, tried in numba's order, and code typed for a literal
   value serves only calls with that value (a typer that needs a literal refuses a variable: numba's own
   TypingError, as numba's typing raises it);
3. a void intrinsic whose codegen returns nothing compiles; a non-void one whose codegen returns nothing is refused
   with numba's message (numba's LoweringError where numba is imported);
4. a function typed by type_callable is lowered by its lower_builtin for the signature (a constant; numba's
   compile_internal of a Python function, whose code comes along);
5. a typer that returns None for the argument types, a function typed but never lowered, a result type cubridge
   has no counterpart for (an extension type's constructor: a class typed by type_callable), arrays, tuples and
   complex numbers crossing the call, and keyword arguments are refused, each naming the function or class;
6. the same call compiled twice gives the same code (one definition, named by its IR: cached and linked code
   stays consistent), and a device function calling an intrinsic compiles to LTO-IR;
7. what numba compiles for the call (compile_internal) is compiled with the calling compilation's flags
   (fastmath, debug, lineinfo), as numba-cuda's compile_internal reads them from its flags stack;
8. a program that does not use numba imports neither numba nor llvmlite by compiling with cubridge;
9. numba's compiler handed a cubridge device function inside a codegen (context.compile_subroutine) compiles
   its Python function, as it does numba-cuda's own dispatchers (DeviceFunction's __numba__ and __code__);
10. a link file the lowering adds to numba's code library (add_linking_file) is linked with the kernel, as
   declare_device's link items are: the symbol stays external in the kernel's PTX."""
import subprocess
import sys
import textwrap

import pytest

import cubridge

cases = pytest.importorskip("numba_lowering_cases", reason="numba is not installed")
from numba_lowering_cases import (Interval, add_shifted, complex_result, first_element, identity,  # noqa: E402
                                  non_void_func, shift_by, typed_only)

CC = (8, 0)


def ptx(kernel, sig):
    code, _ = cubridge.compile_ptx(kernel, sig, cc=CC)
    return code


def test_intrinsic_codegen_is_the_code():
    code = ptx(cases.k_add_shifted, "void(int64[::1], int64[::1])")
    assert "shl.b64" in code and "add.s64" in code


def test_intrinsic_identity_result_type_follows_the_argument():
    _, resty = cubridge.compile(cases.d_twice_identity, "int32(int32)", device=True, cc=CC)
    assert str(resty) == "int32"
    code, resty = cubridge.compile(cases.d_twice_identity, "(float64,)", device=True, cc=CC)
    assert str(resty) == "float64" and "add.f64" in code


def test_arguments_convert_to_the_intrinsic_signature():
    code = ptx(cases.k_void, "void(int64[::1])")  # void_func(1): 1 becomes int32
    assert "st.global.u64" in code or "st.global.b64" in code


def test_bool_result_is_a_condition():
    code = ptx(cases.k_is_positive, "void(int64[::1], int64[::1])")
    assert "setp.gt.s64" in code or "setp.lt.s64" in code


def test_non_void_intrinsic_returning_nothing_is_refused_with_numbas_message():
    def kernel():
        non_void_func(1)
    with pytest.raises(cubridge.CompileError, match="non-void function returns None from implementation"):
        ptx(kernel, "void()")


def test_non_void_refusal_is_numbas_lowering_error():
    errors = pytest.importorskip("numba.core.errors")
    def kernel():
        non_void_func(1)
    with pytest.raises(errors.LoweringError) as e:
        ptx(kernel, "void()")
    assert "non-void function returns None" in e.value.msg


def test_type_callable_with_lower_builtin_constant():
    code = ptx(cases.k_func1_nullary, "void(float64[::1])")
    assert "42" in code


def test_type_callable_with_compile_internal():
    code = ptx(cases.k_func1_unary, "void(float64[::1], float64)")
    assert "sqrt.rn.f64" in code


def test_typer_returning_none_is_refused_naming_the_function():
    def kernel(r, x):
        r[0] = add_shifted(x[0], 1.5)
    with pytest.raises(Exception, match="add_shifted"):
        ptx(kernel, "void(int64[::1], int64[::1])")


def test_typed_but_not_lowered_is_refused():
    def kernel(r, x):
        r[0] = typed_only(x[0])
    with pytest.raises(cubridge.CompileError, match=r"numba has no lowering of .*typed_only"):
        ptx(kernel, "void(int64[::1], int64[::1])")


def test_result_type_without_counterpart_is_refused():
    def kernel(r, x):
        r[0] = complex_result(x[0]).real
    with pytest.raises(cubridge.CompileError, match=r"complex_result"):
        ptx(kernel, "void(float64[::1], float64[::1])")


def test_array_argument_is_refused_naming_the_type():
    def kernel(r, x):
        r[0] = first_element(x)
    with pytest.raises(cubridge.CompileError, match=r"first_element .*array\(float64, 1d, C\).* cannot pass to or from "
                                                    r"numba's lowering"):
        ptx(kernel, "void(float64[::1], float64[::1])")


def test_keyword_arguments_are_refused():
    def kernel(r, x):
        r[0] = identity(x=x[0])
    with pytest.raises(cubridge.CompileError, match=r"keyword arguments \(x\) to the numba @intrinsic identity"):
        ptx(kernel, "void(int64[::1], int64[::1])")


def test_same_call_gives_the_same_code():
    sig = "void(int64[::1], int64[::1])"
    assert ptx(cases.k_identity, sig) == ptx(cases.k_identity, sig)


def test_device_function_calling_an_intrinsic_compiles_to_ltoir():
    code, _ = cubridge.compile(cases.d_twice_identity, "int32(int32)", device=True, cc=CC, output="ltoir")
    assert isinstance(code, bytes) and len(code) > 0


def test_void_pointer_argument():
    code, resty = cubridge.compile(cases.d_load_int32, "(voidptr,)", device=True, cc=CC)
    assert str(resty) == "int64" and "ld.s32" in code  # int32 + 1 is int64, as numba types it


def test_extension_type_constructor_is_refused_naming_the_class():
    def kernel(r, x):
        iv = Interval(x[0], x[1])
        r[0] = iv.lo
    with pytest.raises(cubridge.CompileError, match=r"numba_lowering_cases.Interval .*Interval"):
        ptx(kernel, "void(float64[::1], float64[::1])")


def test_code_numba_compiles_for_the_call_gets_the_callers_fastmath():
    pytest.importorskip("numba.cuda.flags", reason="numba's built-in CUDA target has no flags stack")
    from cubridge import _numba_lowering
    from numba.cuda.descriptor import cuda_target
    for fastmath, callee in ((True, "__nv_fast_sinf"), (False, "__nv_sinf")):
        # numba keeps what compile_internal compiled per (code, signature) whatever the flags: start afresh
        cuda_target.target_context.cached_internal_func.clear()
        r = _numba_lowering.resolve(cases.sine, "sine", [cubridge.float32], [], 0, fastmath=fastmath)
        modules = r.implementation.__globals__[f"{r.unit_name}__code"].nvvm_modules
        assert any(f'@"{callee}"' in m for m in modules), (fastmath, modules)


def test_codegen_compiling_a_cubridge_device_function_through_numba():
    read_double_write = cases.make_read_double_write()

    def wrapper(src, dst):
        return read_double_write(src, dst)
    code, _ = cubridge.compile(wrapper, "void(voidptr, voidptr)", cc=CC)
    assert "ld.u32" in code and ("shl.b32" in code or "add.s32" in code or "mul.lo.s32" in code)
    ltoir, _ = cubridge.compile(wrapper, "void(voidptr, voidptr)", cc=CC, output="ltoir")
    assert isinstance(ltoir, bytes) and ltoir


def test_link_files_added_by_the_lowering_are_the_kernels():
    if cases.ADD_CABI is None:
        pytest.skip("numba's built-in CUDA target has no CUSource")
    kernel = cubridge.jit(cases.k_external_add)
    kernel.compile("void(uint32[::1], uint32[::1], uint32[::1])")
    compiled = next(iter(kernel.overloads.values()))
    assert compiled.links == (cases.ADD_CABI,)
    code = ptx(cases.k_external_add, "void(uint32[::1], uint32[::1], uint32[::1])")
    assert ".extern .func" in code and "add_cabi" in code


def test_numba_free_programs_stay_numba_free():
    code = textwrap.dedent("""
        import sys
        import cubridge
        def f(r, x):
            r[0] = x[0] * 2
        cubridge.compile_ptx(f, "void(float32[::1], float32[::1])", cc=(8, 0))
        print(sorted(m for m in ("numba", "llvmlite") if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_literal_arguments_reach_the_typer_and_the_codegen():
    code = ptx(cases.k_shift_by, "void(int64[::1], int64[::1])")
    assert "shl.b64" in code and ", 3;" in code and ", 5;" in code


def test_a_typer_needing_a_literal_refuses_a_variable_with_numbas_typing_error():
    def kernel(r, x):
        r[0] = shift_by(x[0], x[1])
    with pytest.raises(Exception, match=r"(?s)shift_by.*int64, int64") as e:
        ptx(kernel, "void(int64[::1], int64[::1])")
    assert type(e.value).__name__ == "TypingError"  # numba's (numba-cuda's own class where it is installed)
