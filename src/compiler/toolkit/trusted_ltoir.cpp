// Internal: the digests of LTO-IR produced in this process (trusted_ltoir.hpp).
#include "trusted_ltoir.hpp"

#include <cstring>
#include <deque>
#include <mutex>
#include <set>

#include "compiler/cache/hmac_sha256.hpp"

namespace cubridge::toolkit_detail {
namespace {

using compiler_detail::Digest256;

struct Trusted {
  std::mutex mutex;
  std::set<Digest256> digests;
  std::deque<Digest256> order;  // oldest first, for forgetting past kMaxTrusted
};

Trusted& trusted() {
  static Trusted* t = new Trusted;  // never destroyed: links may run while the process exits
  return *t;
}

}  // namespace

void trust_ltoir(std::string_view ltoir) {
  const Digest256 d = compiler_detail::sha256({ltoir});
  Trusted& t = trusted();
  std::lock_guard lock(t.mutex);
  if (!t.digests.insert(d).second) return;
  t.order.push_back(d);
  if (t.order.size() > kMaxTrusted) {
    t.digests.erase(t.order.front());
    t.order.pop_front();
  }
}

bool is_trusted_ltoir(std::string_view ltoir) {
  const Digest256 d = compiler_detail::sha256({ltoir});
  Trusted& t = trusted();
  std::lock_guard lock(t.mutex);
  return t.digests.count(d) != 0;
}

bool looks_like_ltoir(std::string_view ltoir) {
  return ltoir.size() >= kLtoirHeaderBytes && std::memcmp(ltoir.data(), "\xed\x43\x4e\x7f", 4) == 0;
}

}  // namespace cubridge::toolkit_detail
