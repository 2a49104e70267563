"""The code face's Python API: compile / compile_ptx, signatures, ABIs, outputs, constants from globals and
closures, errors naming file, line and column, and the `cubridge compile` command."""
import math
import math as m2
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import cubridge
from cubridge import float32, int32, int64

HALF = np.float32(0.5)
LIMIT = 10


def add(x, y):
    return x + y


def uses_globals(x):
    return x * HALF + LIMIT


def uses_alias(x):
    return m2.sqrt(x) + math.floor(x)


def calls_add(x):
    return add(x, 1) * 2


def casts(x):
    return float32(x) * np.float32(2.0) + cubridge.int16(x)


def pair(a, b):
    return a + b, a * b


def bad_list(x):
    return [x]


def kernel_like(x):
    y = x + 1


def flat(ptx):
    return " ".join(ptx.split()).replace("( ", "(").replace(" )", ")")


def test_c_abi_prototype_is_exact():
    ptx, resty = cubridge.compile(add, int32(int32, int32))
    assert (".visible .func (.param .b32 func_retval0) add(.param .b32 add_param_0, .param .b32 add_param_1)"
            in flat(ptx))
    assert resty == int32


def test_string_and_tuple_signatures_and_inference():
    _, r1 = cubridge.compile(add, "int32(int32, int32)")
    _, r2 = cubridge.compile(add, (int32, int32))
    _, r3 = cubridge.compile(add, ("float32", "float32"))
    _, r4 = cubridge.compile(add, "(uint8, uint8)")
    assert (r1, r2, r3, r4) == (int32, int64, float32, cubridge.uint64)
    _, rt = cubridge.compile(pair, (int32, float32))
    assert isinstance(rt, cubridge.Type) and rt.kind == "tuple" and rt.name == "UniTuple(float64 x 2)"  # int32 op float32 -> float64
    _, rt = cubridge.compile(pair, (int32, int32))
    assert rt == cubridge.UniTuple(int64, 2)


def test_abi_name_renames():
    ptx, _ = cubridge.compile(add, float32(float32, float32), abi_info={"abi_name": "add_f32"})
    assert ") add_f32(.param .b32 add_f32_param_0" in flat(ptx)


def test_numba_abi_mangled_name_status_and_return_slot():
    ptx, resty = cubridge.compile(add, (int32, int32), abi="numba")
    name = f"_ZN{len(__name__)}{__name__}3addEii"
    assert f".visible .func (.param .b32 func_retval0) {name}(.param .b64 {name}_param_0," in flat(ptx)
    assert resty == int64


def test_ltoir_output_is_bytes():
    code, resty = cubridge.compile(add, (float32, float32), output="ltoir")
    assert isinstance(code, bytes) and len(code) > 100 and resty == float32


def test_constants_from_globals_and_closures():
    _, resty = cubridge.compile(uses_globals, (float32,))
    assert resty == cubridge.float64  # float32 * float32 + Literal[int] -> float64
    k = 3

    def closure(x):
        return x * k

    ptx, resty = cubridge.compile(closure, (int32,))
    assert resty == int64 and "closure" in ptx
    ptx, resty = cubridge.compile(uses_alias, (cubridge.float64,))
    assert resty == cubridge.float64
    _, resty = cubridge.compile(calls_add, (int32,))
    assert resty == int64
    _, resty = cubridge.compile(casts, (int64,))
    assert resty == float32  # float32 * float32 + int16 stays float32


def test_options_fastmath_debug_lineinfo_opt():
    fast, _ = cubridge.compile(uses_alias, (float32,), fastmath=True)
    assert "sqrt.approx" in fast or "rsqrt" in fast
    slow, _ = cubridge.compile(uses_alias, (float32,), opt=False)
    assert "sqrt.rn.f32" in slow
    plain, _ = cubridge.compile(uses_alias, (float32,))
    assert ".loc" not in plain
    for kw in ({"lineinfo": True}, {"debug": True}):
        code, _ = cubridge.compile(uses_alias, (float32,), **kw)
        line = uses_alias.__code__.co_firstlineno + 1
        assert f'.file\t1 "{__file__}"' in code and f".loc\t1 {line} " in code, kw


@pytest.mark.parametrize("cc", [(9, 0), "9.0", "9", "90", "sm_90", "sm_90a", "compute_90", " 9.0 "])
def test_compute_capability_spellings(cc):
    ptx, _ = cubridge.compile(add, (int32, int32), cc=cc)
    assert ".target sm_90" in ptx


@pytest.mark.parametrize("kwargs,message", [
    ({"output": "cubin"}, r"output must be 'ptx', 'ltoir' or 'llvm' \(the NVVM IR text given to libNVVM\), got 'cubin'"),
    ({"abi": "fortran"}, "abi must be 'c' or 'numba', got 'fortran'"),
    ({"abi_info": {"name": "x"}}, "abi_info must be a dict with the key 'abi_name' only"),
    ({"abi_info": {"abi_name": "1x"}}, r"abi_info\['abi_name'\] must be an identifier"),
    ({"cc": (5, 0)}, r"cc 5.0 cannot be targeted by this toolkit's libNVVM; it accepts compute capabilities 7.5 to"),
    ({"cc": "nine"}, r"compute capability 'nine' is not valid; expected a form like '9.0', '9', '90', 'sm_90'"),
    ({"cc": (2**40, 0)}, r"compile: cc \(1099511627776, 0\) is out of range \(major 1 to 99, minor 0 to 9\)"),
])
def test_bad_options_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        cubridge.compile(add, (int32, int32), **kwargs)


def test_a_compute_capability_of_the_wrong_type_is_named():
    with pytest.raises(TypeError, match=r"compile: cc \(9.0, 0\) is not a compute capability; expected a \(major, minor\)"):
        cubridge.compile(add, (int32, int32), cc=(9.0, 0))


def test_bad_signatures():
    with pytest.raises(ValueError, match="unknown argument type 'int33'"):
        cubridge.compile(add, "(int33, int32)")
    with pytest.raises(TypeError, match="is not a type the compiler accepts"):
        cubridge.compile(add, (object, int32))
    with pytest.raises(cubridge.CompileError, match="takes 2 argument"):
        cubridge.compile(add, (int32,))


def test_unsupported_construct_names_file_line_column():
    with pytest.raises(cubridge.CompileError) as info:
        cubridge.compile(bad_list, (int32,))
    msg = str(info.value)
    line = bad_list.__code__.co_firstlineno + 1
    assert f"{__file__}:{line}:12: a list" in msg and "supported" in msg
    assert isinstance(info.value, ValueError)


def test_compile_ptx_defaults_to_kernel_and_numba_abi():
    ptx, resty = cubridge.compile_ptx(kernel_like, (int32,))
    assert ".entry _ZN" in ptx and resty is None
    with pytest.raises(cubridge.CompileError, match="a kernel \\(device=False\\) must not return a value"):
        cubridge.compile_ptx(add, (int32, int32))
    ptx, resty = cubridge.compile_ptx(add, (int32, int32), device=True)
    assert ".visible .func" in ptx and resty == int64


@pytest.mark.gpu
def test_compile_for_current_device():
    ptx, resty = cubridge.compile_for_current_device(add, (int32, int32))
    major, minor = cubridge.devices[0].compute_capability
    assert f".target sm_{major}{minor}" in ptx and resty == int64
    ptx, _ = cubridge.compile_ptx_for_current_device(add, (int32, int32), device=True)
    assert ".visible .func" in ptx


# ---- the reason the C ABI exists: linking into CUDA C++ (nvJitLink with LTO, no GPU needed) ----

def saxpy_like(a, x, y):
    return a * x + y


_CUDA_CALLER = r"""
extern "C" __device__ float saxpy_f32(float, float, float);
extern "C" __global__ void transform(const float* x, const float* y, float* out, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = saxpy_f32(a, x[i], y[i]);
}
"""


def test_c_abi_ltoir_links_into_cuda_cpp_and_inlines():
    ltoir, resty = cubridge.compile(saxpy_like, float32(float32, float32, float32), abi_info={"abi_name": "saxpy_f32"},
                                    output="ltoir", cc=(9, 0))
    assert resty == float32
    caller = cubridge.nvrtc_compile(_CUDA_CALLER, "caller.cu", (9, 0), output="ltoir", relocatable=True)
    linker = cubridge.Linker((9, 0), lto=True)
    linker.add_ltoir(caller.code, "caller")
    linker.add_ltoir(ltoir, "saxpy")
    result = linker.link(ptx=True)
    assert result.cubin[:4] == b"\x7fELF"
    assert ".entry transform" in result.ptx
    assert "call.uni" not in result.ptx and "saxpy_f32" not in result.ptx.split(".entry transform")[1]  # inlined
    assert "fma.rn.f32" in result.ptx


def test_numba_types_and_signatures_are_accepted():
    numba = pytest.importorskip("numba")
    ptx, resty = cubridge.compile(add, numba.float32(numba.float32, numba.float32))
    assert resty == float32 and ") add(.param .b32 add_param_0" in flat(ptx)
    _, resty = cubridge.compile(add, (numba.int8, numba.uint8))
    assert resty == int64
    _, resty = cubridge.compile(add, (np.float64, np.int32))
    assert resty == cubridge.float64


def test_lambdas_compile_as_numba_compiles_them():
    """numba compiles `jit(lambda: None)` (its test_extending does): the lambda's text as a def."""
    ir, resty = cubridge.compile(lambda x: x * 2, (int32,), output="llvm")
    assert resty == int64 and "mul i64" in ir
    ptx, _ = cubridge.compile_ptx(lambda: None, (), device=False)
    assert ".entry" in ptx
    with pytest.raises(cubridge.CompileError, match="is a lambda that cannot be told apart in its source line"):
        cubridge.compile([lambda x: x, lambda x: x][0], (int32,))


def test_non_functions_are_refused():  # more on lambdas: language/test_jit_lambdas.py
    with pytest.raises(TypeError, match="pyfunc must be a Python function, got int"):
        cubridge.compile(3, (int32,))


def test_decorated_functions_compile_as_written():
    def deco(f):
        return f

    @deco
    def twice(x):
        return x * 2

    _, resty = cubridge.compile(twice, (float32,))
    assert resty == cubridge.float64


def _module_from(tmp_path, name, text):
    import importlib.util
    path = tmp_path / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_identifiers_are_read_as_python_reads_them(tmp_path):
    """PEP 3131: Python normalises identifiers to NFKC (`def 𝓍` defines `x`); the compiler sees the same names."""
    m = _module_from(tmp_path, "unicode_names", "\ufb01ve = 5\n\ndef \U0001d4cd(v):\n    return v * \ufb01ve\n")
    ptx, resty = cubridge.compile(m.x, "(int64,)", cc=(9, 0))
    assert resty == int64 and ") x(" in flat(ptx)


def test_a_c_abi_name_that_is_not_a_ptx_identifier_is_refused_by_name(tmp_path):
    m = _module_from(tmp_path, "enye", "def \u00f1(v):\n    return v + 1\n")
    with pytest.raises(cubridge.CompileError, match=r"enye.py:1:1: the C ABI exports '\u00f1' under that name, which "
                                                    r"is not a PTX identifier .* abi_info=\{'abi_name': \.\.\.\}"):
        cubridge.compile(m.ñ, "(int64,)", cc=(9, 0))
    ptx, _ = cubridge.compile(m.ñ, "(int64,)", abi_info={"abi_name": "enye"}, cc=(9, 0))
    assert ") enye(" in flat(ptx)
    numba_ptx, _ = cubridge.compile(m.ñ, "(int64,)", abi="numba", cc=(9, 0))  # numba's mangling escapes it
    assert "_c3_b1" in numba_ptx


@pytest.mark.parametrize("kwargs,numba_words", [
    ({"output": "cubin"}, "Unsupported output type: cubin"),
    ({"abi": "fastcall"}, "Unsupported ABI: fastcall"),
    ({"abi": "c", "device": False}, "The C ABI is not supported for kernels"),
])
def test_unsupported_choices_are_numbas_not_implemented_errors(kwargs, numba_words):
    # numba-cuda raises NotImplementedError with these words; cubridge's error is also still a ValueError.
    with pytest.raises(NotImplementedError, match=numba_words) as info:
        cubridge.compile(add, (int32, int32), **kwargs)
    assert isinstance(info.value, ValueError)


def test_too_many_launch_bounds_says_how_many_as_numba_does():
    def f():
        pass
    with pytest.raises(ValueError, match=r"Got 4 launch bounds: \(128, 2, 4, 8\); launch_bounds takes 1 to 3"):
        cubridge.compile_ptx(f, "void()", launch_bounds=(128, 2, 4, 8))


@pytest.mark.parametrize("cc,target", [((9, 0, "a"), "sm_90a"), ((10, 0, "f"), "sm_100f"), ((10, 0, "a"), "sm_100a"),
                                       ("sm_90a", "sm_90a"), ("compute_100f", "sm_100f"), ((9, 0), "sm_90")])
def test_architecture_specific_targets(cc, target):
    # numba-cuda's cc=(9, 0, 'a'): code for that GPU only (.target sm_90a); 'f' a family (sm_100f).
    ptx, _ = cubridge.compile_ptx(add, (int32, int32), device=True, cc=cc)
    assert re.search(rf"^\.target {target}$", ptx, re.M), ptx


def test_architecture_variant_letters_are_checked():
    with pytest.raises(ValueError, match=r"cc \(9, 0, 'x'\): the third item is an architecture variant, 'a' "
                                         r"\(architecture-specific"):
        cubridge.compile(add, (int32, int32), cc=(9, 0, "x"))
    with pytest.raises(cubridge.NvvmError, match=r"-arch=compute_75a is an unsupported option"):
        cubridge.compile(add, (int32, int32), cc=(7, 5, "a"))
