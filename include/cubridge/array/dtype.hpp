// The element type of an array, as NumPy's array-interface typestr spells it ("<f4", "|b1", "|V12").
// Implements: CAI v3 "typestr" (NumPy __array_interface__ grammar) and its DLPack 1.x dtype mapping.
// Kinds that make sense on a GPU: b1, i1-i8, u1-u8, f2-f8, c8-c16, V<n>, and the fixed-width strings S<n>
// (bytes) and U<n> (UTF-32 code points), datetime64 M8[unit] and timedelta64 m8[unit] (int64 counts of the
// unit, as Numba's NPDatetime/NPTimedelta); every other kind is refused. bfloat16 (kind 'E', DLPack's
// kDLBfloat of 16 bits, ml_dtypes' dtype char) has no typestr of its own: NumPy and CuPy spell it '<V2', so
// no typestr parses to it; it comes from DLPack or from a producer's ml_dtypes.bfloat16 dtype object.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cubridge/c/dlpack.h"

namespace cubridge {

/// This machine's byte order as a typestr spells it.
inline constexpr char kNativeByteOrder = std::endian::native == std::endian::little ? '<' : '>';

/// A parsed typestr. `byteorder` is normalised: '=' becomes the native order, and types whose byte
/// order is meaningless (one byte wide, or 'V') use '|'.
struct DType {
  char kind = 'V';          // 'b', 'i', 'u', 'f', 'c', 'V', 'S', 'U' (itemsize in bytes: 4 per 'U' code point), 'M', 'm',
                            // 'E' (bfloat16: bfloat16_dtype())
  char byteorder = '|';     // '<', '>' or '|'
  std::uint32_t itemsize = 0;
  std::uint8_t unit = 0;    // 'M' and 'm' only: the unit's code (cubridge/types/datetime_unit.hpp)

  /// The canonical typestr ("<f4"); a pointer to a static string, so exporting allocates nothing.
  const char* typestr() const noexcept;
  /// True when the element's bytes are in this machine's order (always for '|').
  bool native() const noexcept { return byteorder == '|' || byteorder == kNativeByteOrder; }
  /// The alignment a pointer to one element needs (the component size for complex, 1 for 'V' and 'S', 4 for 'U').
  std::uint32_t alignment() const noexcept;

  friend bool operator==(const DType&, const DType&) = default;
};

/// bfloat16 in this machine's byte order: what DLPack's kDLBfloat/16 and ml_dtypes.bfloat16 arrays hold.
/// Its typestr() is '<V2' (NumPy's spelling of ml_dtypes.bfloat16), its DLPack dtype kDLBfloat/16.
DType bfloat16_dtype() noexcept;

/// Parses a typestr. Throws std::invalid_argument whose message starts with `what` (e.g.
/// "__cuda_array_interface__['typestr']") and names the value and what would have been accepted.
DType parse_typestr(std::string_view typestr, std::string_view what);

/// The DLPack dtype of `dtype`, or nullopt when DLPack cannot express it (non-native byte order, 'V',
/// datetimes: DLPack has no datetime dtype, and exporting the counts as int64 would lose the unit).
std::optional<CubridgeDLDataType> to_dlpack_dtype(const DType& dtype) noexcept;
/// The DType of a DLPack dtype (kDLBfloat of 16 bits: bfloat16_dtype()); throws std::invalid_argument
/// naming the code/bits/lanes when cubridge's arrays cannot hold it (float8, vectors with lanes > 1, ...).
DType from_dlpack_dtype(CubridgeDLDataType dtype);

/// Shorthand for code: dtype_of<float>() etc.
template <class T> DType dtype_of();
template <> inline DType dtype_of<float>() { return parse_typestr("=f4", "dtype_of"); }
template <> inline DType dtype_of<double>() { return parse_typestr("=f8", "dtype_of"); }
template <> inline DType dtype_of<std::int32_t>() { return parse_typestr("=i4", "dtype_of"); }
template <> inline DType dtype_of<std::int64_t>() { return parse_typestr("=i8", "dtype_of"); }
template <> inline DType dtype_of<std::uint8_t>() { return parse_typestr("|u1", "dtype_of"); }
template <> inline DType dtype_of<bool>() { return parse_typestr("|b1", "dtype_of"); }

}  // namespace cubridge
