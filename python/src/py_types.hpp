// Internal: the Python side of cubridge's Type and Signature (include/cubridge/types/): equality with a
// spelling, the kind as a word, and Numba's reading of a type's parts; bind_types.cpp only binds these.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cubridge/types/signature.hpp"
#include "cubridge/types/type_spelling.hpp"
#include "cubridge/error.hpp"

namespace cubridge::python::types_glue {

namespace nb = nanobind;

/// One type spelling read as a Type; ValueError with the one message for a bad spelling.
inline Type parse_type(std::string_view text) {
  std::optional<Type> t = parse_type_name(text);
  if (!t) throw cubridge::InvalidArgument("type " + std::string(type_spelling_error(text)));
  return *t;
}

/// `a == b` for a Type and a Type, or a Type and a spelling (typeof(x) == "float32[::1]"); False for
/// anything else (None, numbers, a bad spelling).
inline bool equals(const Type& a, nb::handle b) {
  if (nb::isinstance<Type>(b)) return a == nb::cast<const Type&>(b);
  if (!nb::isinstance<nb::str>(b)) return false;
  std::optional<Type> t = parse_type_name(nb::cast<std::string_view>(b));
  return t && *t == a;
}

inline const char* kind_name(const Type& t) {
  switch (t.kind()) {
    case TypeKind::Unknown: return "unknown";
    case TypeKind::None: return "none";
    case TypeKind::Bool: return "bool";
    case TypeKind::Int: return "int";
    case TypeKind::Float: return "float";
    case TypeKind::Complex: return "complex";
    case TypeKind::Tuple: return "tuple";
    case TypeKind::Array: return "array";
    case TypeKind::GridGroup: return "grid_group";
    case TypeKind::Record: return "record";
    case TypeKind::NestedArray: return "nested_array";
    case TypeKind::Optional: return "optional";
    case TypeKind::Pointer: return "pointer";
    case TypeKind::BFloat16: return "bfloat16";
    case TypeKind::Vector: return "vector";
    case TypeKind::Fp8E4M3:
    case TypeKind::Fp8E5M2:
    case TypeKind::Fp8E8M0: return "fp8";
    case TypeKind::CharSeq: return "char_seq";
    case TypeKind::Datetime: return "datetime";
    case TypeKind::Timedelta: return "timedelta";
    case TypeKind::EnumMember: return "enum_member";
    case TypeKind::IntEnumMember: return "int_enum_member";
    case TypeKind::Foreign: return "foreign";
  }
  return "unknown";
}

/// The element type of an array, a nested array or a pointer; None for other kinds.
inline std::optional<Type> element_of(const Type& t) {
  if (t.is_array() || t.is_nested_array()) return t.dtype();
  if (t.is_pointer()) return t.pointee();
  if (t.is_optional()) return t.optional_value();
  if (t.is_enum_member()) return t.enum_value();
  return std::nullopt;
}

/// An array type from its parts, refusing what no array holds (Numba's rule: numbers, records and
/// NumPy's fixed-width strings, datetime64 and timedelta64).
inline Type array_of(const Type& dtype, int ndim, char layout, bool readonly) {
  if (!dtype.is_array_dtype() && !dtype.is_foreign())  // numba's arrays of extension types: local / shared ones
    throw nb::type_error(("arrays hold numbers, records, fixed-width strings ([char x N], [unichr x N]), "
                          "datetime64[unit] and timedelta64[unit]; got "
                          "elements of type " + dtype.name()).c_str());
  if (ndim < 0 || ndim > 32)
    throw cubridge::InvalidArgument("an array has 0 to 32 dimensions, got " + std::to_string(ndim));
  if (layout != 'C' && layout != 'F' && layout != 'A')
    throw cubridge::InvalidArgument("array layout '" + std::string(1, layout) + "' is not one of C, F, A");
  return Type::array(dtype, ndim, layout, readonly);
}

/// A signature from its parts: `result` None means inferred.
inline Signature signature_of(std::optional<Type> result, std::vector<Type> args) {
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].is_none())
      throw cubridge::InvalidArgument("signature: argument " + std::to_string(i) + " is none (void is a return type only)");
  Signature s;
  s.result = std::move(result);
  s.args = std::move(args);
  return s;
}

}  // namespace cubridge::python::types_glue
