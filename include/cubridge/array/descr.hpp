// A structured element described field by field: the 'descr' list of NumPy's __array_interface__, which
// CAI v3 "descr" reuses and device_array takes for record dtypes. A binding reads the list's Python
// types into DescrField values; every value rule (typestrs, extents, sizes, nesting, agreement with the
// typestr's itemsize) lives here. Implements: CAI v3 "descr" (NumPy array interface protocol, 'descr').
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cubridge/array/dtype.hpp"

namespace cubridge {

/// One `(name, typestr or descr[, shape])` tuple of a descr list. The name is not kept: no rule reads it.
struct DescrField {
  std::string typestr;              // the field's typestr, when the second item is one
  std::vector<DescrField> fields;   // the nested descr list, when the second item is one (may be empty:
                                    // NumPy's descr of an empty structured field is [])
  bool nested = false;              // which of the two the second item is
  std::vector<std::int64_t> shape;  // the optional third item (a subarray's extents); empty when absent
};

/// How deeply descr lists may nest. NumPy's structured dtypes of real data nest a few levels; a list
/// nested 100,000 deep, or one that contains itself, must end in an error, not a stack overflow, so a
/// reader stops at this depth too.
inline constexpr int kMaxDescrDepth = 32;

/// The error a reader raises for a list nested deeper than kMaxDescrDepth, at `path`.
[[noreturn]] void throw_descr_too_deep(const std::string& path);

/// Bytes per element that a descr list describes, every field checked on the way (an empty list, as NumPy
/// reads it, describes 0 bytes). `path` names the list in messages ("__cuda_array_interface__['descr']",
/// "device_array: descr"). Throws ArrayInterfaceError (a negative extent, a size past 64 bits, nesting
/// past kMaxDescrDepth) or parse_typestr's std::invalid_argument (a bad typestr), both naming the path.
std::int64_t descr_size(std::span<const DescrField> fields, const std::string& path);

/// descr_size, and that it agrees with `dtype`'s itemsize (the typestr of the same description).
void check_descr(std::span<const DescrField> fields, const DType& dtype, const std::string& path);

}  // namespace cubridge
