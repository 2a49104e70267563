"""numba-cuda's CUDA vector types (numba.cuda.float32x4, numba.cuda.short2, ...) in kernels.

The rules, one test each:
- every <int8..int64|uint8..uint64|float32|float64>x<1..4> type and its C alias (char2, short2, int4, long3,
  longlong1, uchar2, ..., float4, double2) is a constructor in kernels, typed numba's name (int16x2);
- the constructor takes numbers (converted to the base type) and vectors of the same base type whose
  components add up to the count, laid out in order;
- v.x, v.y, v.z, v.w read the components the type has; a vector is a value: assigned, put in tuples and
  iterated over;
- a vector of another base type, a wrong component count, or an attribute the type lacks is refused by name.
GPU tests run numba-cuda's test_vector_type kernels and compare the values with numba-cuda's (skipped without
it) and with what the components must be."""
import numpy as np
import pytest

import cubridge

cuda = pytest.importorskip("numba.cuda", reason="numba is not installed")

BASES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
CC = (9, 0)


def basic(arr):
    v1 = cuda.float64x4(1.0, 3.0, 5.0, 7.0)
    v2 = cuda.short2(10, 11)
    arr[0] = v1.x
    arr[1] = v1.y
    arr[2] = v1.z
    arr[3] = v1.w
    arr[4] = v2.x
    arr[5] = v2.y


def test_a_vector_is_a_struct_of_its_components():
    ptx, _ = cubridge.compile_ptx(basic, "void(float64[:])", cc=CC)
    assert cubridge.ptxas_check(ptx, CC)
    for bits in ("4607182418800017408", "4613937818241073152", "4617315517961601024", "4619567317775286272"):
        assert bits in ptx  # 1.0, 3.0, 5.0, 7.0 stored as float64 bits


def _fancy(base):
    import numba
    v1, v2, v3, v4 = (getattr(cuda, f"{base}x{n}") for n in (1, 2, 3, 4))
    base_type = getattr(numba, base)

    def kernel(res):
        one, two, three, four = base_type(1.0), base_type(2.0), base_type(3.0), base_type(4.0)
        f1 = v1(one)
        f1_2 = v1(f1)
        f2 = v2(two, three)
        f3 = v3(f2, f1)
        f4 = v4(f1, f3)
        f4_2 = v4(f2, f2)
        j = 0
        for v in (f4, f4_2, v4(f4), v4(one, two, three, four)):
            res[j] = v.x
            res[j + 1] = v.y
            res[j + 2] = v.z
            res[j + 3] = v.w
            j += 4
        res[j] = f1_2.x
        res[j + 1] = f3.z
    return kernel


FANCY = [1, 2, 3, 1, 2, 3, 2, 3, 1, 2, 3, 1, 1, 2, 3, 4, 1, 1]


@pytest.mark.parametrize("base", BASES)
def test_constructors_take_numbers_and_vectors_of_their_base(base):
    ptx, _ = cubridge.compile_ptx(_fancy(base), "void(float64[:])", cc=CC)
    assert cubridge.ptxas_check(ptx, CC)


@pytest.mark.parametrize("alias, name", [("char2", "int8x2"), ("short2", "int16x2"), ("int4", "int32x4"),
                                         ("long3", "int64x3"), ("longlong1", "int64x1"), ("uchar2", "uint8x2"),
                                         ("ushort3", "uint16x3"), ("uint4", "uint32x4"), ("ulong2", "uint64x2"),
                                         ("ulonglong1", "uint64x1"), ("float4", "float32x4"),
                                         ("double2", "float64x2")])
def test_c_aliases_name_the_same_types(alias, name):
    n = int(name[-1])
    fn = _make(f"def f(x):\n    return cuda.{alias}({', '.join(['x'] * n)})\n")
    _, resty = cubridge.compile(fn, "(float64,)", device=True, cc=CC)
    assert str(resty) == name


def _make(src):
    env = {"cuda": cuda}
    exec(src, env)
    return env["f"]


@pytest.mark.parametrize("src, message", [
    ("def f(x):\n    return cuda.int8x2(cuda.int16x1(x), x)\n",
     r"int8x2\(\): argument 1 is a int16x1; a vector argument must have the base type int8"),
    ("def f(x):\n    return cuda.float32x3(x, x)\n",
     r"float32x3\(\) takes numbers and float32 vectors with 3 components in all, got 2"),
    ("def f(x):\n    return cuda.float32x2(x, x).z\n", r"a float32x2 has no attribute 'z'; it has x, y"),
    ("def f(x):\n    return cuda.float32x2(x, (x, x))\n",
     r"float32x2\(\): argument 2 must be a number or a float32 vector, got UniTuple\(float64 x 2\)"),
])
def test_wrong_constructions_are_refused_by_name(src, message):
    with pytest.raises(cubridge.CompileError, match=message):
        cubridge.compile(_make(src), "(float64,)", device=True, cc=CC)


@pytest.mark.gpu
@pytest.mark.parametrize("base", BASES)
def test_values_on_the_gpu(base):
    ours = np.zeros(len(FANCY))
    cubridge.jit(_fancy(base))[1, 1](ours)
    np.testing.assert_array_equal(ours, FANCY)
    res = np.zeros(6)
    cubridge.jit(basic)[1, 1](res)
    np.testing.assert_array_equal(res, [1.0, 3.0, 5.0, 7.0, 10, 11])
    if getattr(cuda, "implementation", "") == "NVIDIA":  # numba-cuda, not numba's built-in numba.cuda
        theirs = np.zeros(len(FANCY))
        cuda.jit(_fancy(base))[1, 1](theirs)
        np.testing.assert_array_equal(ours, theirs)
