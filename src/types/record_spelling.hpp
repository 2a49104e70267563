// Internal: the spellings of a record type (a NumPy structured dtype, Numba's Record): Numba's str(),
// "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)", and our own, which a user can
// write, "Record(x=float32, y=int32)" or "Record(a=int8, v=float64[3]; aligned)" (NumPy's layout rules).
#pragma once

#include <optional>
#include <string_view>

#include "cubridge/types/type_spelling.hpp"

namespace cubridge {

/// The record that `inner`, the text between "Record(" and its closing ")", spells in either form;
/// nullopt when it is malformed (a bad field type, a field past the item size, a name twice, ...).
std::optional<Type> parse_record_spelling(std::string_view inner);

}  // namespace cubridge
