// The one grammar of type spellings, shared by the compiler, the kernel layer, the XLA layer and the
// Python package: every spelling Numba prints or accepts, plus C pointers.
// Implements: Numba's type names and numba-cuda's signature strings (see parse_type_name below).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "cubridge/types/type.hpp"

namespace cubridge {

/// Limits on types read from text (signatures, Numba spellings): how deeply they nest, and how many values
/// one tuple holds in all (nested tuples counted through).
inline constexpr int kMaxTypeNesting = 32;
inline constexpr std::size_t kMaxTupleLeaves = 256;  // textual IR spells a tuple's type in each of its instructions: quadratic

/// Parses one type spelling:
/// - numbers by Numba's names ("int32", "float32", "complex64", "bool"), their aliases ("boolean",
///   "bool_", "intp", "uintp", "half", "double", "float" = float64, "int" = int64, "complex" = complex128)
///   and short typestrs ("f4", "i8", "c16"); "none" and "void";
/// - tuples: "UniTuple(T x N)", "UniTuple(T, N)", "Tuple(T, ...)", "(T, ...)";
/// - arrays: "float32[:]", "float32[:, ::1]" (C), "int64[::1, :]" (F), Numba's "array(float32, 2d, C)",
///   each optionally prefixed by "const " or "readonly " (read-only); arrays of records;
/// - records: Numba's "Record(x[type=float32;offset=0];4;False)" and "Record(x=float32, y=int32)";
/// - C pointers: "float32*", "const float32*", "void*", and Numba's "CPointer(float32)" and "voidptr".
/// std::nullopt when it is none of them; std::invalid_argument past the limits above.
std::optional<Type> parse_type_name(std::string_view name);

/// Why `name` is not a type, for error messages: the innermost offending part ("'float31' is not a type;
/// accepted: ..."), the array spelling's own complaint ("'::2' is not a dimension; ..."), or a pointer to
/// a pointer. Call it only for a spelling that parse_type_name refused.
std::string type_spelling_error(std::string_view name);

/// The type spellings accepted, for error messages (one text everywhere).
std::string accepted_type_names();

}  // namespace cubridge
