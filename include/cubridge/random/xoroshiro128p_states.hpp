// Host-side seeding of xoroshiro128+ generators, bit for bit as numba-cuda seeds them, so that states made
// here and states made by numba.cuda.random.create_xoroshiro128p_states give the same streams.
// Implements: numba-cuda's numba.cuda.random init_xoroshiro128p_states (splitmix64 seeding, 2**64-step jumps).
#pragma once

#include <cstdint>
#include <span>

namespace cubridge::random {

/// One generator's state, laid out as numba's xoroshiro128p_dtype ([('s0', '<u8'), ('s1', '<u8')], 16 bytes).
struct Xoroshiro128pState {
  std::uint64_t s0 = 0;
  std::uint64_t s1 = 0;
  friend bool operator==(const Xoroshiro128pState&, const Xoroshiro128pState&) = default;
};
static_assert(sizeof(Xoroshiro128pState) == 16);

/// The state splitmix64 makes from `seed` (numba's init_xoroshiro128p_state: s0 == s1).
Xoroshiro128pState splitmix64_state(std::uint64_t seed) noexcept;

/// Advances `state` by one step and returns the step's output (numba's xoroshiro128p_next).
std::uint64_t xoroshiro128p_next(Xoroshiro128pState& state) noexcept;

/// Advances `state` by 2**64 steps (numba's xoroshiro128p_jump), the slow way: 128 steps.
void xoroshiro128p_jump(Xoroshiro128pState& state) noexcept;

/// Fills `states` as numba's init_xoroshiro128p_states does: states[0] is the splitmix64 state of `seed`
/// jumped `subsequence_start` times, each next state is its predecessor jumped once. The jump is linear
/// over GF(2), so it is applied as a 128x128 bit matrix through byte tables (about 30x faster than 128
/// steps), and `subsequence_start` jumps take log2(subsequence_start) matrix squarings, not a loop.
void init_xoroshiro128p_states(std::span<Xoroshiro128pState> states, std::uint64_t seed,
                               std::uint64_t subsequence_start);

}  // namespace cubridge::random
