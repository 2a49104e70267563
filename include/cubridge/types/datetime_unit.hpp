// The units of NumPy's datetime64 and timedelta64 ("<M8[D]", "<m8[ms]"), by the codes NumPy and Numba
// number them with (Y 0 ... as 13, generic 14; 3 was business days and is unused). Constexpr and
// layer-free: the array layer reads typestrs with it, the type vocabulary spells NPDatetime/NPTimedelta.
// Implements: NumPy's datetime units (numpy.datetime_data), Numba's NPDatetime(unit) / NPTimedelta(unit).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cubridge {

struct DatetimeUnitInfo {
  std::uint8_t code;      ///< NumPy's NPY_DATETIMEUNIT value (Numba's DATETIME_UNITS)
  std::string_view name;  ///< the text between the brackets: "D", "ms", "" for the generic unit
};

inline constexpr std::uint8_t kGenericDatetimeUnit = 14;

inline constexpr std::array<DatetimeUnitInfo, 14> kDatetimeUnits{{
    {0, "Y"}, {1, "M"}, {2, "W"}, {4, "D"}, {5, "h"}, {6, "m"}, {7, "s"}, {8, "ms"},
    {9, "us"}, {10, "ns"}, {11, "ps"}, {12, "fs"}, {13, "as"}, {kGenericDatetimeUnit, ""},
}};

/// The code of unit `name` ("D" → 4, "" → 14), or nullopt for text that names no unit.
constexpr std::optional<std::uint8_t> datetime_unit_named(std::string_view name) noexcept {
  for (const DatetimeUnitInfo& u : kDatetimeUnits)
    if (u.name == name) return u.code;
  return std::nullopt;
}

/// The name of unit `code` ("D"); "" for the generic unit and for a code that names none.
constexpr std::string_view datetime_unit_name(std::uint8_t code) noexcept {
  for (const DatetimeUnitInfo& u : kDatetimeUnits)
    if (u.code == code) return u.name;
  return "";
}

/// "Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as": the units a message lists as accepted.
inline constexpr std::string_view kDatetimeUnitList = "Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as";

}  // namespace cubridge
