"""debug=True's variable information, as numba-cuda's debug info describes a kernel (test_debuginfo). The rules:

1. the subprogram's DISubroutineType lists `!{ null, <argument types> }` (null: no result);
2. scalar types are DIBasicTypes with numba's names and encodings (int32 DW_ATE_signed 32 bits, uint64
   DW_ATE_unsigned, float64 DW_ATE_float, bool DW_ATE_boolean 8 bits, GridGroup DW_ATE_unsigned 64 bits);
3. parameters are DILocalVariables with their position (arg: 1, 2, ...) declared once on their stack slots
   with llvm.dbg.declare; other variables (arg: 0) are described by llvm.dbg.value at each assignment,
   never by llvm.dbg.declare;
4. types without a scalar DWARF form (arrays, tuples, complex) are opaque named structures, and such
   kernels compile (libNVVM and ptxas accept the metadata), optimised or not;
5. lineinfo alone and no debug emit none of this;
6. a variable's versions (definitions typed apart, as numba's SSA types them) are one DILocalVariable under
   the source's name, never a name the source lacks ("z#v1"): of their type where they share one, else of a
   union (DW_TAG_union_type, a DW_TAG_member "_<type>" per type in name order, the largest's size), as
   numba-cuda's test_debuginfo.test_union_poly_types checks."""
import re

import numpy as np
import pytest

import cubridge

CC = (9, 0)


def _ir(fn, sig, **options):
    options = {"debug": True, "opt": False, **options}
    k = cubridge.jit(sig, **options)(fn)
    ptx = k.inspect_asm(sig)
    assert ".entry" in ptx
    return k.inspect_llvm(sig)


def two_args(x, y):
    z = x + y  # noqa: F841


def test_subroutine_type_lists_the_argument_types():
    ir = _ir(two_args, "void(int32, int32)")
    types = re.search(r"!DISubroutineType\(types:\s+!(\d+)\)", ir).group(1)
    first, second = re.search(rf"!{types}\s+=\s+!{{\s+null,\s+!(\d+),\s+!(\d+)\s+}}", ir).groups()
    for node in (first, second):
        assert re.search(rf'!{node}\s+=\s+!DIBasicType\(.*DW_ATE_signed,\s+name:\s+"int32"', ir), ir


def compare(x, y):
    z = x == y  # noqa: F841


def test_a_bool_variable_is_dw_ate_boolean():
    ir = _ir(compare, "void(int32, int32)")
    node = re.search(r'!DILocalVariable\(.*name:\s+"z".*type:\s+!(\d+)', ir).group(1)
    assert re.search(rf"!{node}\s+=\s+!DIBasicType\(.*DW_ATE_boolean", ir), ir


def locals_(x, y):
    z1 = x  # noqa: F841
    z2 = 100  # noqa: F841
    z3 = y  # noqa: F841
    z4 = True  # noqa: F841


def test_locals_are_described_by_dbg_value_only():
    ir = _ir(locals_, "void(int32, int32)")
    for name in ("z1", "z2", "z3", "z4"):
        node = re.search(rf'^!(\d+)\s+=\s+!DILocalVariable\(.*arg:\s*0,.*name:\s+"{name}"', ir, re.M).group(1)
        assert re.search(rf'call void @"llvm\.dbg\.value"\(metadata [^,]+, metadata !{node}\b', ir), ir
        assert not re.search(rf'call void @"llvm\.dbg\.declare"\([^)]*metadata !{node}\b', ir)


def loops(depth1, depth2, depth3, out):
    acc = 0
    for i in range(depth1):
        for j in range(depth2):
            for k in range(depth3):
                acc += i + j + k
    out[0] = acc


def test_parameters_are_declared_once_on_their_slots():
    ir = _ir(loops, "void(int32, int32, int32, int32[::1])")
    for argno, name in enumerate(("depth1", "depth2", "depth3", "out"), start=1):
        node = re.search(rf'^!(\d+)\s+=\s+!DILocalVariable\([^)]*arg:\s*{argno}[^)]*name:\s*"{name}"', ir,
                         re.M).group(1)
        assert len(re.findall(rf'call void @"llvm\.dbg\.declare"\([^\n]*metadata !{node}\b', ir)) == 1, ir


def grid(x):
    g = cubridge.cg.this_grid()  # noqa: F841


def test_grid_group_type():
    ir = _ir(grid, "void(int32)")
    assert re.search(r'!DIBasicType\(.*DW_ATE_unsigned, name: "GridGroup", size: 64', ir), ir


def mixed(a, c, u):
    t = (a[0, 0], c.imag)
    v = a[0, 0]
    w = t[0] + c.real  # noqa: F841
    b = a  # noqa: F841
    a[0, 0] = v + u


@pytest.mark.parametrize("opt", [False, True])
def test_aggregates_are_opaque_named_structures_and_compile(opt):
    sig = "void(float64[:, ::1], complex128, uint64)"
    ir = _ir(mixed, sig, opt=opt)
    assert re.search(r'!DICompositeType\(tag: DW_TAG_structure_type, name: "array\(float64, 2d, C\)"', ir), ir
    assert re.search(r'!DIBasicType\(encoding: DW_ATE_unsigned, name: "uint64", size: 64\)', ir), ir
    assert re.search(r'!DIBasicType\(encoding: DW_ATE_float, name: "float64", size: 64\)', ir), ir


@pytest.mark.parametrize("options", [{"lineinfo": True}, {}])
def test_no_variables_without_debug(options):
    k = cubridge.jit("void(int32, int32)", **options)(locals_)
    ir = k.inspect_llvm("void(int32, int32)")
    assert "DILocalVariable" not in ir and "llvm.dbg.value" not in ir and "llvm.dbg.declare" not in ir
    assert "DIBasicType" not in ir


def device_helper(x):
    y = x * 2
    return y


def calls(out, x):
    out[0] = device_helper(x)


def test_device_functions_describe_their_variables_too():
    ir = _ir(calls, "void(float32[::1], float32)")
    assert re.search(r'!DILocalVariable\(arg: 1, .*name: "x", type: !\d+\)', ir)
    assert re.search(r'!DILocalVariable\(arg: 0, .*name: "y", type: !\d+\)', ir)
    out = np.zeros(1, np.float32)  # noqa: F841  (the launch is in the GPU suite's debug kernels)


def versions(out, y):
    z = 1
    out[0] = z
    z = y
    out[1] = z
    z = 2.5
    out[2] = z


def test_versions_are_named_as_the_source_names_them():
    ir = _ir(versions, "void(float64[::1], int64)")
    assert "#" not in "".join(re.findall(r"!DILocalVariable\(.*", ir))
    named_z = re.findall(r'^!(\d+)\s+=\s+!DILocalVariable\(arg: 0,.*name: "z", type: !(\d+)', ir, re.M)
    assert len(named_z) == 1, ir
    var, union = named_z[0]
    assert re.search(rf"^!{union} = distinct !DICompositeType\(elements: !\d+,.*size: 64, tag: DW_TAG_union_type\)",
                     ir, re.M), ir
    assert len(re.findall(rf'call void @"llvm\.dbg\.value"\(metadata [^,]+, metadata !{var}\b', ir)) == 3


def test_versions_of_three_types_are_a_union_of_three_members():
    def f(x, y):
        foo = 100  # noqa: F841
        foo = 2.34  # noqa: F841
        foo = True  # noqa: F841
        foo = 200  # noqa: F841

    ir = _ir(f, "void(int32, int32)")
    node = re.search(r'!DILocalVariable\(.*name: "foo".*type: !(\d+)\)', ir).group(1)
    elements = re.search(rf"!{node} = distinct !DICompositeType\(elements: !(\d+),.*size: 64, tag: DW_TAG_union_type\)",
                         ir).group(1)
    members = re.search(rf"!{elements} = !{{ !(\d+), !(\d+), !(\d+) }}", ir).groups()
    for m, (name, size) in zip(members, [("_bool", 8), ("_float64", 64), ("_int64", 64)]):
        assert re.search(rf'!{m} = !DIDerivedType\(.*name: "{name}", size: {size}, tag: DW_TAG_member\)', ir), ir


def test_versions_of_one_type_share_one_variable_of_that_type():
    def f(out, y):
        z = y
        out[0] = z
        z = 7
        out[1] = z

    ir = _ir(f, "void(int64[::1], int64)")
    named_z = re.findall(r'^!(\d+)\s+=\s+!DILocalVariable\(arg: 0,.*name: "z", type: !(\d+)', ir, re.M)
    assert len(named_z) == 1, ir
    assert re.search(rf'^!{named_z[0][1]} = !DIBasicType\(.*name: "int64"', ir, re.M), ir
