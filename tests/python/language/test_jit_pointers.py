"""C pointers in compiled code (numba's CPointer; issue 27: one signature grammar, C pointers accepted by the
compiler), without a GPU. The rules (numba-cuda's test_dispatcher_cpointer_arguments, doc_examples
test_cpointer, test_array.test_carray/test_farray):

1. 'float32*', 'const float32*', 'void*', numba's CPointer(float32) and voidptr are parameter types of
   kernels and device functions (load_kernel's grammar: one grammar everywhere).
2. p[i] loads the pointee, p[i] = v and p[i] op= v store it (converted as an array store converts); the index
   is any integer; a void* cannot be indexed, a pointer cannot be sliced, a const pointer cannot be stored to.
3. carray(ptr, shape, dtype=None) / farray: a C / Fortran ordered array over the memory (shape an integer or
   a tuple of them, run-time values allowed); dtype must match the pointee, and is required for a void*.
4. Pointers pass to device functions and external functions (declare_device) taking pointers.
"""
import pytest

import cubridge

numba = pytest.importorskip("numba", reason="numba is not installed")
from numba.core import types  # noqa: E402
from numba.np.numpy_support import carray, farray  # noqa: E402  (numba-cuda: numba.cuda.np.numpy_support)
from numba import cuda  # noqa: E402  (the kernels below are numba-cuda's source: test_jit_pointers_gpu runs them there too)

CC = (9, 0)
PTR_I32 = types.CPointer(types.int32)


def _ir(fn, sig):
    return cubridge.compile(fn, sig, device=False, abi="numba", cc=CC, output="llvm")[0]


def _ptx(fn, sig):
    return cubridge.compile(fn, sig, device=False, abi="numba", cc=CC)[0]


def axpy(r, a, x, y, n):
    i = cuda.grid(1)
    if i < n:
        r[i] = a * x[i] + y[i]


def add_one(x, n):
    i = cuda.grid(1)
    if i < n:
        x[i] += 1


@pytest.mark.parametrize("sig", [types.void(PTR_I32, types.int32, PTR_I32, PTR_I32, types.uint32),
                                 "void(int32*, int32, int32*, int32*, uint32)"])
def test_pointer_parameters_load_and_store(sig):
    ptx = _ptx(axpy, sig)
    assert ptx.count("ld.global.u32") + ptx.count("ld.u32") == 2
    assert ptx.count("st.global.u32") + ptx.count("st.u32") == 1
    assert cubridge.ptxas_check(ptx, CC)


def test_augmented_store_through_a_uint8_pointer():
    ir = _ir(add_one, types.void(types.CPointer(types.uint8), types.uint32))
    assert ir.count("getelementptr inbounds i8, i8* ") == 1  # p and i evaluated once
    assert "add i64" in ir and "trunc i64" in ir


def test_dispatcher_takes_pointer_signatures():
    k = cubridge.jit(types.void(types.CPointer(types.uint8), types.uint32))(add_one)
    assert [str(s) for s in k.overloads] == ["none(uint8*, uint32)"]


def test_void_pointers_and_const_pointers():
    def ignores(a, b):
        pass
    assert cubridge.ptxas_check(_ptx(ignores, types.void(types.voidptr, types.voidptr)), CC)

    def index_void(p):
        p[0] = 1
    with pytest.raises(cubridge.CompileError, match=r"cannot index a void\* \(numba's voidptr\)"):
        _ir(index_void, "void(void*)")

    def store_const(p):
        p[0] = 1.0
    with pytest.raises(cubridge.CompileError, match=r"cannot store through a pointer to const \(const float32\*\)"):
        _ir(store_const, "void(const float32*)")


def test_pointers_cannot_be_sliced_or_indexed_by_floats():
    def sliced(p):
        p[1:2] = 0
    with pytest.raises(cubridge.CompileError, match=r"is indexed by one integer, p\[i\]; it has no shape to slice"):
        _ir(sliced, "void(float32*)")

    def float_index(p, f):
        p[f] = 0
    with pytest.raises(cubridge.CompileError, match=r"a C pointer \(float32\*\) is indexed by an integer, got float64"):
        _ir(float_index, "void(float32*, float64)")


def c_add(a_ptr):
    a = carray(a_ptr, (1,), dtype=numba.float32)
    a[0] += 1.2


def f_fill(p, n, m):
    a = farray(p, (n, m))
    for i in range(n):
        for j in range(m):
            a[i, j] = i * 10 + j


def test_carray_and_farray_build_arrays_over_the_memory():
    ir = _ir(c_add, types.void(types.CPointer(types.float32)))
    assert "fadd double" in ir and "fptrunc double" in ir  # float32 + 1.2 is float64, stored as float32
    ptx = _ptx(f_fill, types.void(types.CPointer(types.float64), types.int64, types.int64))
    assert cubridge.ptxas_check(ptx, CC)


def test_carray_strides_follow_the_order():
    def c_strides(r, p, n, m):
        a = carray(p, (n, m))
        r[0], r[1] = a.strides

    def f_strides(r, p, n, m):
        a = farray(p, (n, m))
        r[0], r[1] = a.strides
    sig = types.void(types.int64[::1], types.CPointer(types.float64), types.int64, types.int64)
    c_ir, f_ir = _ir(c_strides, sig), _ir(f_strides, sig)
    assert "mul i64 8, %" in c_ir and "mul i64 8, %" in f_ir  # one stride is 8 * the other axis's extent


def test_carray_dtype_rules():
    def mismatch(p):
        a = carray(p, 4, dtype=numba.float64)
        a[0] = 0
    with pytest.raises(cubridge.CompileError, match=r"mismatching dtype 'float64' for pointer type 'float32\*'"):
        _ir(mismatch, "void(float32*)")

    def void_without_dtype(p):
        a = carray(p, 4)
        a[0] = 0
    with pytest.raises(cubridge.CompileError, match=r"a void\* needs the dtype argument"):
        _ir(void_without_dtype, "void(void*)")

    def void_with_dtype(p):
        a = carray(p, 4, dtype=numba.int32)
        a[0] = 7
    assert "bitcast i8* " in _ir(void_with_dtype, "void(void*)")

    def bad_shape(p):
        carray(p, 1.5)
    with pytest.raises(cubridge.CompileError, match=r"the shape must be an integer or a tuple of integers, "
                                                    r"got float64"):
        _ir(bad_shape, "void(float32*)")


def bump(p, i):
    p[i] += 1


def test_pointers_pass_to_device_and_external_functions():
    def kernel(p, n):
        for i in range(n):
            bump(p, i)
    assert "add i64" in _ir(kernel, "void(int32*, int64)")  # int32 + 1 is int64 (numba), stored as int32
    consume = cubridge.declare_device("consume", "void(int32*)", abi="c")

    def calls_external(p):
        consume(p)
    ir = _ir(calls_external, "void(int32*)")
    assert "declare void @consume(i32*)" in ir and "call void @consume(i32* " in ir

    def wrong_pointee(p):
        consume(p)
    with pytest.raises(cubridge.CompileError, match=r"argument 1 is float32\*, which does not convert to int32\*"):
        _ir(wrong_pointee, "void(float32*)")


LOADS = ["ldca", "ldcg", "ldcs", "ldlu", "ldcv"]
STORES = ["stcg", "stcs", "stwb", "stwt"]


@pytest.mark.parametrize("op", LOADS)
@pytest.mark.parametrize("dtype, bits", [(types.int8, 8), (types.float32, 32), (types.uint64, 64)])
def test_cache_hinted_loads_through_pointers(op, dtype, bits):
    load = getattr(numba.cuda, op, None) if hasattr(numba, "cuda") else None
    if load is None:
        pytest.skip(f"this numba has no numba.cuda.{op}")

    def f_ptr(ptr, r, n):
        for i in range(n):
            r[i] = load(ptr, i)
    ptx = _ptx(f_ptr, (types.CPointer(dtype), types.Array(dtype, 1, "C"), types.intp))
    assert f"ld.global.{op[2:]}.b{bits}" in ptx  # numba-cuda's test_cache_hints.test_loads f_ptr


@pytest.mark.parametrize("op", STORES)
def test_cache_hinted_stores_through_pointers(op):
    store = getattr(numba.cuda, op, None) if hasattr(numba, "cuda") else None
    if store is None:
        pytest.skip(f"this numba has no numba.cuda.{op}")

    def f_ptr(ptr, values, n):
        for i in range(n):
            store(ptr, i, values[i])
    ptx = _ptx(f_ptr, (types.CPointer(types.int16), types.Array(types.int16, 1, "C"), types.intp))
    assert f"st.global.{op[2:]}.b16" in ptx

    def f_void(ptr, values):
        store(ptr, 0, values[0])
    with pytest.raises(cubridge.CompileError, match=r"requires array of integer or float type, got void"):
        _ptx(f_void, "void(void*, int16[::1])")


class FFI:
    """The shape of cffi's FFI object (cffi.api.FFI) where cffi is not installed: only its type is read."""


FFI.__module__ = "cffi.api"


def _ffis():
    ffis = [FFI()]
    try:
        import cffi
        ffis.append(cffi.FFI())
    except ImportError:
        pass
    return ffis


@pytest.mark.parametrize("ffi", _ffis(), ids=lambda f: type(f).__module__)
def test_ffi_from_buffer_gives_the_arrays_data_pointer(ffi):
    array_mutator = cubridge.declare_device("array_mutator", "void(CPointer(int32))")

    def mutate_array(x):
        x_ptr = ffi.from_buffer(x)
        array_mutator(x_ptr)
    ir = _ir(mutate_array, "void(int32[::1])")
    assert "call i32 @array_mutator(i8* " in ir and ", i32* " in ir

    def slice_view(x, i):
        array_mutator(ffi.from_buffer(x[i:]))
    assert "@array_mutator" in _ir(slice_view, "void(int32[::1], int64)")

    def strided(x):
        array_mutator(ffi.from_buffer(x[::2]))
    with pytest.raises(cubridge.CompileError, match=r"from_buffer\(\) unsupported on non-contiguous buffers"):
        _ir(strided, "void(int32[::1])")

    def wrong_dtype(x):
        array_mutator(ffi.from_buffer(x))
    with pytest.raises(cubridge.CompileError, match=r"argument 1 is float32\*, which does not convert to int32\*"):
        _ir(wrong_dtype, "void(float32[::1])")
