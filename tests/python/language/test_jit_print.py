"""print() in kernels and device functions without a GPU: numba-cuda's lowering (printimpl.py) is one
vprintf(format, buffer) call whose format joins "%lld" (signed integers, widened to int64), "%llu"
(unsigned), "%f" (floats, widened to double), "%s" (string literals and bools as "True"/"False"),
"(..., ...)" / "(...,)" for tuples and "(%d, %d, %d)" for dim3 values with spaces and ends it with a
newline; the PTX must carry that exact format string and ptxas must take it. What numba-cuda refuses
(keyword arguments, complex, arrays, None, strings that are not literals) is refused by name. The text
printed on a GPU is compared with numba-cuda's by test_print_gpu.py."""
import re
import warnings

import pytest

import cubridge
from cubridge import float16, float32, float64, int8, int32, int64, uint8, uint64

CC = (9, 0)


def _ptx(fn, sig, **kw):
    ptx, _ = cubridge.compile(fn, sig, device=kw.pop("device", False), abi="numba", cc=CC, **kw)
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log
    return ptx


def _strings(ptx):
    """The NUL-terminated byte strings PTX holds in .const globals, decoded."""
    out = []
    for body in re.findall(r"\.const \.align 1 \.b8 \S+\[\d+\] = \{([^}]*)\}", ptx):
        data = bytes(int(b) for b in body.replace(" ", "").split(","))
        out.append(data.rstrip(b"\0").decode())
    return out


def print_numbers(i, u, f, h, d):
    print(i, u, f, h, d)


def test_numbers_use_numba_cuda_formats_and_vprintf():
    ptx = _ptx(print_numbers, (int32, uint64, float32, float16, float64))
    assert "%lld %llu %f %f %f\n" in _strings(ptx)
    assert "call.uni" in ptx and "vprintf" in ptx


def print_bfloat16(x):
    a = cubridge.bfloat16(x)
    print(a, (a, x))


def test_a_bfloat16_prints_as_the_double_of_its_value():
    # numba-cuda's printimpl: the bits widened to float32, then to double, printed with %f
    ptx = _ptx(print_bfloat16, (float32,))
    assert "%f (%f, %f)\n" in _strings(ptx)
    assert "cvt.f64.f32" in ptx


def print_small_ints(a, b):
    print(a, b)


def test_small_integers_widen_to_64_bits():
    ptx = _ptx(print_small_ints, (int8, uint8))
    assert "%lld %llu\n" in _strings(ptx)
    assert "ld.param.s8 \t%rd" in ptx and "ld.param.u8 \t%rd" in ptx  # sign- and zero-extended to 64 bits
    assert ptx.count("st.local.u64") == 2


def print_strings_and_bools(x):
    print("x is", x, "100%", x > 0)
    print()


def test_string_literals_and_bools_print_as_strings():
    strings = _strings(_ptx(print_strings_and_bools, (int64,)))
    assert "%s %lld %s %s\n" in strings
    assert {"x is", "100%", "True", "False", "\n"} <= set(strings)


def print_tuples(a, b):
    t = (a, (b, 2.5))
    print(t, (a,))


def test_tuples_print_as_python_writes_them():
    assert "(%lld, (%f, %f)) (%lld,)\n" in _strings(_ptx(print_tuples, (int64, float32)))


def print_dim3():
    print(cubridge.threadIdx, cubridge.blockIdx)


def test_dim3_values_print_as_numba_cuda_prints_them():
    assert "(%d, %d, %d) (%d, %d, %d)\n" in _strings(_ptx(print_dim3, ()))


def print_escapes():
    print("tab\there", 'quote"s', "new\nline", "caf\u00e9", "a" "b")


def test_string_escapes_are_decoded():
    strings = _strings(_ptx(print_escapes, ()))
    assert {"tab\there", 'quote"s', "new\nline", "caf\u00e9", "ab"} <= set(strings)


def print_many(x):
    print(x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x)


def print_32(x):
    print(x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x)


def print_many_twice(x):
    print(x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x)
    print(x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, (x, x))


TOO_MANY = "CUDA print() cannot print more than 32 items. The raw format string will be emitted by the kernel instead."


def _warnings_of(fn, sig):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ptx = _ptx(fn, sig)
    return ptx, [(w.category, _plain(str(w.message))) for w in caught]


def _plain(text: str) -> str:
    """A warning's words without the ANSI highlighting numba's NumbaWarning adds where its colour scheme says so."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_more_than_32_arguments_print_the_format_string_as_numba_cuda_does():
    assert " ".join(["%%lld"] * 33) + "\n" in _strings(_ptx(print_many, (int64,)))


def test_more_than_32_arguments_warn_in_numba_cuda_words():
    """numba-cuda's printimpl warns (NumbaWarning; cubridge.CompileWarning without numba) once per print()
    of more than 32 arguments, counting a tuple as one argument; 32 arguments print normally, silently."""
    _, got = _warnings_of(print_many, (int64,))
    assert [m for _, m in got] == [TOO_MANY]
    assert all(issubclass(c, cubridge.CompileWarning) or c.__name__ == "NumbaWarning" for c, _ in got)
    ptx, got = _warnings_of(print_32, (int64,))
    assert got == [] and " ".join(["%lld"] * 32) + "\n" in _strings(ptx)
    ptx, got = _warnings_of(print_many_twice, (int64,))
    assert [m for _, m in got] == [TOO_MANY, TOO_MANY]
    assert " ".join(["%%lld"] * 32) + " (%%lld, %%lld)\n" in _strings(ptx)


def test_a_print_of_more_than_32_arguments_without_a_source_file():
    """CPython passes more than 30 arguments as a list made a tuple (CALL_FUNCTION_EX): a kernel written in
    `python -c` (numba-cuda's own test of this) compiles from its bytecode, warns and prints the format."""
    src = ("def print_too_many(r):\n    print(" + ", ".join(f"r[{i}]" for i in range(33)) + ")\n")
    ns: dict = {}
    exec(compile(src, "<string>", "exec"), ns)
    ptx, got = _warnings_of(ns["print_too_many"], "void(int64[::1])")
    assert [m for _, m in got] == [TOO_MANY]
    assert " ".join(["%%lld"] * 33) + "\n" in _strings(ptx)


def test_numba_cuda_warns_the_same_words():
    numba_cuda = pytest.importorskip("numba.cuda")
    from numba import types as nt
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        theirs, _ = numba_cuda.compile_ptx(print_many, (nt.int64,), cc=CC)
    assert TOO_MANY in [_plain(str(w.message)) for w in caught]
    assert " ".join(["%%lld"] * 33) + "\n" in _strings(theirs)
    _, got = _warnings_of(print_many, (int64,))
    assert [c.__name__ for c, _ in got] == ["NumbaWarning"]


def print_helper(x):
    print("helper", x)
    return x + 1


def print_from_device_function(out, x):
    out[0] = print_helper(x)


def test_device_functions_print():
    ptx = _ptx(print_from_device_function, "void(int64[:], int64)")
    assert {"%s %lld\n", "helper"} <= set(_strings(ptx))


def test_print_in_a_device_function_compiled_alone():
    ptx = _ptx(print_helper, (float64,), device=True)
    assert "%s %f\n" in _strings(ptx)


def print_sep(x):
    print(x, sep=",")


def print_complex(z):
    print(z)


def print_array(a):
    print(a)


def print_none():
    print(None)


def print_fstring(x):
    print(f"x={x}")


def print_bytes():
    print(b"raw")


def print_string_variable(x):
    s = "a"
    print(s)


@pytest.mark.parametrize("fn, sig, match", [
    (print_sep, (int64,), r"print\(\) does not support keyword arguments \(sep=\)"),
    (print_complex, ("complex128",), r"cannot print a value of type complex128.*integers, floats, bfloat16, bools"),
    (print_array, ("float32[:]",), r"cannot print a value of type array\(float32, 1d, A\)"),
    (print_none, (), r"cannot print a value of type none"),
    (print_fstring, (int64,), r"cannot print an f-string with placeholders"),
    (print_bytes, (), r"cannot print a bytes literal"),
    (print_string_variable, (int64,), r"strings are not supported as values"),
])
def test_what_numba_cuda_cannot_print_is_refused(fn, sig, match):
    with pytest.raises(cubridge.CompileError, match=match) as info:
        cubridge.compile(fn, sig, device=False, abi="numba", cc=CC)
    assert re.search(r"test_jit_print\.py:\d+:\d+: ", str(info.value))


def test_numba_cuda_agrees_on_the_format_string():
    """numba's CUDA target builds the same format string for the same arguments (where it imports)."""
    numba_cuda = pytest.importorskip("numba.cuda")
    import numpy
    numpy.row_stack = getattr(numpy, "row_stack", numpy.vstack)
    from numba import types as nt

    def mixed(i, u, f):
        print(i, "s", u, f)

    theirs, _ = numba_cuda.compile_ptx(mixed, (nt.int32, nt.uint64, nt.float32), cc=CC)
    assert "%lld %s %llu %f\n" in _strings(theirs)
    assert "%lld %s %llu %f\n" in _strings(_ptx(mixed, (int32, uint64, float32)))
