"""Enum members in compiled functions, without a GPU, as numba-cuda types them (its typeof of Enum classes,
typing/enumdecl.py and cpython/enumimpl.py). The rules:

1. typeof: a member of an Enum is numba's EnumMember of its class and of the type of the class's values
   ("Enum<int64>(module.Color)", "Enum<UniTuple(float64 x 2)>(module.Planet)"), of an IntEnum
   IntEnumMember ("IntEnum<int64>(module.Shape)"); the class is part of the type (two classes with the same
   values give two types). A class whose values have several types is refused with numba's words ("Cannot
   type heterogeneous enum"), one whose values are not numbers or tuples of numbers by name.
2. The spelling reads back as the same type; a member is passed to a kernel as its value (a tuple value
   as its elements).
3. An IntEnum's member is its integer wherever a number is needed: arithmetic, comparisons (members of two
   IntEnum classes compare as integers), casts, stores; as a module global or a closure variable.
4. `==` and `!=` of two members of one class compare their values; `is` / `is not` of members of one class
   likewise, of two classes (IntEnum ones too, whatever their values) or of a member and a number are never
   the same (False, as numba's enum_is and generic_is).
5. Refused by name, as numba-cuda has no implementation: == / != of a plain Enum's member and anything but a
   member of its class, ordering operators on plain Enum members, arithmetic on them, attributes other than
   .value (.name included).
6. `.value` is the member's value; members are read as Cls.member and Cls["member"], held in variables, returned
   from device functions (the function's result type is the member type) and passed to them.
Values against numba-cuda on the GPU: parity/kernels_enums.py (numba_compat/test_parity_gpu.py)."""
import os
import re
import sys
from enum import Enum, IntEnum

import pytest

import cubridge
from conftest import assembled_ptx

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from parity import kernels_enums as kernels  # noqa: E402
from parity.kernels_enums import Color, IntEnumWithNegatives, Planet, RequestError, Shake, Shape  # noqa: E402

MOD = "parity.kernels_enums"
CC = (9, 0)


def _llvm(fn, sig):
    return cubridge.compile(fn, sig, device=False, abi="numba", cc=CC, output="llvm")[0]


def _stores(ptx: str) -> list[str]:
    """The constants the kernel stores as bytes (st.global.u8 of an immediate, or of a register a mov.u16 set to
    one), in order; a store of a computed value is not listed."""
    known, out = {}, []
    for line in ptx.splitlines():
        if m := re.match(r"\s*mov\.u16\s+(%rs\d+),\s*(\d+);", line):
            known[m[1]] = m[2]
        elif m := re.match(r"\s*st(?:\.global)?\.u8\s+\[[^\]]+\],\s*(%rs\d+|\d+);", line):
            if m[1] in known or m[1].isdigit():
                out.append(known.get(m[1], m[1]))
    return out


# ---- rule 1: typeof ----

@pytest.mark.parametrize("member, name", [
    (Color.red, f"Enum<int64>({MOD}.Color)"),
    (Planet.MARS, f"Enum<UniTuple(float64 x 2)>({MOD}.Planet)"),
    (Shape.circle, f"IntEnum<int64>({MOD}.Shape)"),
    (IntEnumWithNegatives.negone, f"IntEnum<int64>({MOD}.IntEnumWithNegatives)"),
])
def test_typeof_a_member_is_numbas_member_type_of_its_class(member, name):
    assert str(cubridge.typeof(member)) == name


def test_the_class_is_part_of_the_type():
    assert cubridge.typeof(Color.blue) != cubridge.typeof(Shake.mint)  # equal values, two classes
    assert cubridge.typeof(Shape.circle) != cubridge.typeof(IntEnumWithNegatives.two)
    assert cubridge.typeof(Color.red) == cubridge.typeof(Color.green)


def test_a_class_made_in_a_function_is_told_apart_from_another_of_its_name():
    def make():
        class Local(Enum):
            a = 1
        return Local

    one, two = make(), make()
    assert cubridge.typeof(one.a) != cubridge.typeof(two.a)
    assert "<locals>.Local@" in str(cubridge.typeof(one.a))


class Mixed(Enum):
    red = 1.0
    green = 2.0
    blue = 3j


class Named(Enum):
    a = "x"


def test_a_heterogeneous_enum_is_refused_with_numbas_words():
    with pytest.raises(TypeError, match=r"Enum class .*Mixed: Cannot type heterogeneous enum: got value types "
                                        r"complex128, float64"):
        cubridge.typeof(Mixed.red)


def test_an_enum_of_strings_is_refused_by_name():
    with pytest.raises(TypeError, match=r"Enum class .*Named: member a has the value 'x' \(str\); kernels take "
                                        r"members whose values are numbers or tuples of numbers"):
        cubridge.typeof(Named.a)


def uses_mixed(out):
    out[0] = Mixed.red == Mixed.green


def test_a_heterogeneous_enum_in_a_kernel_is_refused_where_it_is_used():
    with pytest.raises(cubridge.CompileError, match=r"'Mixed' is the Enum class .*Mixed: Cannot type heterogeneous"):
        cubridge.compile_ptx(uses_mixed, "void(bool[::1])")


# ---- rule 2: spelling and arguments ----

@pytest.mark.parametrize("member", [Color.red, Planet.EARTH, Shape.square])
def test_the_spelling_reads_back_as_the_same_type(member):
    t = cubridge.typeof(member)
    assert cubridge.Type.parse(str(t)) == t
    assert cubridge.Signature.parse(f"void({t}, bool[::1])").args[0] == t


def test_a_malformed_member_spelling_is_refused_naming_it():
    with pytest.raises(Exception, match=r"Enum<int64>\(a,b\)"):
        cubridge.Type.parse("Enum<int64>(a,b)")
    with pytest.raises(Exception, match=r"IntEnum<float64>\(m.C\)"):
        cubridge.Type.parse("IntEnum<float64>(m.C)")  # an IntEnum's values are integers


def test_a_member_argument_is_passed_as_its_value():
    planet, color = cubridge.typeof(Planet.MARS), cubridge.typeof(Color.red)
    ptx = assembled_ptx(kernels.compare, f"void({planet}, {planet}, bool[::1])")
    params = re.findall(r"\.param \.(\w+) \w+", ptx.split(")")[0])
    assert params[:4] == ["f64", "f64", "f64", "f64"]  # two (mass, radius) tuples
    ptx = assembled_ptx(kernels.compare, f"void({color}, {color}, bool[::1])")
    assert re.findall(r"\.param \.(\w+) \w+", ptx.split(")")[0])[:2] == ["u64", "u64"]


# ---- rule 3: IntEnum members are integers ----

def test_int_enum_members_are_integers_in_arithmetic_and_comparisons():
    ptx = assembled_ptx(kernels.int_coerce, "void(int64[::1], int32[::1])")
    assert "500" in ptx and "404" in ptx


def test_int_enum_members_cast():
    assembled_ptx(kernels.int_cast, "void(int64[::1], int32[::1])")


def test_int_enum_in_a_closure_folds_to_its_value():
    class Level(IntEnum):
        low = 3
        high = 7

    def kernel(out):
        out[0] = Level.high * 10 + Level["low"]

    ptx = assembled_ptx(kernel, "void(int64[::1])")
    assert any(line.strip().startswith("mov.u64") and line.rstrip().endswith(", 73;") for line in ptx.splitlines())


def int_enum_argument(s, out):
    out[0] = s + 1
    out[1] = s * RequestError.not_found
    out[2] = s > 3


def test_an_int_enum_argument_is_an_integer_in_arithmetic():
    ptx = assembled_ptx(int_enum_argument, f"void({cubridge.typeof(Shape.circle)}, int64[::1])")
    assert "404" in ptx


# ---- rule 4: ==, !=, is, is not ----

def test_members_compare_by_class_and_value():
    # getattr_getitem: [red == green, red == green by name, blue == blue, blue is blue, blue is not red, blue != red]
    assert _stores(assembled_ptx(kernels.getattr_getitem, "void(bool[::1])")) == ["0", "0", "1", "1", "1", "1"]


def test_members_of_two_classes_are_never_identical():
    # identities: [circle is two, circle == two, Color.blue is Shake.mint, circle is circle, Color.red is 1]
    assert _stores(assembled_ptx(kernels.identities, "void(bool[::1])")) == ["0", "1", "0", "1", "0"]


@pytest.mark.parametrize("a, b", kernels.COMPARED)
def test_compare_of_member_arguments_compiles_for_numbas_pairs(a, b):
    ptx = assembled_ptx(kernels.compare, f"void({cubridge.typeof(a)}, {cubridge.typeof(b)}, bool[::1])")
    stores = _stores(ptx)
    if cubridge.typeof(a) != cubridge.typeof(b):  # `is` of two types: a constant False (is not: True)
        assert stores == ["0", "1"]
    else:
        assert stores == []  # every result is computed from the values


def test_in_compares_with_each_member_of_a_tuple():
    # contained(c, out): [c in (red, green), c not in (blue, red)]: both depend on c
    color = cubridge.typeof(Color.red)
    ptx = assembled_ptx(kernels.contained, f"void({color}, bool[::1])")
    assert _stores(ptx) == []

    def mixed(out):  # IntEnum members as integers (numba-cuda has no implementation of this `contains`)
        out[0] = Shape.circle in (IntEnumWithNegatives.two, 7)

    assert _stores(assembled_ptx(mixed, "void(bool[::1])")) == ["1"]

    def constant(out):
        out[0] = Color.blue in (Color.red, Color.green)
        out[1] = Color.green in (Color.red, Color.green)

    assert _stores(assembled_ptx(constant, "void(bool[::1])")) == ["0", "1"]


# ---- rule 5: refusals ----

def eq_int(out):
    out[0] = Color.red == 1


def eq_other_class(out):
    out[0] = Color.blue == Shake.mint


def ordered(out):
    out[0] = Color.red < Color.green


def arithmetic(out):
    out[0] = Color.red + 1


def name_attribute(out):
    out[0] = Color.red.name == 1


def class_called(out):
    out[0] = Color(1) == Color.red


def class_bound(out):
    c = Color
    out[0] = 1


@pytest.mark.parametrize("fn, message", [
    (eq_int, rf"'==' of Enum<int64>\({MOD}.Color\) and int64 is not supported: numba-cuda compares an Enum's members "
             r"with == and != only with members of the same class"),
    (eq_other_class, rf"'==' of Enum<int64>\({MOD}.Color\) and Enum<int64>\({MOD}.Shake\) is not supported"),
    (ordered, r"'<' of .* is not supported: an Enum's members have no order in numba-cuda"),
    (arithmetic, rf"unsupported operand types for \+: Enum<int64>\({MOD}.Color\) and int64"),
    (name_attribute, r"attribute 'name' of an Enum member .* is not supported: numba-cuda types only \.value"),
    (class_called, rf"'Color' is the Enum class {MOD}.Color: kernels read its members as Color.member or "
                   r"Color\['member'\] .* the class itself \(called as Color\(value\), bound to a variable, iterated\) "
                   r"is not supported"),
    (class_bound, rf"'Color' is the Enum class {MOD}.Color: kernels read its members"),
])
def test_what_numba_cuda_does_not_type_is_refused_by_name(fn, message):
    with pytest.raises(cubridge.CompileError, match=message):
        cubridge.compile_ptx(fn, "void(int64[::1])")


# ---- rule 6: .value, variables, device functions ----

def test_value_is_the_members_value():
    # values(c, p, s, out): Color.blue.value * 10 + s.value with s = Shape.square folds to 530 for that argument
    sig = (f"void({cubridge.typeof(Color.green)}, {cubridge.typeof(Planet.MARS)}, {cubridge.typeof(Shape.square)}, "
           "float64[::1])")
    assembled_ptx(kernels.values, sig)

    def folded(out):
        out[0] = Color.blue.value * 10 + Shape.square.value

    ptx = assembled_ptx(folded, "void(int64[::1])")
    assert any(line.rstrip().endswith(", 530;") for line in ptx.splitlines())


def test_a_device_function_returns_a_member():
    llvm = _llvm(kernels.return_from_device_func, "void(bool, bool[::1])")
    # the device function's result is held as the member's value, an i64
    assert re.search(r"define internal i32 @\S*pick\S*\(i64\* noalias nocapture %retptr", llvm), llvm[:2000]
    assembled_ptx(kernels.return_from_device_func, "void(bool, bool[::1])")


# ---- rule 2: a launch passes a member as its value (checked without launching: KernelSignature.pack) ----

def test_a_launch_packs_a_member_as_its_value():
    import numpy as np
    planet, color, shape = (str(cubridge.typeof(m)) for m in (Planet.MARS, Color.blue, Shape.square))
    s = cubridge.KernelSignature(f"{planet}, {color}, {shape}")
    assert str(s) == f"void({planet}, {color}, {shape})"
    buf = s.pack(Planet.MARS, Color.blue, Shape.square)
    got = [buf[o:o + n] for o, n in s.slots]
    want = [np.float64(6.421e23), np.float64(3.3972e6), np.int64(3), np.int64(500)]
    assert got == [w.tobytes() for w in want]


def test_a_launch_refuses_a_member_of_another_class_naming_it():
    s = cubridge.KernelSignature(str(cubridge.typeof(Color.blue)))
    with pytest.raises(TypeError, match=rf"argument 0: <Shake.mint: 3> \(Shake\) was passed where the signature says "
                                        rf"Enum<int64>\({MOD}.Color\), a member of that class"):
        s.pack(Shake.mint)
    with pytest.raises(TypeError, match=r"argument 0: 3 \(int\) was passed where the signature says Enum<int64>"):
        s.pack(3)
