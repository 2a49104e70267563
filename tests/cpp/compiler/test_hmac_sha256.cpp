// SHA-256 and HMAC-SHA256 of the code cache's integrity check, against the published test vectors
// (FIPS 180-4 examples via NIST's CSRC example values, RFC 4231 test cases 1, 2, 3 and 6).
#include <gtest/gtest.h>

#include <string>

#include "compiler/cache/hmac_sha256.hpp"

namespace {

using cubridge::compiler_detail::Digest256;
using cubridge::compiler_detail::hmac_sha256;
using cubridge::compiler_detail::same_digest;
using cubridge::compiler_detail::sha256;

std::string hex(const Digest256& d) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : d) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

TEST(Sha256, FipsExamples) {
  EXPECT_EQ(hex(sha256({""})), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(sha256({"abc"})), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(sha256({"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"})),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(sha256({std::string(1000000, 'a')})),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PartsAreConcatenated) {
  EXPECT_EQ(sha256({"ab", "c"}), sha256({"abc"}));
  EXPECT_EQ(sha256({std::string(63, 'x'), std::string(2, 'y')}), sha256({std::string(63, 'x') + "yy"}));
}

TEST(HmacSha256, Rfc4231) {
  EXPECT_EQ(hex(hmac_sha256(std::string(20, '\x0b'), {"Hi There"})),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(hex(hmac_sha256("Jefe", {"what do ya want ", "for nothing?"})),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(hex(hmac_sha256(std::string(20, '\xaa'), {std::string(50, '\xdd')})),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
  // a key longer than the block is hashed first
  EXPECT_EQ(hex(hmac_sha256(std::string(131, '\xaa'), {"Test Using Larger Than Block-Size Key - Hash Key First"})),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(HmacSha256, DigestComparison) {
  Digest256 d = sha256({"x"});
  std::string same(reinterpret_cast<const char*>(d.data()), d.size());
  EXPECT_TRUE(same_digest(d, same));
  std::string other = same;
  other[31] ^= 1;
  EXPECT_FALSE(same_digest(d, other));
  EXPECT_FALSE(same_digest(d, same.substr(0, 31)));
}

}  // namespace
