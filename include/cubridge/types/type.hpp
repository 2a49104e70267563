// The one Type of cubridge: Numba's scalar types (bool, int8..uint64, float16/32/64, complex64/128),
// tuples, none, Optional, arrays (any rank, layout C/F/A, read-only or not), NumPy structured dtypes as
// Numba's Record, a record's nested arrays, NumPy's fixed-width strings as Numba's CharSeq and
// UnicodeCharSeq, C pointers (the parameters of CUDA C++ kernels), the cooperative grid group and the members
// of an Enum or IntEnum class (Numba's EnumMember, IntEnumMember). Each field holds one fact for the kinds that have it; no field is reused.
// Implements: Numba's type names ("int32", "UniTuple(int64 x 2)", "array(float32, 2d, C)", "float32*").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cubridge/types/scalar_type.hpp"

namespace cubridge {

/// Extensible on purpose: a new kind (array, pointer, record) adds an enumerator plus its cases in
/// typing_rules.cpp and the emitter; nothing here depends on the set being closed.
enum class TypeKind : std::uint8_t {
  Unknown, None, Bool, Int, Float, Complex, Tuple, Array, GridGroup, Record, NestedArray, Optional, Pointer, BFloat16, Vector,
  Fp8E4M3, Fp8E5M2, Fp8E8M0,
  CharSeq,
  Datetime, Timedelta, EnumMember, IntEnumMember,
  Foreign
};

class Type {
 public:
  Type() = default;
  static Type unknown() { return Type(); }
  static Type none() { return Type(TypeKind::None, 0, false); }
  static Type boolean() { return Type(TypeKind::Bool, 1, false); }
  static Type integer(int bits, bool is_signed) { return Type(TypeKind::Int, bits, is_signed); }
  static Type floating(int bits) { return Type(TypeKind::Float, bits, true); }
  static Type complex(int bits) { return Type(TypeKind::Complex, bits, true); }
  /// numba-cuda's bfloat16 (CUDA's __nv_bfloat16): a number of its own kind, not a Float, because Numba
  /// types and converts it apart from the NumPy numbers (cuda_bf16's operators and casts, no array dtype).
  static Type bfloat16() { return Type(TypeKind::BFloat16, 16, true); }
  /// numba-cuda's fp8 numbers (CUDA's __nv_fp8_e4m3, __nv_fp8_e5m2, __nv_fp8_e8m0 from cuda_fp8.h): one byte
  /// each, a kind per format because each converts by its own rules (fp8_functions.hpp).
  static Type fp8_e4m3() { return Type(TypeKind::Fp8E4M3, 8, true); }
  static Type fp8_e5m2() { return Type(TypeKind::Fp8E5M2, 8, true); }
  static Type fp8_e8m0() { return Type(TypeKind::Fp8E8M0, 8, false); }
  /// numba-cuda's CUDA vector types (float32x4, int16x2, ...): `count` (1 to 4) components of the number
  /// type `base`, read as .x, .y, .z, .w; elements() holds the components' types.
  static Type vector(const Type& base, int count);
  /// The number type of a row of the scalar table (bfloat16's is Type::bfloat16()).
  static Type scalar(ScalarType type);
  static Type tuple(std::vector<Type> elements);
  /// A namedtuple's type (numba's NamedTuple / NamedUniTuple): a tuple whose elements are also fields,
  /// read as `p.x`; spelt "NamedTuple(Point, x=int64, y=int64)".
  static Type named_tuple(std::string class_name, std::vector<std::string> fields, std::vector<Type> elements);
  /// An array of `dtype` (a scalar type) with `ndim` dimensions, layout 'C', 'F' or 'A' (any strides).
  static Type array(const Type& dtype, int ndim, char layout, bool readonly = false);
  /// numba-cuda's GridGroup: what cuda.cg.this_grid() returns (held as the grid's barrier workspace address).
  static Type grid_group() { return Type(TypeKind::GridGroup, 64, false); }
  /// A NumPy structured dtype as Numba's Record: its fields (names, types, byte offsets) in order of
  /// offset (then name, as Numba sorts them), its item size in bytes, and whether NumPy aligned it
  /// (align=True; a packed record's fields are read with byte alignment, as Numba does).
  static Type record(std::vector<std::string> names, std::vector<Type> types, std::vector<std::int64_t> offsets,
                     std::int64_t size, bool aligned);
  /// An array field of a record (Numba's NestedArray, "nestedarray(float32, (3,))"): C-ordered, of
  /// constant shape, stored inside the record.
  static Type nested_array(const Type& dtype, std::vector<std::int64_t> shape);
  /// NumPy's fixed-width strings as Numba types them: `count` bytes ('|S<count>', Numba's CharSeq,
  /// "[char x 12]") or `count` UTF-32 code points ('<U<count>', UnicodeCharSeq, "[unichr x 12]"), held in
  /// place in an array element or a record field.
  static Type char_seq(std::int64_t count, bool unicode);
  /// NumPy's datetime64 and timedelta64 as Numba types them (NPDatetime(unit), NPTimedelta(unit)): an
  /// int64 count of `unit` (a code of datetime_unit.hpp) since the epoch / of duration, NaT being
  /// INT64_MIN; spelt "datetime64[D]", "timedelta64[ms]" ("datetime64[]" for the generic unit).
  static Type datetime(std::uint8_t unit);
  /// A numba extension type whose data model is a StructModel of numbers (numba's Interval example), held by
  /// value as numba lays it out (an LLVM struct of the members' types) and read member by member as attributes.
  /// `handle` names numba's type object, which the Python layer owns (_numba_struct_models.py); two foreign
  /// types are equal when their handles are. Spelt by numba's name of the type ("Interval").
  static Type foreign(std::string name, std::int64_t handle, std::vector<std::string> members,
                      std::vector<Type> member_types, std::int64_t size);
  /// A numba extension type whose data model is an OpaqueModel: an untyped pointer (i8*) numba's own code
  /// gives meaning to; it has no members, every attribute is numba's code.
  static Type foreign_opaque(std::string name, std::int64_t handle);
  static Type timedelta(std::uint8_t unit);
  /// A member of an Enum class (Numba's EnumMember) or of an IntEnum class (`int_enum`: Numba's IntEnumMember,
  /// which converts to its integer wherever a number is needed). `enum_class` names the class uniquely (its
  /// module and qualified name: the class is part of the type, so members of two classes never compare
  /// equal or identical); `value` is the type of the members' values, which is how a member is held.
  /// Spelt as Numba prints it, with the class's full name: "Enum<int64>(pkg.mod.Color)", "IntEnum<int64>(Shape)".
  static Type enum_member(std::string enum_class, const Type& value, bool int_enum);
  /// Numba's Optional: a value of `value` or None (what unifying a type with none gives, e.g. the result
  /// of a function returning a value on some paths and None on others).
  static Type optional(const Type& value);
  /// A C pointer to `pointee` (none for `void*`), as CUDA C++ kernels take arrays: "float32*",
  /// "const float32*" (`readonly`: the kernel does not write through it), "void*".
  static Type pointer(const Type& pointee, bool readonly = false);
  /// The same array, pointer or record, read-only: a kernel parameter the kernel does not write through
  /// ("const float32[:]", "const float32*", "const Record(...)", a record passed by address).
  Type as_readonly() const;

  TypeKind kind() const noexcept { return kind_; }
  /// Scalars: width in bits: 1 for bool, the integer or float width, the whole width of a complex (64,
  /// 128); the grid group's handle width (64); a CharSeq's code unit (8 or 32); 0 for every other kind.
  int bits() const noexcept { return bits_; }
  bool is_signed() const noexcept { return signed_; }
  const std::vector<Type>& elements() const noexcept { return elements_; }

  bool is_unknown() const noexcept { return kind_ == TypeKind::Unknown; }
  bool is_bool() const noexcept { return kind_ == TypeKind::Bool; }
  bool is_int() const noexcept { return kind_ == TypeKind::Int; }
  bool is_float() const noexcept { return kind_ == TypeKind::Float; }
  bool is_complex() const noexcept { return kind_ == TypeKind::Complex; }
  bool is_tuple() const noexcept { return kind_ == TypeKind::Tuple; }
  bool is_none() const noexcept { return kind_ == TypeKind::None; }
  bool is_array() const noexcept { return kind_ == TypeKind::Array; }
  bool is_grid_group() const noexcept { return kind_ == TypeKind::GridGroup; }
  bool is_optional() const noexcept { return kind_ == TypeKind::Optional; }
  bool is_pointer() const noexcept { return kind_ == TypeKind::Pointer; }
  bool is_bfloat16() const noexcept { return kind_ == TypeKind::BFloat16; }
  bool is_fp8() const noexcept {
    return kind_ == TypeKind::Fp8E4M3 || kind_ == TypeKind::Fp8E5M2 || kind_ == TypeKind::Fp8E8M0;
  }
  bool is_vector() const noexcept { return kind_ == TypeKind::Vector; }
  bool is_char_seq() const noexcept { return kind_ == TypeKind::CharSeq; }
  bool is_datetime() const noexcept { return kind_ == TypeKind::Datetime; }
  bool is_timedelta() const noexcept { return kind_ == TypeKind::Timedelta; }
  bool is_foreign() const noexcept { return kind_ == TypeKind::Foreign; }
  /// Foreign types: the Python layer's handle of numba's type object (field_names() and elements() hold the
  /// StructModel's members, record_size() its size in bytes).
  std::int64_t foreign_handle() const noexcept { return handle_; }
  /// Foreign types: whether numba's data model is an OpaqueModel (an i8* value) rather than a StructModel.
  bool is_foreign_opaque() const noexcept { return opaque_; }
  /// Datetimes and timedeltas: the unit's code (datetime_unit.hpp: D is 4, generic 14).
  std::uint8_t datetime_unit() const noexcept { return unit_; }
  /// A member of an Enum or an IntEnum class (is_int_enum_member: of an IntEnum).
  bool is_enum_member() const noexcept { return kind_ == TypeKind::EnumMember || kind_ == TypeKind::IntEnumMember; }
  bool is_int_enum_member() const noexcept { return kind_ == TypeKind::IntEnumMember; }
  /// Enum members: the class's unique name ("" for any other type) and the type of its members' values.
  const std::string& enum_class() const noexcept { return enum_class_; }
  const Type& enum_value() const { return elements_[0]; }
  /// CharSeq: the number of characters (the code unit is bits() wide: 8 for bytes, 32 for unicode).
  std::int64_t char_count() const noexcept { return kind_ == TypeKind::CharSeq ? size_ / (bits_ / 8) : 0; }
  /// Pointers: the type pointed to (none for void*); readonly() says whether it is const.
  const Type& pointee() const { return elements_[0]; }
  /// Optional: the type of the value when it is not None.
  const Type& optional_value() const { return elements_[0]; }
  /// Arrays: the element type, the rank, the layout ('C', 'F', 'A') and whether it is read-only.
  bool is_record() const noexcept { return kind_ == TypeKind::Record; }
  bool is_nested_array() const noexcept { return kind_ == TypeKind::NestedArray; }
  /// Records: field names and byte offsets (elements() holds the field types), size, alignment.
  const std::vector<std::string>& field_names() const noexcept { return names_; }
  /// Named tuples: the namedtuple class's name ("" for any other type).
  const std::string& tuple_class() const noexcept { return tuple_class_; }
  bool is_named_tuple() const noexcept { return kind_ == TypeKind::Tuple && !tuple_class_.empty(); }
  const std::vector<std::int64_t>& field_offsets() const noexcept { return offsets_; }
  std::int64_t record_size() const noexcept { return size_; }
  bool aligned() const noexcept { return aligned_; }
  /// The index of field `name`, or -1.
  int field_index(std::string_view name) const;
  /// Nested arrays: the constant shape (dtype() is the element type).
  const std::vector<std::int64_t>& nested_shape() const noexcept { return shape_; }
  /// Bytes a value of this type takes in memory: the item size of a scalar (bool 1), a record, a
  /// CharSeq or a nested array.
  std::int64_t storage_size() const;
  /// Arrays and nested arrays: the element type, the rank, the layout ('C', 'F', 'A') and whether it is
  /// read-only (arrays, pointers and records).
  const Type& dtype() const { return elements_[0]; }
  int ndim() const noexcept { return ndim_; }
  char layout() const noexcept { return layout_; }
  bool readonly() const noexcept { return readonly_; }
  /// The same array type with another rank/layout/mutability (views keep the element type).
  Type with_array(int ndim, char layout, bool readonly) const { return array(dtype(), ndim, layout, readonly); }
  /// bool, ints, floats and complex: what Numba calls types.Number plus Boolean.
  bool is_scalar() const noexcept {
    return kind_ == TypeKind::Bool || kind_ == TypeKind::Int || kind_ == TypeKind::Float ||
           kind_ == TypeKind::Complex;
  }
  /// What Numba's arrays hold: numbers (bfloat16 too: numba-cuda types ml_dtypes.bfloat16 arrays so),
  /// records, fixed-width strings, datetime64 and timedelta64.
  bool is_array_dtype() const noexcept {
    return is_scalar() || kind_ == TypeKind::BFloat16 || kind_ == TypeKind::Record || kind_ == TypeKind::CharSeq || kind_ == TypeKind::Datetime ||
           kind_ == TypeKind::Timedelta;
  }
  bool is_real() const noexcept { return kind_ == TypeKind::Int || kind_ == TypeKind::Float || kind_ == TypeKind::Bool; }
  /// For complex, the float type of each part.
  Type component() const { return floating(bits_ / 2); }

  /// Numba's spelling: "int32", "float64", "complex128", "bool", "none", "UniTuple(int64 x 2)",
  /// "Tuple(int64, float64)", "array(float32, 2d, C)", "readonly array(int64, 1d, A)", "OptionalType(float64)", "const float32*", "void*".
  std::string name() const;
  /// A hash of the type's structure, equal for equal types, built without spelling the type (a lazy launch
  /// hashes every argument's type to find its specialisation).
  std::size_t hash() const noexcept;
  /// The number of values a tuple holds, nested tuples counted through (1 for any other type).
  std::size_t leaf_count() const noexcept;

  friend bool operator==(const Type& a, const Type& b) {
    return a.kind_ == b.kind_ && a.bits_ == b.bits_ && a.signed_ == b.signed_ && a.ndim_ == b.ndim_ &&
           a.layout_ == b.layout_ && a.readonly_ == b.readonly_ && a.aligned_ == b.aligned_ && a.size_ == b.size_ &&
           a.elements_ == b.elements_ && a.names_ == b.names_ && a.offsets_ == b.offsets_ && a.shape_ == b.shape_ &&
           a.tuple_class_ == b.tuple_class_ && a.unit_ == b.unit_ && a.enum_class_ == b.enum_class_ &&
           a.handle_ == b.handle_ && a.opaque_ == b.opaque_;
  }
  friend bool operator!=(const Type& a, const Type& b) { return !(a == b); }

 private:
  Type(TypeKind k, int bits, bool s) : kind_(k), bits_(bits), signed_(s) {}
  TypeKind kind_ = TypeKind::Unknown;
  int bits_ = 0;            ///< scalars (and the grid group): the width in bits
  bool signed_ = false;     ///< integers: signed
  int ndim_ = 0;            ///< arrays and nested arrays: the rank
  char layout_ = 0;         ///< arrays and nested arrays: 'C', 'F' or 'A'
  bool readonly_ = false;   ///< arrays, pointers and records (kernel parameters): not written through
  bool aligned_ = false;    ///< records: laid out by NumPy's align=True
  std::int64_t size_ = 0;   ///< records and CharSeqs: the item size in bytes
  std::uint8_t unit_ = 0;   ///< datetimes and timedeltas: the unit's code
  std::int64_t handle_ = 0; ///< foreign types: the Python layer's handle of numba's type object
  bool opaque_ = false;     ///< foreign types: numba's OpaqueModel (an i8* value), not a StructModel
  /// The types this one is built of: a tuple's elements, a vector's components, a record's field types, the element type of an
  /// array or nested array, the value of an Optional, the pointee of a pointer, the value of an enum member.
  std::vector<Type> elements_;
  std::vector<std::string> names_;     ///< records, named tuples and foreign types: field names
  std::string tuple_class_;            ///< named tuples: the class's name; foreign types: numba's name of the type
  std::string enum_class_;             ///< enum members: the class's module and qualified name
  std::vector<std::int64_t> offsets_;  ///< records: field byte offsets
  std::vector<std::int64_t> shape_;    ///< nested arrays: the constant shape
};

}  // namespace cubridge
