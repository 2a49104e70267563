// Internal: the digests of LTO-IR produced in this process (trusted_ltoir.hpp).
#include "trusted_ltoir.hpp"

#include <pthread.h>

#include <cstring>
#include <new>
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

Trusted* const g_trusted = new Trusted;  // never destroyed: links may run while the process exits

Trusted& trusted() { return *g_trusted; }

// A fork while another thread holds the record's mutex would give the child a mutex no thread of it
// releases (its next link would hang): held across fork, released in the parent, made afresh in the child.
void lock_before_fork() { g_trusted->mutex.lock(); }
void unlock_in_parent() { g_trusted->mutex.unlock(); }
void renew_in_child() { new (&g_trusted->mutex) std::mutex(); }
const bool g_fork_safe = (pthread_atfork(&lock_before_fork, &unlock_in_parent, &renew_in_child) == 0);

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
