// Internal: the lock that keeps nvJitLink idle across fork() (link_fork_guard.hpp).
#include "link_fork_guard.hpp"

#include <pthread.h>

#include <mutex>

namespace cubridge::toolkit_detail {
namespace {

pthread_rwlock_t g_lock;

void init_lock() {
  pthread_rwlockattr_t attr;
  pthread_rwlockattr_init(&attr);
  // a writer (a fork) waiting keeps new readers out: a stream of links cannot hold a fork off forever
  pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&g_lock, &attr);
  pthread_rwlockattr_destroy(&attr);
}

void before_fork() { pthread_rwlock_wrlock(&g_lock); }
void after_fork_in_parent() { pthread_rwlock_unlock(&g_lock); }
// The child's only thread is the one that forked: the lock is made afresh rather than unlocked by a
// thread that (by its new thread id) never locked it.
void after_fork_in_child() { init_lock(); }

}  // namespace

void install_fork_guard() {
  static std::once_flag once;
  std::call_once(once, [] {
    init_lock();
    pthread_atfork(&before_fork, &after_fork_in_parent, &after_fork_in_child);
  });
}

// Registered when the library is loaded, before any thread of the process can be inside nvJitLink (a
// fork racing a first link would otherwise find no handler).
const bool g_installed = (install_fork_guard(), true);

NvJitLinkUse::NvJitLinkUse() {
  install_fork_guard();
  pthread_rwlock_rdlock(&g_lock);
}

NvJitLinkUse::~NvJitLinkUse() { pthread_rwlock_unlock(&g_lock); }

}  // namespace cubridge::toolkit_detail
