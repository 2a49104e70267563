// Internal: Scalar's printing and the exact double -> binary16 rounding (NumPy's float16 behaviour).
#include "cubridge/kernel/scalar.hpp"

#include <cstdint>

#include "cubridge/types/datetime_unit.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

namespace cubridge {

double Scalar::real() const noexcept {
  switch (source_) {
    case Source::Bool:
    case Source::Int: return static_cast<double>(i_);
    case Source::UInt: return static_cast<double>(u_);
    default: return re_;
  }
}

namespace {
// Python's repr of a float: the shortest text that reads back to `v`, with ".0" on integral values
// (not inside a complex: Python prints (1+2j)). std::to_chars needs no locale (an ostream's num_put
// facet crashed in one process mixing C++ runtimes).
std::string repr_double(double v, bool point_zero = true) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, ec == std::errc{} ? end : buf);
  if (point_zero && s.find_first_of(".eni") == std::string::npos) s += ".0";  // "3" -> "3.0"; not "inf", "nan", "1e+16"
  return s;
}
}  // namespace

std::string Scalar::to_string() const {
  switch (source_) {
    case Source::Bool: return i_ ? "True" : "False";
    case Source::Int: return std::to_string(i_);
    case Source::Datetime: {  // numpy's repr: numpy.datetime64(12448,'D') for the count, NaT by name
      const std::string unit(datetime_unit_name(unit_));
      const std::string count = i_ == INT64_MIN ? "'NaT'" : std::to_string(i_);
      return std::string(datetime_kind_ == 'M' ? "numpy.datetime64(" : "numpy.timedelta64(") + count +
             (unit.empty() ? "" : ",'" + unit + "'") + ")";
    }
    case Source::UInt: return std::to_string(u_);
    case Source::Float: return repr_double(re_);
    case Source::Complex: {
      std::string s(1, '(');  // appending, not prepending: GCC 12 warns falsely on "(" + string (PR 105329)
      s += repr_double(re_, false);
      s += std::signbit(im_) || std::isnan(im_) ? "" : "+";
      return s + repr_double(im_, false) + "j)";
    }
  }
  return "?";
}

std::uint16_t float16_bits(double v) noexcept {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  const auto sign = static_cast<std::uint16_t>((b >> 48) & 0x8000u);
  const int exp = static_cast<int>((b >> 52) & 0x7ffu);
  const std::uint64_t mant = b & ((std::uint64_t{1} << 52) - 1);
  if (exp == 0x7ff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  const int e = exp - 1023 + 15;  // the binary16 biased exponent
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return sign;  // below half the smallest subnormal: rounds to zero
    // A subnormal result: count units of 2^-24. The implicit bit joins the mantissa.
    const std::uint64_t m = mant | (std::uint64_t{1} << 52);
    const int shift = 43 - e;  // 43..53
    std::uint64_t q = m >> shift;
    const std::uint64_t rem = m & ((std::uint64_t{1} << shift) - 1);
    const std::uint64_t halfway = std::uint64_t{1} << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1u))) ++q;  // may carry into the smallest normal
    return static_cast<std::uint16_t>(sign | q);
  }
  std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | static_cast<std::uint32_t>(mant >> 42);
  const std::uint64_t rem = mant & ((std::uint64_t{1} << 42) - 1);
  const std::uint64_t halfway = std::uint64_t{1} << 41;
  if (rem > halfway || (rem == halfway && (h & 1u))) ++h;  // a carry may reach infinity, as it should
  return static_cast<std::uint16_t>(sign | h);
}

}  // namespace cubridge
