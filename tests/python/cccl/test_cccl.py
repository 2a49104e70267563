"""cubridge.cccl without a GPU: operators (defs and lambdas, stateless and stateful) compiled to LTO-IR with
the ABI cuda.compute's RawOp calls (``void name(void* a, ..., void* result)``, ``void* state`` first for a
stateful one), linked by nvJitLink into a CUDA C++ kernel that calls them as CCCL's kernels do, the operator
inlined; the state's packing; every refusal by its message. Running cuda.compute's algorithms:
test_cccl_gpu.py."""
import sys

import numpy as np
import pytest

import cubridge
from cubridge import cccl

CC = (9, 0)


def caller(op: cccl.Operator, result: str, args: list[str]) -> str:
    """A kernel calling `op` through its void* ABI, each operand from an array, as CCCL's kernels do (struct
    operands as arrays of char)."""
    c = {**cccl.C_TYPES, "struct": "char"}
    params = [f"const {c[t]}* in{i}" for i, t in enumerate(args)] + [f"{c[result]}* out"]
    if op.state:
        params.insert(0, "void* state")
    call = (["state"] if op.state else []) + [f"(void*)in{i}" for i in range(len(args))] + ["out"]
    return (f'extern "C" __device__ void {op.name}({", ".join(["void*"] * len(call))});\n'
            f'extern "C" __global__ void k({", ".join(params)}) {{ {op.name}({", ".join(call)}); }}\n')


def linked_ptx(op: cccl.Operator, result: str, args: list[str]) -> str:
    kernel = cubridge.nvrtc_compile(caller(op, result, args), "k.cu", CC, output="ltoir").code
    return cubridge.link([kernel, op.ltoir, *op.extra_ltoirs], CC, output="ptx")


def entry(ptx: str) -> str:
    return ptx[ptx.index(".entry k("):]


def maximum(a, b):
    return a if a > b else b


@pytest.mark.parametrize("t", list(cccl.C_TYPES))
def test_every_type_links_and_inlines(t):
    op = cccl.compile_op(maximum, f"{t}({t}, {t})", cc=CC)
    assert op.name.startswith("cubridge_op_") and op.state == b"" and op.state_alignment == 1
    assert "call" not in entry(linked_ptx(op, t, [t, t]))


def test_a_lambda_compiles():
    op = cccl.compile_op(lambda a, b: a + b, "float32(float32, float32)", cc=CC)
    body = entry(linked_ptx(op, "float32", ["float32", "float32"]))
    assert "add.f32" in body or "add.rn.f32" in body


def test_a_unary_operator_with_math():
    import math

    def softplus(x):
        return math.log(1.0 + math.exp(x))

    op = cccl.compile_op(softplus, "float64(float64)", cc=CC)
    assert "call" not in entry(linked_ptx(op, "float64", ["float64"]))


def test_state_is_packed_at_natural_alignment():
    op = cccl.compile_op(lambda s, n, a: a * s + n, "float64(float32)", state=(np.float64(2.5), np.int32(7)),
                         cc=CC)
    assert op.state == np.float64(2.5).tobytes() + np.int32(7).tobytes()
    assert op.state_alignment == 8
    assert "call" not in entry(linked_ptx(op, "float64", ["float32"]))
    op2 = cccl.compile_op(lambda n, s, a: a * s + n, "float64(float32)", state=(np.int8(1), np.float32(2)), cc=CC)
    assert op2.state == np.int8(1).tobytes() + b"\0" * 3 + np.float32(2).tobytes() and op2.state_alignment == 4


def test_other_state_values_reuse_the_code():
    f = lambda s, a: a * s  # noqa: E731
    one = cccl.compile_op(f, "float32(float32)", state=np.float32(2), cc=CC)
    two = cccl.compile_op(f, "float32(float32)", state=np.float32(3), cc=CC)
    assert (one.name, one.ltoir, one.extra_ltoirs) == (two.name, two.ltoir, two.extra_ltoirs)
    assert one.state != two.state


def test_different_operators_get_different_symbols():
    a = cccl.compile_op(lambda x, y: x + y, "int32(int32, int32)", cc=CC)
    b = cccl.compile_op(lambda x, y: x * y, "int32(int32, int32)", cc=CC)
    assert a.name != b.name


@pytest.mark.parametrize("sig, message", [
    ("float32", r"signature 'float32' is not text such as 'float32\(float32, float32\)'"),
    (("float32",), r"signature \('float32',\) is not text"),
    ("float32()", r"signature 'float32\(\)' has no operands"),
    ("float16(float16, float16)", r"type 'float16' in signature .* is not an operator type; accepted: bool, "),
    (("float32", ["float32", 3]), r"3 in signature .* is neither a type name nor a NumPy dtype"),
    (("float32", [np.dtype([("x", np.float16)])]), r"holds float16, which is not an operator type"),
    (("float32", [np.dtype([("x", np.float32, 3)])]), r"holds \('<f4', \(3,\)\), which is not an operator type"),
    (("float32", "float32"), r"nor a pair \(result, \[operand types\]\)"),
    ("float32(complex64)", r"type 'complex64' in signature"),
])
def test_signature_refusals(sig, message):
    with pytest.raises(TypeError, match=message):
        cccl.compile_op(maximum, sig, cc=CC)


def test_state_refusals():
    with pytest.raises(TypeError, match=r"state value 2.0 \(float\) is not a NumPy scalar of an operator type"):
        cccl.compile_op(lambda s, a: a * s, "float32(float32)", state=2.0, cc=CC)
    with pytest.raises(TypeError, match=r"state value .* \(complex64\) is not a NumPy scalar"):
        cccl.compile_op(lambda s, a: a * s, "float32(float32)", state=np.complex64(1), cc=CC)


def test_refuses_what_is_not_a_function():
    with pytest.raises(TypeError, match=r"cccl.op: <built-in function max> \(builtin_function_or_method\) is not a "
                                        r"Python function"):
        cccl.compile_op(max, "int32(int32, int32)", cc=CC)


def test_a_typing_error_names_the_function():
    def bad(a, b):
        return a.nope

    with pytest.raises(cubridge.CompileError, match="nope"):
        cccl.compile_op(bad, "int32(int32, int32)", cc=CC)


PAIR = np.dtype([("x", np.float32), ("n", np.int32)], align=True)
MIXED = np.dtype([("flag", np.int8), ("v", np.float64), ("k", np.uint16)], align=True)


def add_pair(a, b):
    return (a[0] + b[0], a[1] if a[1] > b[1] else b[1])


def mix(a, b):
    return (a[0] | b[0], a[1] * b[1], a[2])


@pytest.mark.parametrize("dtype, func", [(PAIR, add_pair), (MIXED, mix)])
def test_a_struct_operator_links_and_inlines(dtype, func):
    op = cccl.compile_op(func, (dtype, [dtype, dtype]), cc=CC)
    body = entry(linked_ptx(op, "struct", ["struct", "struct"]))
    assert "call" not in body
    for _, offset in dtype.fields.values():  # every field read and stored at its offset
        assert offset == 0 or f"+{offset}]" in body


def test_a_struct_type_may_be_anything_with_a_structured_dtype():
    class GpuStructLike:
        dtype = PAIR

    a = cccl.compile_op(add_pair, (GpuStructLike, [GpuStructLike, GpuStructLike]), cc=CC)
    b = cccl.compile_op(add_pair, (PAIR, [PAIR, PAIR]), cc=CC)
    assert (a.name, a.ltoir) == (b.name, b.ltoir)
    packed = np.dtype([("x", np.float32), ("n", np.int32), ("z", np.int8)])  # other offsets: another symbol
    c = cccl.compile_op(lambda p: p[0], ("float32", [packed]), cc=CC)
    d = cccl.compile_op(lambda p: p[0], ("float32", [np.dtype([("x", np.float32), ("z", np.int8), ("n", np.int32)])]),
                        cc=CC)
    assert c.name != d.name


def test_a_lambda_without_source_text_is_refused():
    f = eval("lambda a, b: a + b")
    with pytest.raises(TypeError, match=r"the lambda at <string>:1 has no source file to read it from"):
        cccl.compile_op(f, "int32(int32, int32)", cc=CC)


def test_a_lambda_inside_a_statement_of_several_lines():
    op = cccl.compile_op(
        lambda a,
        b: a - b,
        "int32(int32, int32)", cc=CC)
    assert "sub.s32" in entry(linked_ptx(op, "int32", ["int32", "int32"]))


def test_two_lambdas_on_one_line_are_told_apart():
    f, g = (lambda a, b: a + b), (lambda c, d: c * d)  # noqa: E731
    assert cccl.compile_op(f, "int32(int32, int32)", cc=CC).name != cccl.compile_op(g, "int32(int32, int32)", cc=CC).name
    h, k = (lambda a, b: a + b), (lambda a, b: a * b)  # noqa: E731
    if sys.version_info < (3, 11):  # no column positions in the code: refused
        with pytest.raises(TypeError, match=r"2 lambdas of parameters \(a, b\) match the one at .*test_cccl.py:\d+; "
                                            r"define the operator with def"):
            cccl.compile_op(h, "int32(int32, int32)", cc=CC)
        return
    body_h = entry(linked_ptx(cccl.compile_op(h, "int32(int32, int32)", cc=CC), "int32", ["int32", "int32"]))
    body_k = entry(linked_ptx(cccl.compile_op(k, "int32(int32, int32)", cc=CC), "int32", ["int32", "int32"]))
    assert "add.s32" in body_h and "mul.lo.s32" in body_k


def test_a_lambda_closure_is_folded_and_named():
    ops = []
    for offset in (5, 6):
        ops.append(cccl.compile_op(lambda a: a + offset, "int64(int64)", cc=CC))
        assert "call" not in entry(linked_ptx(ops[-1], "int64", ["int64"]))
    assert ops[0].name != ops[1].name and ops[0].extra_ltoirs != ops[1].extra_ltoirs


def test_nothing_imports_numba(tmp_path):
    import subprocess
    import sys
    script = tmp_path / "op.py"
    script.write_text("import sys, cubridge.cccl as c\n"
                      "c.compile_op(lambda a, b: a + b, 'int64(int64, int64)', cc=(9, 0))\n"
                      "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'numba_cuda_mlir')))\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
