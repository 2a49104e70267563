// Internal: SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), written for the code cache's integrity check:
// an entry carries HMAC-SHA256(per-user secret, entry), which nobody without the secret can recompute
// (a plain checksum such as FNV can be recomputed by whoever edits the file). Not a general crypto library:
// one-shot over a few buffers, no streaming API beyond what the cache needs.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace cubridge::compiler_detail {

using Digest256 = std::array<unsigned char, 32>;

/// SHA-256 of the concatenation of `parts`.
Digest256 sha256(std::initializer_list<std::string_view> parts);

/// HMAC-SHA256 with `key` over the concatenation of `parts`.
Digest256 hmac_sha256(std::string_view key, std::initializer_list<std::string_view> parts);

/// a == b in time that does not depend on where they first differ.
bool same_digest(const Digest256& a, std::string_view b);

}  // namespace cubridge::compiler_detail
