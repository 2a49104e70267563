// Internal: Numba's typing rules for NumPy's datetime64 and timedelta64 (numba-cuda's NPDatetime(unit) and
// NPTimedelta(unit): int64 counts of a unit, NaT = INT64_MIN): which operators they take, the unit of each
// result, and the integer factors between units that lowering scales by. Facts from numba-cuda's
// typing/npdatetime.py and np/npdatetime_helpers.py (NumPy's "safe" unit casting); the code is ours.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/frontend/operators.hpp"
#include "compiler/typing/typing_rules.hpp"

namespace cubridge::compiler {

/// A datetime64 or a timedelta64.
inline bool is_datetime_like(const Type& t) { return t.is_datetime() || t.is_timedelta(); }

/// The integer factor that turns a count of `from` into a count of `to` (D → h is 24, Y → M 12, W → D 7),
/// or nullopt when no exact integer factor exists (M → D, h → D). The generic unit converts by 1.
std::optional<std::int64_t> datetime_unit_factor(std::uint8_t from, std::uint8_t to);

/// The finer of two units (the generic unit yields to the other).
std::uint8_t finer_datetime_unit(std::uint8_t a, std::uint8_t b);

/// Whether a Y or M count must be turned into days or weeks by the calendar to meet `to`: numba-cuda does it
/// with the leap-year tables, which cubridge does not compile; such operations are refused by name.
bool needs_calendar(std::uint8_t from, std::uint8_t to);

/// The operator on datetime64/timedelta64 operands: the formal operand types (an integer operand of
/// timedelta * int becomes int64) and the result. nullopt when numba-cuda has no such operator or cubridge
/// refuses it; `why` then says which (for the typer's message).
std::optional<Resolved> resolve_datetime_binop(BinOp op, const Type& a, const Type& b, std::string& why);
/// Whether datetime64/timedelta64 operands compare (== != < <= > >=); `why` as above.
bool resolve_datetime_compare(bool equality, const Type& a, const Type& b, std::string& why);

/// The typer's messages for an operator / comparison on datetime64/timedelta64 operands that has no rule:
/// the operands, why, and what numba-cuda's datetime types do offer.
std::string datetime_operator_refusal(BinOp op, const Type& a, const Type& b);
std::string datetime_compare_refusal(bool equality, const Type& a, const Type& b);

}  // namespace cubridge::compiler
