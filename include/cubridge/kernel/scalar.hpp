// A scalar kernel argument as the caller gave it (bool, integer, float, complex, or a NumPy datetime64 /
// timedelta64 with its unit), converted to the parameter's exact type when packed. Implements: the Numba ABI's scalar parameters (bool as one byte,
// float16 as its 16 bits, complex as two parameters: real then imaginary).
#pragma once

#include <complex>
#include <cstdint>
#include <string>

namespace cubridge {

class Scalar {
 public:
  enum class Source : std::uint8_t { Bool, Int, UInt, Float, Complex, Datetime };

  Scalar(bool v) noexcept : source_(Source::Bool), i_(v) {}
  Scalar(std::int64_t v) noexcept : source_(Source::Int), i_(v) {}
  Scalar(int v) noexcept : source_(Source::Int), i_(v) {}
  Scalar(std::uint64_t v) noexcept : source_(Source::UInt), u_(v) {}
  Scalar(double v) noexcept : source_(Source::Float), re_(v) {}
  Scalar(std::complex<double> v) noexcept : source_(Source::Complex), re_(v.real()), im_(v.imag()) {}

  /// A NumPy datetime64 ('M') or timedelta64 ('m') of unit `unit` (datetime_unit.hpp): `count` units, NaT
  /// being INT64_MIN. It fills only a parameter of the same kind and unit (Numba's NPDatetime(unit)).
  static Scalar datetime(char kind, std::uint8_t unit, std::int64_t count) noexcept {
    Scalar s(count);
    s.source_ = Source::Datetime;
    s.datetime_kind_ = kind;
    s.unit_ = unit;
    return s;
  }

  Source source() const noexcept { return source_; }
  /// Datetimes: 'M' (datetime64) or 'm' (timedelta64), and the unit's code.
  char datetime_kind() const noexcept { return datetime_kind_; }
  std::uint8_t datetime_unit() const noexcept { return unit_; }
  std::int64_t as_int() const noexcept { return i_; }
  std::uint64_t as_uint() const noexcept { return u_; }
  double real() const noexcept;
  double imag() const noexcept { return source_ == Source::Complex ? im_ : 0.0; }
  /// The value as Python would print it ("300", "1.5", "(1+2j)", "True"), for error messages.
  std::string to_string() const;

 private:
  Source source_;
  std::int64_t i_ = 0;
  std::uint64_t u_ = 0;
  double re_ = 0.0;
  double im_ = 0.0;
  char datetime_kind_ = 0;
  std::uint8_t unit_ = 0;
};

/// IEEE binary16 bits of `v`, rounded to nearest even (overflow gives infinity), as NumPy's float16.
std::uint16_t float16_bits(double v) noexcept;

}  // namespace cubridge
