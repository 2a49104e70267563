"""numba.cuda.libdevice in kernels without a GPU: every function numba-cuda exposes (its list,
numba/cuda/libdevicefuncs.py, the source of src/compiler/kernel_library/libdevice_table.inc) compiles with its parameter
types, returns numba-cuda's type (a tuple after the result for output pointers: sincos -> (sin, cos), frexp
-> (mantissa, exponent)), and ptxas assembles it with libdevice linked. Arguments convert as numba converts
them (float32 to float64, float to int); what does not convert is refused by name. Values are checked on
the GPU by parity/kernels_libdevice.py."""
import importlib
import sys

import pytest

import cubridge
from numba import cuda
from numba.cuda import libdevice

CC = (9, 0)
CHUNK = 40
PARAMS = {"float32": "f32", "float64": "f64", "int16": "i16", "int32": "i32", "int64": "i64"}


def _functions():
    pytest.importorskip("numba.cuda", reason="numba is not installed")
    from numba.cuda import libdevicefuncs
    return libdevicefuncs


def _write_chunks(tmp_path, funcs):
    """A module of device functions, each calling CHUNK libdevice functions on typed parameters and returning
    their results as one tuple (written to a file: the compiler reads functions' source)."""
    names = sorted(funcs.functions)
    text = "from numba.cuda import libdevice\n\n"
    chunks = []
    for k in range(0, len(names), CHUNK):
        part = names[k:k + CHUNK]
        calls = []
        for name in part:
            _, args = funcs.functions[name]
            calls.append(f"libdevice.{name[5:]}(" + ", ".join(PARAMS[a.ty.name] for a in args if not a.is_ptr) + ")")
        text += f"def chunk{k}(f32, f64, i16, i32, i64):\n    return (" + ",\n            ".join(calls) + ",)\n\n\n"
        chunks.append((f"chunk{k}", part))
    (tmp_path / "libdevice_chunks.py").write_text(text)
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("libdevice_chunks")
    finally:
        sys.path.remove(str(tmp_path))
    return module, chunks


def test_every_libdevice_function_has_numba_cudas_types_and_assembles(tmp_path):
    funcs = _functions()
    module, chunks = _write_chunks(tmp_path, funcs)
    assert sum(len(p) for _, p in chunks) == len(funcs.functions) >= 300
    for fname, part in chunks:
        ptx, resty = cubridge.compile(getattr(module, fname), "(float32, float64, int16, int32, int64)", device=True,
                                      abi="c", cc=CC)
        want = funcs.Tuple([funcs.create_signature(*funcs.functions[n]).return_type for n in part])
        assert str(resty) == str(want), fname
        r = cubridge.ptxas_check(ptx, CC)
        assert r, (fname, r.log)
    del sys.modules["libdevice_chunks"]


def sin_f32(x):
    return libdevice.sin(x)


def abs_of_float(x):
    return libdevice.abs(x)


def sincos_pair(x):
    s, c = libdevice.sincos(x)
    return s * s + c * c


def through_cuda(x):
    return cuda.libdevice.frexp(x)


def sin_of_complex(z):
    return libdevice.sin(z)


def sin_two(x):
    return libdevice.sin(x, x)


def not_a_function(x):
    return libdevice.sine(x)




def _compile(fn, args):
    ptx, resty = cubridge.compile(fn, "(" + ", ".join(args) + ",)", device=True, abi="c", cc=CC)
    return str(resty)


def test_arguments_convert_as_numba_converts_them():
    assert _compile(sin_f32, ["float32"]) == "float64"  # __nv_sin takes float64
    assert _compile(sin_f32, ["int64"]) == "float64"
    assert _compile(abs_of_float, ["float64"]) == "int32"  # numba converts unsafely too
    assert _compile(sincos_pair, ["float64"]) == "float64"
    assert _compile(through_cuda, ["float32"]) == "Tuple(float64, int32)"


def test_libdevice_refusals_name_the_function_and_its_types():
    with pytest.raises(cubridge.CompileError, match=r"libdevice\.sin\(float64\): argument 1 is complex128, which does "
                                                    r"not convert to float64"):
        _compile(sin_of_complex, ["complex128"])
    with pytest.raises(cubridge.CompileError, match=r"libdevice\.sin\(\) takes 1 argument\(s\), got 2"):
        _compile(sin_two, ["float64"])
    with pytest.raises(cubridge.CompileError, match=r"libdevice\.sine is not a libdevice function numba-cuda offers"):
        _compile(not_a_function, ["float64"])
