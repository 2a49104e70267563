// Internal: fork() never copies a held nvJitLink lock into the child (issue 25, class 8). nvJitLink guards
// its state with mutexes of its own; a fork while another thread is inside it gave the child a mutex that
// no thread of the child would ever release, and the child's first link hung. Every nvJitLink call runs
// under NvJitLinkUse (a shared hold on one process-wide reader-writer lock, so links still run side by
// side); a pthread_atfork handler takes the lock exclusively before any fork (waiting for links under way
// to finish, and keeping new ones out), releases it in the parent, and makes it afresh in the child. So the
// child starts with nvJitLink idle and can link (isolated_link.hpp relies on this).
#pragma once

namespace cubridge::toolkit_detail {

/// Registers the fork handlers (NvJitLinkUse does too, on first use); called before a fork of our own.
void install_fork_guard();

/// Held across a use of nvJitLink (a handle's whole life). Not to be held across fork().
class NvJitLinkUse {
 public:
  NvJitLinkUse();
  ~NvJitLinkUse();
  NvJitLinkUse(const NvJitLinkUse&) = delete;
  NvJitLinkUse& operator=(const NvJitLinkUse&) = delete;
};

}  // namespace cubridge::toolkit_detail
