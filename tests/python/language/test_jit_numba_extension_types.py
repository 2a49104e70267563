"""Values of numba extension types in cubridge code: a type registered with a StructModel of integers and floats
(numba's Interval example) is cubridge's foreign type, held by value as numba lays it out
(python/cubridge/_numba_struct_models.py, TypeKind::Foreign). The rules:

1. its constructor (type_callable + lower_builtin) is numba's lowering, through the bridge; the value comes back
   through numba's result pointer, as an LLVM struct of the members in numba's order;
2. a make_attribute_wrapper attribute is read as the member it names (whatever the member's own name); any
   other attribute is numba's code: typed by numba's typing (AttributeTemplate, overload_attribute) and
   compiled from numba's getattr lowering (lower_attr; overload_attribute's Python implementation) through the
   bridge; one numba's typing does not give (a member without a wrapper included) is refused with numba's words;
3. the value lives in variables, its members take part in arithmetic, and it passes to and returns from
   cubridge device functions;
4. numba's code taking such a value (an @intrinsic) gets it member by member, as numba's calling convention
   passes a StructModel;
5. a StructModel with a member that is not an integer or a float (a bool: i1 in a value, i8 in memory) is not
   held, and its constructor is refused naming that member;
6. the foreign type is spelt by numba's name, has kind 'foreign', lists its members, and is the same type each
   time numba's type object is met;
7. numba's type object bound outside the kernel is a local or shared array's dtype (elements stored and read
   whole), an array of it is a kernel parameter (numba's Array(T, 1, 'C')), and the kernel's type annotation
   gives numba's type object back (numba-cuda's test_localmem / test_sm_creation read typemap["l"].dtype); an
   element takes only a value of its type."""
import re

import pytest

import cubridge

cases = pytest.importorskip("numba_lowering_cases", reason="numba is not installed")
from numba_lowering_cases import Counter, Pair, Span, span_width  # noqa: E402
from cubridge._numba_struct_models import foreign_type, numba_type_of  # noqa: E402

CC = (8, 0)


def ptx(kernel, sig):
    code, _ = cubridge.compile_ptx(kernel, sig, cc=CC)
    return code


def test_constructor_and_member_reads_compile():
    code = ptx(cases.k_span, "void(float64[::1], float64[::1])")
    assert code.count("st.global.f64") == 2


def test_members_take_part_in_arithmetic():
    code, resty = cubridge.compile(cases.d_span_difference, "float64(float64, float64)", device=True, cc=CC)
    assert str(resty) == "float64" and "sub.f64" in code


def test_member_read_is_the_member_numba_stored():
    def lo_only(a, b):
        return Span(a, b).lo
    code, resty = cubridge.compile(lo_only, "(float64, float64)", device=True, cc=CC)
    assert str(resty) == "float64" and "sub.f64" not in code


def test_attribute_template_with_lower_attr_is_numbas_lowering():
    """numba-cuda's test_property: width typed by an AttributeTemplate, lowered by lower_attr."""
    def width(a, b):
        return Span(a, b).width
    code, resty = cubridge.compile(width, "(float64, float64)", device=True, cc=CC)
    assert str(resty) == "float64" and "sub.f64" in code


def test_overload_attribute_compiles_its_python_implementation():
    """numba-cuda's overload_attribute(..., target="cuda"): the implementation numba compiles for the attribute."""
    def mid(a, b):
        return Span(a, b).mid
    code, resty = cubridge.compile(mid, "(float64, float64)", device=True, cc=CC)
    assert str(resty) == "float64" and "add.f64" in code


def test_attribute_numba_does_not_type_is_refused():
    def missing(r, x):
        r[0] = Span(x[0], x[1]).length
    with pytest.raises(cubridge.CompileError, match=r"'Span.length': numba's typing gives Span no attribute 'length'"):
        ptx(missing, "void(float64[::1], float64[::1])")


def test_value_passes_to_numbas_code_member_by_member():
    def width(r, x):
        r[0] = span_width(Span(x[0], x[1]))
    code = ptx(width, "void(float64[::1], float64[::1])")
    assert "sub.f64" in code


def test_struct_model_with_a_bool_member_is_refused_naming_it():
    def make(r, n):
        c = Counter(n[0])
        r[0] = c.n
    with pytest.raises(cubridge.CompileError, match=r"Counter \(numba StructModel \{n: int32, done: bool\}.*"
                                                    r"member done \(bool\) is not an integer or a float"):
        ptx(make, "void(int32[::1], int32[::1])")


def test_foreign_type_spelling_kind_members_and_identity():
    t = foreign_type(cases.span_type)
    assert (str(t), t.kind) == ("Span", "foreign")
    assert list(t._member_names) == ["lo", "hi"] and [str(m) for m in t._members] == ["float64", "float64"]
    assert t.record_size == 16
    assert foreign_type(cases.span_type) == t and hash(foreign_type(cases.span_type)) == hash(t)
    assert numba_type_of(t) is cases.span_type
    assert foreign_type(cases.counter_type) is None and foreign_type(cases.types.float64) is None


def test_attribute_reads_the_member_make_attribute_wrapper_names():
    def read_x(a, b, c):
        return Pair(a, b, c).x  # make_attribute_wrapper(PairType, "y", "x"): member y, a float64
    def read_y(a, b, c):
        return Pair(a, b, c).y  # member x, an int64
    assert str(cubridge.compile(read_x, "(int64, float64, int64)", device=True, cc=CC)[1]) == "float64"
    assert str(cubridge.compile(read_y, "(int64, float64, int64)", device=True, cc=CC)[1]) == "int64"


def test_member_without_an_attribute_wrapper_is_refused():
    def read_z(a, b, c):
        return Pair(a, b, c).z
    with pytest.raises(cubridge.CompileError, match=r"'Pair.z': numba's typing gives Pair no attribute 'z'"):
        cubridge.compile(read_z, "(int64, float64, int64)", device=True, cc=CC)


def add_spans(a, b):
    return Span(a.lo + b.lo, a.hi + b.hi)


def test_device_function_takes_and_returns_the_value():
    """numba-cuda's test_extension_type_as_retvalue: a device function of two values returning a third."""
    add = cubridge.jit(device=True)(add_spans)

    def kernel(r, x):
        s = add(Span(x[0], x[1]), Span(x[2], x[3]))
        r[0] = s.lo
        r[1] = s.hi
    code = ptx(kernel, "void(float64[::1], float64[::1])")
    assert code.count("add.f64") == 2 and code.count("st.global.f64") == 2


span_type = cases.span_type


def local_spans(outx, outy, x):
    arr = cubridge.local.array(10, dtype=span_type)
    for i in range(len(arr)):
        arr[i] = Span(x[i], x[i] * 2)
    for i in range(len(arr)):
        outx[9 - i] = arr[i].lo
        outy[i] = arr[i].hi


def shared_spans(x):
    s = cubridge.shared.array(10, dtype=span_type)
    s[0] = x[0]
    x[1] = s[0]


def test_local_array_of_the_type_compiles_and_is_typed_as_numba_types_it():
    kernel = cubridge.jit("void(float64[::1], float64[::1], float64[::1])")(local_spans)
    annotation = next(iter(kernel.overloads.values()))._type_annotation
    assert annotation.typemap["arr"].dtype is span_type


def test_shared_array_and_array_parameter_of_the_type():
    kernel = cubridge.jit((cases.types.Array(span_type, 1, "C"),))(shared_spans)
    code = kernel.inspect_asm(next(iter(kernel.overloads)))
    # x[1] = s[0] = x[0]: element 1 of the parameter is 16 bytes in, its members at +16 and +24 (numba's layout)
    assert re.search(r"st\.global\.f64\s+\[%rd\d+\+16\]", code) and re.search(r"st\.global\.f64\s+\[%rd\d+\+24\]", code)
    annotation = next(iter(kernel.overloads.values()))._type_annotation
    assert annotation.typemap["s"].dtype is span_type and annotation.typemap["x"].dtype is span_type


def test_element_takes_only_a_value_of_its_type():
    def store_number(r):
        arr = cubridge.local.array(2, dtype=span_type)
        arr[0] = 1.0
        r[0] = arr[0].lo
    with pytest.raises(cubridge.CompileError, match=r"cannot store a value of type float64 into an element of 'arr' "
                                                    r"\(array\(Span, 1d, C\)\); an element of a numba extension type "
                                                    r"takes a value of that type"):
        ptx(store_number, "void(float64[::1])")


def test_foreign_type_construction_refuses_what_it_cannot_hold():
    Type = cubridge.Type
    f64 = cubridge.float64
    with pytest.raises(ValueError, match=r"a foreign type needs numba's name of it, one member name per member type "
                                         r"and its size; got 'Span' with 1 names for 2 types, size 16"):
        Type._foreign("Span", 0, ["lo"], [f64, f64], 16)
    with pytest.raises(ValueError, match=r"got '' with 0 names for 0 types, size 0"):
        Type._foreign("", 0, [], [], 0)
    with pytest.raises(ValueError, match=r"foreign type 'Flag': member type bool is not held \(members are integers "
                                         r"and floats\)"):
        Type._foreign("Flag", 0, ["on"], [cubridge.Type.parse("bool")], 1)
    with pytest.raises(TypeError, match=r"arrays hold numbers, records"):
        cubridge.Type._array(cubridge.UniTuple(f64, 2), 1, "C", False)  # a tuple still is no dtype


def test_opaque_model_type_is_a_kernel_parameter_as_numba_passes_it():
    """numba-cuda's test_overload_attribute_target: a type held by numba's OpaqueModel is one i8* parameter; its
    overload_attribute (target "cuda") is compiled."""
    types = cases.types
    kernel = cubridge.jit(types.void(types.int64[::1], cases.handle_type))(cases.k_handle)
    sig = next(iter(kernel.overloads))
    code = kernel.inspect_asm(sig)
    assert code.count(".param .u64") == 8  # the array's 7 parameters and the handle
    assert "42" in code
    from cubridge._numba_struct_models import foreign_type
    t = foreign_type(cases.handle_type)
    assert (str(t), t.kind, t._is_foreign_opaque, list(t._members)) == ("my_handle", "foreign", True, [])


def test_opaque_model_type_has_no_members():
    def read(res, h):
        res[0] = h.value
    types = cases.types
    with pytest.raises(cubridge.CompileError, match=r"'my_handle.value': numba's typing gives my_handle no attribute "
                                                    r"'value'"):
        cubridge.jit(types.void(types.int64[::1], cases.handle_type))(read)
