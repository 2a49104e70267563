"""numba extension types with a StructModel, described as numba's CUDA target lays them out
(python/cubridge/_numba_struct_models.py). The rules:

1. a user's type registered with a StructModel is described by numba's own data model: its members in order
   (name, numba type, cubridge counterpart), the LLVM data type of a value, its ABI size and alignment, and the
   parameters a kernel argument of it becomes (numba's as_argument flattening: one per leaf, an array member as
   its own flattened struct);
2. a member without a cubridge counterpart is kept with the reason, and the layout says it is not representable;
3. numba's own types (arrays, numbers) and a user type with no registered model are not described (None);
4. a refusal of numba's code whose signature holds such a type that cubridge does not hold names the type, its
   members, its size and the first member that is not an integer or a float (test_jit_numba_extension_types.py
   compiles the ones it holds)."""
import pytest

cases = pytest.importorskip("numba_lowering_cases", reason="numba is not installed")
from cubridge._numba_struct_models import is_extension_type, struct_layout  # noqa: E402


def test_struct_model_members_are_numbas_in_order_with_their_cubridge_types():
    layout = struct_layout(cases.span_type)
    assert [m.name for m in layout.members] == ["lo", "hi"]
    assert [str(m.numba_type) for m in layout.members] == ["float64", "float64"]
    assert [str(m.type) for m in layout.members] == ["float64", "float64"]
    assert layout.representable


def test_struct_model_data_type_size_and_alignment_are_numbas():
    layout = struct_layout(cases.span_type)
    assert layout.data_type == "{double, double}"
    assert (layout.size, layout.alignment) == (16, 8)
    assert layout.describe() == "Span (numba StructModel {lo: float64, hi: float64}, 16 bytes)"


def test_kernel_argument_flattens_as_numba_passes_it():
    assert struct_layout(cases.span_type).kernel_parameters == ("double", "double")
    mixed = struct_layout(cases.mixed_type)
    # int32, then the array member's own struct (meminfo, parent, nitems, itemsize, data, shape, strides), then
    # the opaque pointer
    assert mixed.kernel_parameters == ("i32", "i8*", "i8*", "i64", "i64", "float*", "i64", "i64", "i8*")


def test_member_without_a_cubridge_type_is_kept_with_the_reason():
    mixed = struct_layout(cases.mixed_type)
    assert [str(m.type) for m in mixed.members[:2]] == ["int32", "array(float32, 1d, C)"]
    handle = mixed.members[2]
    assert handle.type is None and "pyobject" in handle.missing
    assert not mixed.representable


def test_numbas_own_types_and_unmodelled_types_are_not_described():
    types = cases.types
    assert struct_layout(types.float64) is None
    assert struct_layout(types.float64[::1]) is None  # numba's ArrayModel is a StructModel: not an extension
    assert not is_extension_type(types.float64[::1])
    assert struct_layout(cases.interval_type) is None  # no model registered for it
    assert is_extension_type(cases.span_type)


def test_refusal_names_the_member_cubridge_cannot_type():
    from cubridge._numba_struct_models import extension_type_refusal
    message = extension_type_refusal((cases.types.int32, cases.mixed_type), "'f(...)'", "f")
    assert message.startswith("'f(...)': f takes or returns Mixed (numba StructModel {n: int32, ")
    assert "member data (array(float32, 1d, C)) is not an integer or a float" in message
    assert extension_type_refusal((cases.types.int32, cases.interval_type), "'f(...)'", "f") is None
