// Tests of the host-side xoroshiro128+ seeding: the byte-table jump and the squared powers agree with
// numba's step-by-step algorithm (splitmix64, then 128 steps per jump). CPU only.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cubridge/random/xoroshiro128p_states.hpp"

using cubridge::random::Xoroshiro128pState;
namespace rnd = cubridge::random;

namespace {
// numba's init_xoroshiro128p_states_cpu, step by step.
std::vector<Xoroshiro128pState> slow_states(std::size_t n, std::uint64_t seed, std::uint64_t subsequence_start) {
  std::vector<Xoroshiro128pState> out(n);
  if (n == 0) return out;
  out[0] = rnd::splitmix64_state(seed);
  for (std::uint64_t i = 0; i < subsequence_start; ++i) rnd::xoroshiro128p_jump(out[0]);
  for (std::size_t i = 1; i < n; ++i) {
    out[i] = out[i - 1];
    rnd::xoroshiro128p_jump(out[i]);
  }
  return out;
}

std::vector<Xoroshiro128pState> fast_states(std::size_t n, std::uint64_t seed, std::uint64_t subsequence_start) {
  std::vector<Xoroshiro128pState> out(n);
  rnd::init_xoroshiro128p_states(out, seed, subsequence_start);
  return out;
}
}  // namespace

TEST(Xoroshiro128pStates, Splitmix64MatchesTheReferenceOutput) {
  // The first output of Vigna's splitmix64.c from state 0 (a published value), and from 1234567 (worked out
  // with Python integers).
  EXPECT_EQ(rnd::splitmix64_state(0).s0, 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(rnd::splitmix64_state(0).s1, 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(rnd::splitmix64_state(1234567).s0, 0x599ED017FB08FC85ULL);
}

TEST(Xoroshiro128pStates, NextIsXoroshiro128Plus) {
  Xoroshiro128pState s{1, 2};
  EXPECT_EQ(rnd::xoroshiro128p_next(s), 3u);
  // s1 ^= s0 -> 3; s0 = rotl(1, 55) ^ 3 ^ (3 << 14); s1 = rotl(3, 36)
  EXPECT_EQ(s.s0, (std::uint64_t{1} << 55) ^ 3 ^ (std::uint64_t{3} << 14));
  EXPECT_EQ(s.s1, std::uint64_t{3} << 36);
}

TEST(Xoroshiro128pStates, TableJumpsEqualStepByStepJumps) {
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{42}, ~std::uint64_t{0}}) {
    for (std::uint64_t sub : {0, 1, 3, 17}) {
      EXPECT_EQ(fast_states(40, seed, sub), slow_states(40, seed, sub)) << "seed " << seed << " sub " << sub;
    }
  }
}

TEST(Xoroshiro128pStates, SubsequenceStartShiftsTheStates) {
  auto base = fast_states(300, 7, 0);
  auto shifted = fast_states(100, 7, 200);
  EXPECT_EQ(std::vector<Xoroshiro128pState>(base.begin() + 200, base.end()), shifted);
}

TEST(Xoroshiro128pStates, LargestSubsequenceStartWrapsRoundThePeriod) {
  // J**(2**64) advances 2**128 steps, which is one step on a cycle of 2**128 - 1: so the state after
  // the one at subsequence 2**64 - 1 is the seed's state advanced once.
  auto s = fast_states(2, 99, ~std::uint64_t{0});
  Xoroshiro128pState one = rnd::splitmix64_state(99);
  rnd::xoroshiro128p_next(one);
  EXPECT_EQ(s[1], one);
}

TEST(Xoroshiro128pStates, NoStatesIsNothingToDo) {
  std::vector<Xoroshiro128pState> none;
  EXPECT_NO_THROW(rnd::init_xoroshiro128p_states(none, 1, 5));
}
