// A scalar kernel argument as the caller gave it (bool, integer, float or complex), converted to the
// parameter's exact type when packed. Implements: the Numba ABI's scalar parameters (bool as one byte,
// float16 as its 16 bits, complex as two parameters: real then imaginary).
#pragma once

#include <complex>
#include <cstdint>
#include <string>

namespace cubridge {

class Scalar {
 public:
  enum class Source : std::uint8_t { Bool, Int, UInt, Float, Complex };

  Scalar(bool v) noexcept : source_(Source::Bool), i_(v) {}
  Scalar(std::int64_t v) noexcept : source_(Source::Int), i_(v) {}
  Scalar(int v) noexcept : source_(Source::Int), i_(v) {}
  Scalar(std::uint64_t v) noexcept : source_(Source::UInt), u_(v) {}
  Scalar(double v) noexcept : source_(Source::Float), re_(v) {}
  Scalar(std::complex<double> v) noexcept : source_(Source::Complex), re_(v.real()), im_(v.imag()) {}

  Source source() const noexcept { return source_; }
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
};

/// IEEE binary16 bits of `v`, rounded to nearest even (overflow gives infinity), as NumPy's float16.
std::uint16_t float16_bits(double v) noexcept;

}  // namespace cubridge
