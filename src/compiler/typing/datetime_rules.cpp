// Internal: Numba's datetime64/timedelta64 typing rules (datetime_rules.hpp).
#include "compiler/typing/datetime_rules.hpp"

#include "cubridge/types/datetime_unit.hpp"

namespace cubridge::compiler {

namespace {

constexpr std::uint8_t kY = 0, kM = 1, kGeneric = kGenericDatetimeUnit;

// The next finer unit and the factor to it (NumPy's exact conversions): Y → M, W → D, D → h, ... fs → as.
std::optional<std::pair<std::uint8_t, std::int64_t>> next_finer(std::uint8_t unit) {
  switch (unit) {
    case 0: return std::pair<std::uint8_t, std::int64_t>{1, 12};
    case 2: return std::pair<std::uint8_t, std::int64_t>{4, 7};
    case 4: return std::pair<std::uint8_t, std::int64_t>{5, 24};
    case 5: return std::pair<std::uint8_t, std::int64_t>{6, 60};
    case 6: return std::pair<std::uint8_t, std::int64_t>{7, 60};
    default:
      if (unit >= 7 && unit <= 12) return std::pair<std::uint8_t, std::int64_t>{static_cast<std::uint8_t>(unit + 1), 1000};
      return std::nullopt;
  }
}

// NumPy's "safe" timedelta cast: to a finer unit of the same family (Y/M apart from the rest); the generic
// unit casts to any, nothing casts to it.
bool timedelta_casts(std::uint8_t from, std::uint8_t to) {
  if (from == to || from == kGeneric) return true;
  if (from > to || to == kGeneric) return false;
  return !(from <= kM && to > kM);
}

// The unit of datetime ± timedelta (numba's combine_datetime_timedelta_units); nullopt when a Y/M timedelta
// meets a finer datetime.
std::optional<std::uint8_t> combined_unit(std::uint8_t datetime, std::uint8_t timedelta) {
  if (datetime == kGeneric) return timedelta;
  if (timedelta == kGeneric) return datetime;
  if (timedelta <= kM && datetime > kM) return std::nullopt;
  return datetime > timedelta ? datetime : timedelta;
}

std::string unit_text(const Type& t) { return t.name(); }

std::string calendar_refusal(const Type& a, const Type& b) {
  return "combining " + unit_text(a) + " with " + unit_text(b) + " converts years or months to days by the "
         "calendar (leap years), which cubridge does not compile; convert the values to one unit on the host "
         "(a.astype('datetime64[D]'))";
}

}  // namespace

std::optional<std::int64_t> datetime_unit_factor(std::uint8_t from, std::uint8_t to) {
  if (from == kGeneric) return 1;
  std::int64_t factor = 1;
  std::uint8_t at = from;
  while (at < to) {
    auto next = next_finer(at);
    if (!next) return std::nullopt;
    at = next->first;
    factor *= next->second;
  }
  if (at != to) return std::nullopt;
  return factor;
}

std::uint8_t finer_datetime_unit(std::uint8_t a, std::uint8_t b) {
  if (a == kGeneric) return b;
  if (b == kGeneric) return a;
  return b > a ? b : a;
}

bool needs_calendar(std::uint8_t from, std::uint8_t to) { return from <= kM && to > kM && to != kGeneric; }

std::optional<Resolved> resolve_datetime_binop(BinOp op, const Type& a, const Type& b, std::string& why) {
  const Type i64 = Type::integer(64, true);
  const bool add = op == BinOp::Add, sub = op == BinOp::Sub;
  if (a.is_timedelta() && b.is_timedelta()) {
    if (add || sub) {
      const std::uint8_t ua = a.datetime_unit(), ub = b.datetime_unit();
      if (timedelta_casts(ua, ub)) return Resolved{a, b, b};
      if (timedelta_casts(ub, ua)) return Resolved{a, b, a};
      why = "the units of " + a.name() + " and " + b.name() + " do not convert into one another";
      return std::nullopt;
    }
    if (op == BinOp::TrueDiv || op == BinOp::FloorDiv || op == BinOp::Mod)
      why = "numba-cuda's timedelta64 / timedelta64, // and % are not supported by cubridge";
    return std::nullopt;
  }
  if ((a.is_timedelta() && (b.is_int() || b.is_float())) || (b.is_timedelta() && (a.is_int() || a.is_float()))) {
    const Type& td = a.is_timedelta() ? a : b;
    const Type& number = a.is_timedelta() ? b : a;
    if (op == BinOp::Mul && number.is_int())  // numba converts the integer to int64
      return a.is_timedelta() ? Resolved{a, i64, a} : Resolved{i64, b, b};
    if (op == BinOp::Mul || ((op == BinOp::TrueDiv || op == BinOp::FloorDiv) && a.is_timedelta()))
      why = "numba-cuda's timedelta64 " + std::string(binop_symbol(op)) + " " + number.name() +
            " is not supported by cubridge (timedelta64 * integer is)";
    (void)td;
    return std::nullopt;
  }
  if ((add && ((a.is_datetime() && b.is_timedelta()) || (a.is_timedelta() && b.is_datetime()))) ||
      (sub && a.is_datetime() && b.is_timedelta())) {
    const Type& dt = a.is_datetime() ? a : b;
    const Type& td = a.is_datetime() ? b : a;
    const auto unit = combined_unit(dt.datetime_unit(), td.datetime_unit());
    if (!unit) {
      why = "a " + td.name() + " (years or months) cannot be added to or subtracted from a finer " + dt.name();
      return std::nullopt;
    }
    if (needs_calendar(dt.datetime_unit(), *unit)) {
      why = calendar_refusal(a, b);
      return std::nullopt;
    }
    return Resolved{a, b, Type::datetime(*unit)};
  }
  if (sub && a.is_datetime() && b.is_datetime()) {
    const std::uint8_t unit = finer_datetime_unit(a.datetime_unit(), b.datetime_unit());
    if (needs_calendar(a.datetime_unit(), unit) || needs_calendar(b.datetime_unit(), unit)) {
      why = calendar_refusal(a, b);
      return std::nullopt;
    }
    return Resolved{a, b, Type::timedelta(unit)};
  }
  return std::nullopt;
}

bool resolve_datetime_compare(bool equality, const Type& a, const Type& b, std::string& why) {
  (void)equality;  // NumPy >= 1.25: == and != follow the ordering's unit rule too
  if (a.is_datetime() && b.is_datetime()) {
    const std::uint8_t unit = finer_datetime_unit(a.datetime_unit(), b.datetime_unit());
    if (needs_calendar(a.datetime_unit(), unit) || needs_calendar(b.datetime_unit(), unit)) {
      why = calendar_refusal(a, b);
      return false;
    }
    return true;
  }
  if (a.is_timedelta() && b.is_timedelta()) {
    if (timedelta_casts(a.datetime_unit(), b.datetime_unit()) || timedelta_casts(b.datetime_unit(), a.datetime_unit()))
      return true;
    why = "the units of " + a.name() + " and " + b.name() + " do not convert into one another";
    return false;
  }
  return false;
}

namespace {
constexpr const char* kOffered =
    "datetime64 and timedelta64 take: datetime - datetime, datetime +/- timedelta, timedelta +/- timedelta, "
    "timedelta * integer, -timedelta, and comparisons of two datetimes or two timedeltas (NaT compares unequal)";
}  // namespace

std::string datetime_operator_refusal(BinOp op, const Type& a, const Type& b) {
  std::string why;
  resolve_datetime_binop(op, a, b, why);
  return "unsupported operand types for " + std::string(binop_symbol(op)) + ": " + a.name() + " and " + b.name() +
         " (" + (why.empty() ? "numba-cuda has no such operator" : why) + "; " + kOffered + ")";
}

std::string datetime_compare_refusal(bool equality, const Type& a, const Type& b) {
  std::string why;
  resolve_datetime_compare(equality, a, b, why);
  return "cannot compare " + a.name() + " with " + b.name() + " (" +
         (why.empty() ? "numba-cuda compares a datetime64 with a datetime64 and a timedelta64 with a timedelta64 only" : why) +
         "; " + kOffered + ")";
}

}  // namespace cubridge::compiler
