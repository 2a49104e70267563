"""Arrays inside tuples and arrays that unify, without a GPU: tuples of arrays (built, unpacked, indexed,
swapped in loops, passed to device functions, mixed with numbers and nested) compile and assemble;
arrays of one dtype and rank unify as numba's Array.unify does (layout 'A' when the layouts differ,
read-only when either is), and what cannot unify is refused by name. The corpus kernels tuple_of_views
and pick_by_flag check the values on the GPU."""
import pytest

import cubridge

CC = (9, 0)


def unpack(x, out):
    a, b = x[1:], x[:-1]
    i = cubridge.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] - b[i]


def index_tuple(x, y, out):
    t = (x, y)
    i = cubridge.grid(1)
    if i < out.shape[0]:
        out[i] = t[0][i] + t[1][i] * t[1].shape[0]


def pick(x, y, out, flag):
    a, b = (x, y) if flag else (y, x)
    i = cubridge.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] - b[i]


def product(pair, i):
    return pair[0][i] * pair[1][i]


def through_function(x, y, out):
    i = cubridge.grid(1)
    if i < out.shape[0]:
        out[i] = product((x, y), i)


def swapped_in_a_loop(x, y, out):
    t = (x, y)
    for _ in range(3):
        t = (t[1], t[0])
    i = cubridge.grid(1)
    if i < out.shape[0]:
        out[i] = t[0][i]


def nested(x, out):
    t = (x, 3, (x[1:], 2.5))
    i = cubridge.grid(1)
    if i < t[2][0].shape[0]:
        out[i] = t[0][i] * t[1] + t[2][0][i] * t[2][1]


def store_through(x, out):
    t = (out, x)
    i = cubridge.grid(1)
    if i < x.shape[0]:
        t[0][i] = t[1][i] + 1


def store_read_only(x, out, flag):
    a = x if flag else out
    a[0] = 1


def with_none(x):
    t = (x, None)


def mixed_ranks(x, m, flag):
    a = x if flag else m


C1 = "float32[::1]"
A1 = "float32[:]"


@pytest.mark.parametrize("fn,sig", [
    (unpack, f"void({C1}, {C1})"),
    (index_tuple, f"void({C1}, {A1}, {C1})"),
    (pick, f"void({C1}, {C1}, {C1}, bool)"),
    (pick, f"void({C1}, {A1}, {C1}, bool)"),  # (C, A) and (A, C) unify to (A, A)
    (through_function, f"void({C1}, {A1}, {C1})"),
    (swapped_in_a_loop, f"void({C1}, {C1}, {C1})"),
    (swapped_in_a_loop, f"void({C1}, {A1}, {C1})"),
    (nested, "void(float64[::1], float64[::1])"),
    (store_through, f"void({C1}, {C1})"),
], ids=lambda v: v.__name__ if callable(v) else v)
def test_tuples_of_arrays_compile_and_assemble(fn, sig):
    ptx, resty = cubridge.compile_ptx(fn, sig, cc=CC)
    assert resty is None
    r = cubridge.ptxas_check(ptx, CC)
    assert r, r.log


def test_a_unified_any_layout_array_indexes_through_its_strides():
    """pick with a C and an 'A' array: after unifying, a[i] multiplies i by the stride it carries
    (a C array alone would use the item size)."""
    ir = cubridge._core._compile_source  # the front end's IR is what tells the two apart
    o = cubridge._core._CompileOptions()
    o.device = False
    o.set_abi(True)
    o.set_cc(*CC)
    import inspect
    import textwrap
    src = textwrap.dedent(inspect.getsource(pick)).replace("def pick", "import cubridge\ndef pick", 1)
    both_c = ir(src, "pick", f"void({C1}, {C1}, {C1}, bool)", o).nvvm_ir
    mixed = ir(src, "pick", f"void({C1}, {A1}, {C1}, bool)", o).nvvm_ir
    assert both_c.count("extractvalue") < mixed.count("extractvalue"), "the 'A' arrays read their strides"


@pytest.mark.parametrize("fn,sig,message", [
    (store_read_only, f"void(const {C1}, {C1}, bool)",
     r"cannot store to 'a': it is a read-only array \(readonly array\(float32, 1d, C\)\)"),
    (with_none, f"void({C1},)", r"tuples hold numbers, arrays and tuples; got a value of type none"),
    (mixed_ranks, f"void({C1}, float32[:, ::1], bool)", r"the branches of the conditional expression have types "
                                                        r"array\(float32, 1d, C\) and array\(float32, 2d, C\)"),
])
def test_what_does_not_unify_or_is_read_only_is_refused(fn, sig, message):
    with pytest.raises(cubridge.CompileError, match=message):
        cubridge.compile_ptx(fn, sig, cc=CC)
