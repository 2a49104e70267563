"""External device functions (numba-cuda's cuda.declare_device, cubridge.declare_device), without a GPU.

The rules (numba-cuda's declare_device and its test_device_func.TestDeclareDevice*):
1. declare_device(name, sig, link=..., abi=...) needs a return type ("Return type" TypeError otherwise),
   takes 'numba' or 'c' as abi (NotImplementedError otherwise), one link item or a list/tuple/set of them.
2. A call compiles to a call of the symbol: Numba ABI `i32 name(R* result, args...)`, the status checked
   (non-zero: the caller returns it); C ABI `R name(args...)` (void: no result).
3. Arguments convert to the declared parameter types as numba converts call arguments (int64 -> int32).
4. The function may be called from a device function the kernel calls, several times, beside others.
5. The link items (paths, CUDA C++ source objects) of every external function reached are linked with
   the kernel: CUDA C++ compiled by NVRTC; an undefined symbol fails the link.
6. What cannot be passed (arrays, complex) is refused by name; wrong argument counts and types too.
7. numba's own ExternFunction (numba.cuda.declare_device) is read: its name, signature and ABI.
8. A kernel whose code calls a function declared use_cooperative=True is launched cooperatively (its
   overload's ``cooperative``), as numba-cuda marks it; one that calls only others is not.
"""
import numpy as np
import pytest

import cubridge
from cubridge import _jit_options

ARCH = (9, 0)


class CUSource:
    """The shape of numba-cuda's in-memory CUDA C++ (numba.cuda.CUSource): class name, data, name."""

    def __init__(self, data, name="source.cu"):
        self.data, self.name = data, name


TIMES2_CU = CUSource('extern "C" __device__ int times2(int* out, int a) { *out = a * 2; return 0; }', "times2.cu")
TIMES3_CU = CUSource('extern "C" __device__ int times3(int* out, int a) { *out = a * 3; return 0; }', "times3.cu")
CABI_CU = CUSource('extern "C" __device__ int add2(int a, int b) { return a + b; }\n'
                   'extern "C" __device__ int const42() { return 42; }\n'
                   'extern "C" __device__ void consume(int a) { asm volatile("" : : "r"(a) : "memory"); }', "cabi.cu")

times2 = cubridge.declare_device("times2", "int32(int32)", link=TIMES2_CU)
times3 = cubridge.declare_device("times3", cubridge.int32(cubridge.int32), link=[TIMES3_CU])
add2 = cubridge.declare_device("add2", "int32(int32, int32)", link=CABI_CU, abi="c")
const42 = cubridge.declare_device("const42", "int32()", link=CABI_CU, abi="c")
consume = cubridge.declare_device("consume", "void(int32)", link=CABI_CU, abi="c")
unlinked = cubridge.declare_device("not_defined_anywhere", "float64(float64)")


def _ptx(fn, sig="void(int32[::1], int32[::1])"):
    return cubridge.compile(fn, sig, device=False, abi="numba", cc=ARCH)[0]


def _ir(fn, sig="void(int32[::1], int32[::1])"):
    return cubridge.compile(fn, sig, device=False, abi="numba", cc=ARCH, output="llvm")[0]


def _linked(fn, sig="void(int32[::1], int32[::1])"):
    k = cubridge.jit(fn)
    compiled = k.compile(sig)
    return _jit_options.link_image(compiled.ptx, k._options, ARCH, compiled.links)


def device_func(x):
    return times2(x)


def times2_kernel(r, x):
    i = cubridge.grid(1)
    if i < len(r):
        r[i] = times2(x[i])


def twice_and_through_device_kernel(r, x):
    i = cubridge.grid(1)
    if i < len(r):
        r[i] = device_func(x[i]) + times2(x[i] + i) + times3(x[i])


def cabi_kernel(r, x):
    i = cubridge.grid(1)
    if i < len(r):
        consume(x[i])
        r[i] = add2(x[i], i) + const42()


# ---- rule 1: the declaration ----

def test_declaration_keeps_name_signature_abi_and_link_items():
    assert (times2.name, str(times2.sig), times2.abi, times2.link) == ("times2", "int32(int32)", "numba", (TIMES2_CU,))
    assert add2.abi == "c" and times3.link == (TIMES3_CU,)
    both = cubridge.declare_device("times4", "int32(int32)", link={TIMES2_CU, TIMES3_CU})
    assert set(both.link) == {TIMES2_CU, TIMES3_CU}


@pytest.mark.parametrize("sig", [(cubridge.float32[:],), "(float32[:],)"])
def test_declaration_without_return_type_is_refused(sig):
    with pytest.raises(TypeError, match="Return type must be provided"):
        cubridge.declare_device("f1", sig)


def test_declaration_bad_abi_and_link_items_are_refused():
    with pytest.raises(NotImplementedError, match="abi 'fortran' is not supported; expected 'numba' or 'c'"):
        cubridge.declare_device("f1", "int32(int32)", abi="fortran")
    with pytest.raises(FileNotFoundError, match="link file '/no/such.cu' does not exist"):
        cubridge.declare_device("f1", "int32(int32)", link="/no/such.cu")
    with pytest.raises(TypeError, match="link item 3 .int. is not a file path or a code object"):
        cubridge.declare_device("f1", "int32(int32)", link=[3])


def test_declared_function_cannot_run_on_the_host():
    with pytest.raises(TypeError, match="can only be called from code compiled by cubridge"):
        times2(1)


# ---- rules 2 to 4: the calls ----

def test_numba_abi_call_passes_a_result_pointer_and_checks_the_status():
    ir = _ir(times2_kernel)
    assert "declare i32 @times2(i32*, i32)" in ir
    assert "call i32 @times2(i32* " in ir
    assert "icmp eq i32" in ir and ", -2" in ir and "external_status" in ir  # 0 and -2 (None) are success
    assert ".extern .func  (.param .b32 func_retval0) times2" in _ptx(times2_kernel)


def test_c_abi_calls_return_the_value_and_void():
    ir = _ir(cabi_kernel)
    assert "declare i32 @add2(i32, i32)" in ir and "declare i32 @const42()" in ir
    assert "declare void @consume(i32)" in ir and "call void @consume(i32 " in ir
    assert "external_status" not in ir


def test_arguments_convert_to_the_declared_parameters():
    ir = _ir(twice_and_through_device_kernel)
    assert "trunc i64" in ir  # x[i] + i is int64; times2 takes int32, as numba converts it
    assert ir.count("declare i32 @times2(") == 1 and "declare i32 @times3(" in ir


def test_called_from_a_device_function_twice_and_beside_another():
    ir = _ir(twice_and_through_device_kernel)
    assert ir.count("call i32 @times2(") == 2 and ir.count("call i32 @times3(") == 1


# ---- rule 5: linking ----

def test_kernel_links_the_cuda_cpp_of_every_external_function_reached():
    k = cubridge.jit(twice_and_through_device_kernel)
    links = k.compile("void(int32[::1], int32[::1])").links
    assert len(links) == 2 and set(links) == {TIMES2_CU, TIMES3_CU}  # each once
    assert _linked(twice_and_through_device_kernel)[:4] == b"\x7fELF"
    assert _linked(cabi_kernel)[:4] == b"\x7fELF"


def test_link_items_from_files(tmp_path):
    cu = tmp_path / "times5.cu"
    cu.write_text('extern "C" __device__ int times5(int* out, int a) { *out = a * 5; return 0; }')
    times5 = cubridge.declare_device("times5", "int32(int32)", link=str(cu))

    def kernel(r, x):
        r[0] = times5(x[0])
    assert _linked(kernel)[:4] == b"\x7fELF"
    ptx = cubridge.nvrtc_compile(cu.read_text(), "times5.cu", ARCH, output="ptx", relocatable=True).code
    (tmp_path / "times5.ptx").write_text(ptx)
    from_ptx = cubridge.declare_device("times5", "int32(int32)", link=str(tmp_path / "times5.ptx"))

    def kernel2(r, x):
        r[0] = from_ptx(x[0])
    assert _linked(kernel2)[:4] == b"\x7fELF"


def test_unresolved_external_function_fails_the_link():
    def kernel(r, x):
        r[0] = unlinked(1.0)
    with pytest.raises(cubridge.LinkError, match="not_defined_anywhere"):
        _linked(kernel, "void(float64[::1], float64[::1])")


# ---- rule 6: refusals ----

def test_array_parameters_and_bad_calls_are_refused():
    takes_array = cubridge.declare_device("takes_array", "int32(float32[:])")

    def k1(r, x):
        r[0] = takes_array(x)
    with pytest.raises(cubridge.CompileError, match=r"parameter 1 is array\(float32, 1d, A\), which cubridge "
                                                    r"cannot pass to an external function"):
        _ptx(k1, "void(int32[::1], float32[::1])")

    def k2(r, x):
        r[0] = times2(x[0], 1)
    with pytest.raises(cubridge.CompileError, match=r"times2\(\) takes 1 argument\(s\), got 2"):
        _ptx(k2)

    def k3(r, x):
        r[0] = times2(x)
    with pytest.raises(cubridge.CompileError, match=r"argument 1 is array\(int32, 1d, C\), which does not convert "
                                                    r"to int32"):
        _ptx(k3)


def test_two_externals_called_by_one_name_are_refused():
    import types
    other = cubridge.declare_device("times3", "int32(int32)")

    def caller(x):
        return times2(x)

    def kernel(r, x):
        r[0] = times2(x[0]) + caller_bound_to_other(x[0])
    caller_bound_to_other = types.FunctionType(caller.__code__, {"times2": other}, "caller")  # noqa: F841
    with pytest.raises(cubridge.CompileError, match="two different external functions are called by the name 'times2'"):
        _ptx(kernel)


# ---- rule 7: numba's declarations ----

def test_numba_declare_device_is_read():
    numba_cuda = pytest.importorskip("numba.cuda", reason="numba is not installed")
    declared = numba_cuda.declare_device("times2", "int32(int32)")
    from cubridge._external_functions import external_function
    f = external_function(declared)
    assert (f.name, str(f.sig), f.abi) == ("times2", "int32(int32)", "numba")

    def kernel(r, x):
        r[0] = declared(x[0])
    assert "declare i32 @times2(i32*, i32)" in _ir(kernel)


def test_cuda_cpp_sees_the_toolkit_headers_and_the_extra_search_paths(tmp_path, monkeypatch):
    (tmp_path / "scale.h").write_text("#define SCALE 7\n")
    source = CUSource('#include <cuda_runtime.h>\n#include "scale.h"\n'
                      'extern "C" __device__ int scaled(int* out, int a) { *out = a * SCALE; return 0; }', "scaled.cu")
    monkeypatch.setenv("NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS", str(tmp_path))
    scaled = cubridge.declare_device("scaled", "int32(int32)", link=source)

    def kernel(r, x):
        r[0] = scaled(x[0])
    assert _linked(kernel)[:4] == b"\x7fELF"


def test_a_kernel_calling_a_cooperative_external_function_is_launched_cooperatively():
    syncs = cubridge.declare_device("syncs", "int32(int32)", link=TIMES2_CU, use_cooperative=True)

    def calls_it(r, x):
        r[0] = syncs(x[0])

    def calls_another(r, x):
        r[0] = times2(x[0])

    sig = "void(int32[::1], int32[::1])"
    assert cubridge.jit(sig)(calls_it).overloads[sig].cooperative
    assert not cubridge.jit(sig)(calls_another).overloads[sig].cooperative


def test_a_cooperative_external_function_reached_through_a_device_function_marks_the_kernel():
    syncs = cubridge.declare_device("syncs", "int32(int32)", link=TIMES2_CU, use_cooperative=True)

    def helper(v):
        return syncs(v)

    def kernel(r, x):
        r[0] = helper(x[0])

    sig = "void(int32[::1], int32[::1])"
    assert cubridge.jit(sig)(kernel).overloads[sig].cooperative


def test_the_code_library_lists_what_the_kernel_is_linked_with():
    sig = "void(int32[::1], int32[::1])"

    def calls_times2(r, x):
        r[0] = times2(x[0])

    def calls_nothing(r, x):
        r[0] = x[0]

    linked = cubridge.jit(sig)(calls_times2).overloads[sig]._codelibrary
    assert linked._linking_files == (TIMES2_CU,) and not linked.use_cooperative
    alone = cubridge.jit(sig)(calls_nothing).overloads[sig]._codelibrary
    assert alone._linking_files == () and not alone.use_cooperative  # no device runtime (cudadevrt) either


RANDOM_CU = CUSource('#include <curand_kernel.h>\n'
                     'extern "C" __device__ int random_number(unsigned int* out, unsigned long long seed) {\n'
                     '  curandState s; curand_init(seed, 0, 0, &s); *out = curand(&s); return 0; }', "rng.cu")


def test_linked_cuda_cpp_may_include_the_toolkits_headers_that_use_cccl():
    # curand_kernel.h includes <cuda/std/type_traits>, which CUDA 13 keeps under include/cccl
    random_number = cubridge.declare_device("random_number", "uint32(uint64)", link=RANDOM_CU)

    def kernel(x, seed):
        x[0] = random_number(seed[0])
    assert _linked(kernel, "void(uint32[::1], uint64[::1])")[:4] == b"\x7fELF"
