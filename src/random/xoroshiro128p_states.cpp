// xoroshiro128+ seeding on the host (see the header). The jump is the GF(2)-linear map J of numba's
// xoroshiro128p_jump; J**i is applied with byte tables, so n states cost n table walks of 16 lookups.
#include "cubridge/random/xoroshiro128p_states.hpp"

#include <array>
#include <bit>

namespace cubridge::random {
namespace {

// The jump polynomial of xoroshiro128+ for 2**64 steps (Blackman and Vigna; numba's constants).
constexpr std::array<std::uint64_t, 2> kJump{0xbeac0467eba5facbULL, 0xd86b048b86aa9922ULL};

Xoroshiro128pState& operator^=(Xoroshiro128pState& a, const Xoroshiro128pState& b) noexcept {
  a.s0 ^= b.s0;
  a.s1 ^= b.s1;
  return a;
}

// Bit j of a state: bits 0..63 are s0's, 64..127 are s1's.
Xoroshiro128pState unit_state(int j) noexcept {
  Xoroshiro128pState s;
  (j < 64 ? s.s0 : s.s1) = std::uint64_t{1} << (j % 64);
  return s;
}

std::uint64_t bit_of(const Xoroshiro128pState& s, int j) noexcept { return ((j < 64 ? s.s0 : s.s1) >> (j % 64)) & 1; }

/// A linear map of states, as the images of the 128 unit states.
struct BitMatrix {
  std::array<Xoroshiro128pState, 128> columns;

  Xoroshiro128pState operator*(const Xoroshiro128pState& v) const noexcept {
    Xoroshiro128pState out;
    for (int j = 0; j < 128; ++j) {
      const std::uint64_t mask = std::uint64_t{0} - bit_of(v, j);  // all ones when bit j is set
      out.s0 ^= columns[j].s0 & mask;
      out.s1 ^= columns[j].s1 & mask;
    }
    return out;
  }

  BitMatrix operator*(const BitMatrix& b) const noexcept {
    BitMatrix out;
    for (int j = 0; j < 128; ++j) out.columns[j] = *this * b.columns[j];
    return out;
  }
};

BitMatrix jump_matrix() noexcept {
  BitMatrix m;
  for (int j = 0; j < 128; ++j) {
    Xoroshiro128pState s = unit_state(j);
    xoroshiro128p_jump(s);
    m.columns[j] = s;
  }
  return m;
}

/// A matrix as 16 tables, one per byte of the state: table[k][b] is the image of byte k holding b.
struct ByteTables {
  std::array<std::array<Xoroshiro128pState, 256>, 16> table;

  explicit ByteTables(const BitMatrix& m) noexcept {
    for (int k = 0; k < 16; ++k) {
      table[k][0] = Xoroshiro128pState{};
      for (unsigned b = 1; b < 256; ++b) {  // b's lowest bit added to b-without-it, built before it
        table[k][b] = table[k][b & (b - 1)];
        table[k][b] ^= m.columns[8 * k + std::countr_zero(b)];
      }
    }
  }

  Xoroshiro128pState operator*(const Xoroshiro128pState& v) const noexcept {
    Xoroshiro128pState out;
    for (int k = 0; k < 8; ++k) {
      out ^= table[k][(v.s0 >> (8 * k)) & 0xff];
      out ^= table[8 + k][(v.s1 >> (8 * k)) & 0xff];
    }
    return out;
  }
};

const BitMatrix& jump() {
  static const BitMatrix m = jump_matrix();
  return m;
}

const ByteTables& jump_tables() {
  static const ByteTables* t = new ByteTables(jump());  // 64 KiB, kept for the process
  return *t;
}

}  // namespace

Xoroshiro128pState splitmix64_state(std::uint64_t seed) noexcept {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z = z ^ (z >> 31);
  return {z, z};
}

std::uint64_t xoroshiro128p_next(Xoroshiro128pState& state) noexcept {
  const std::uint64_t s0 = state.s0;
  std::uint64_t s1 = state.s1;
  const std::uint64_t result = s0 + s1;
  s1 ^= s0;
  state.s0 = std::rotl(s0, 55) ^ s1 ^ (s1 << 14);
  state.s1 = std::rotl(s1, 36);
  return result;
}

void xoroshiro128p_jump(Xoroshiro128pState& state) noexcept {
  Xoroshiro128pState acc;
  for (std::uint64_t word : kJump) {
    for (int b = 0; b < 64; ++b) {
      if ((word >> b) & 1) acc ^= state;
      xoroshiro128p_next(state);
    }
  }
  state = acc;
}

void init_xoroshiro128p_states(std::span<Xoroshiro128pState> states, std::uint64_t seed,
                               std::uint64_t subsequence_start) {
  if (states.empty()) return;
  Xoroshiro128pState first = splitmix64_state(seed);
  // J**subsequence_start by squaring: the powers of J commute, so the order of the factors is free.
  BitMatrix power = jump();
  for (std::uint64_t rest = subsequence_start; rest != 0; rest >>= 1) {
    if (rest & 1) first = power * first;
    if (rest > 1) power = power * power;
  }
  states[0] = first;
  const ByteTables& j = jump_tables();
  for (std::size_t i = 1; i < states.size(); ++i) states[i] = j * states[i - 1];
}

}  // namespace cubridge::random
