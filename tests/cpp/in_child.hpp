// Internal (tests): run a body in a child process with a time limit, for tests of inputs that used to crash
// or hang the process: a regression then fails the one test instead of taking the suite down or stalling it.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace cubridge::testing {

/// Runs body() (returning bool) in a forked child; true when the child exits with body()'s true within
/// `seconds`. A child still running then is killed; a crash, an exception or false reads as false.
template <class Body>
bool finishes_within(double seconds, Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    bool ok = false;
    try {
      ok = body();
    } catch (...) {
    }
    ::_exit(ok ? 0 : 1);
  }
  if (pid < 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return false;
}

}  // namespace cubridge::testing
