// Internal: SHA-256 and HMAC-SHA256 (hmac_sha256.hpp), from FIPS 180-4 section 6.2 and RFC 2104; checked
// against the FIPS and RFC 4231 test vectors in tests/cpp/compiler/test_hmac_sha256.cpp.
#include "hmac_sha256.hpp"

#include <cstring>
#include <string>

namespace cubridge::compiler_detail {
namespace {

// FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
constexpr std::uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

class Sha256 {
 public:
  void add(std::string_view data) {
    length_ += data.size();
    for (unsigned char c : data) {
      block_[used_++] = c;
      if (used_ == 64) compress();
    }
  }

  Digest256 finish() {
    const std::uint64_t bits = length_ * 8;
    block_[used_++] = 0x80;
    if (used_ > 56) {
      while (used_ < 64) block_[used_++] = 0;
      compress();
    }
    while (used_ < 56) block_[used_++] = 0;
    for (int i = 7; i >= 0; --i) block_[used_++] = static_cast<unsigned char>(bits >> (8 * i));
    compress();
    Digest256 out{};
    for (int i = 0; i < 8; ++i)
      for (int b = 0; b < 4; ++b) out[static_cast<std::size_t>(4 * i + b)] = static_cast<unsigned char>(state_[i] >> (24 - 8 * b));
    return out;
  }

 private:
  void compress() {
    std::uint32_t w[64];
    for (int t = 0; t < 16; ++t)
      w[t] = std::uint32_t{block_[4 * t]} << 24 | std::uint32_t{block_[4 * t + 1]} << 16 |
             std::uint32_t{block_[4 * t + 2]} << 8 | std::uint32_t{block_[4 * t + 3]};
    for (int t = 16; t < 64; ++t) {
      const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
    std::uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
    for (int t = 0; t < 64; ++t) {
      const std::uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[t] + w[t];
      const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state_[0] += a;
    state_[1] += b;
    state_[2] += c;
    state_[3] += d;
    state_[4] += e;
    state_[5] += f;
    state_[6] += g;
    state_[7] += h;
    used_ = 0;
  }

  // FIPS 180-4 5.3.3: the first 32 bits of the fractional parts of the square roots of the first 8 primes.
  std::uint32_t state_[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                             0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  unsigned char block_[64] = {};
  std::size_t used_ = 0;
  std::uint64_t length_ = 0;
};

std::string_view as_text(const Digest256& d) { return {reinterpret_cast<const char*>(d.data()), d.size()}; }

}  // namespace

Digest256 sha256(std::initializer_list<std::string_view> parts) {
  Sha256 h;
  for (std::string_view p : parts) h.add(p);
  return h.finish();
}

Digest256 hmac_sha256(std::string_view key, std::initializer_list<std::string_view> parts) {
  // RFC 2104: a key longer than the block is hashed first; then H((K ^ opad) || H((K ^ ipad) || text)).
  std::string k(64, '\0');
  if (key.size() > 64) {
    Digest256 hashed = sha256({key});
    std::memcpy(k.data(), hashed.data(), hashed.size());
  } else {
    std::memcpy(k.data(), key.data(), key.size());
  }
  std::string inner_pad = k, outer_pad = k;
  for (std::size_t i = 0; i < 64; ++i) {
    inner_pad[i] = static_cast<char>(inner_pad[i] ^ 0x36);
    outer_pad[i] = static_cast<char>(outer_pad[i] ^ 0x5c);
  }
  Sha256 inner;
  inner.add(inner_pad);
  for (std::string_view p : parts) inner.add(p);
  const Digest256 inner_digest = inner.finish();
  return sha256({outer_pad, as_text(inner_digest)});
}

bool same_digest(const Digest256& a, std::string_view b) {
  if (b.size() != a.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ static_cast<unsigned char>(b[i]));
  return diff == 0;
}

}  // namespace cubridge::compiler_detail
