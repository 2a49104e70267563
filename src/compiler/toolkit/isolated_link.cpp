// Internal: linking in a child process (isolated_link.hpp).
#include "isolated_link.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>

namespace cubridge::toolkit_detail {
namespace {

// The child's answer: one status byte ('o' a result, 'l' a LinkError, 'e' another error), then each field
// as a 64-bit length and its bytes.
void put_field(std::string& out, const std::string& field) {
  const std::uint64_t n = field.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out += field;
}

bool get_field(const std::string& in, std::size_t& at, std::string& field) {
  std::uint64_t n = 0;
  if (in.size() - at < sizeof n) return false;
  std::memcpy(&n, in.data() + at, sizeof n);
  at += sizeof n;
  if (in.size() - at < n) return false;
  field.assign(in, at, n);
  at += n;
  return true;
}

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

[[noreturn]] void run_child(int fd, const std::function<LinkResult()>& link) {
  std::string answer;
  try {
    LinkResult r = link();
    answer = "o";
    put_field(answer, r.cubin);
    put_field(answer, r.ptx);
    put_field(answer, r.info_log);
  } catch (const LinkError& e) {
    answer = "l";
    put_field(answer, e.what());
    put_field(answer, e.log());
  } catch (const std::exception& e) {
    answer = "e";
    put_field(answer, e.what());
  } catch (...) {
    answer = "e";
    put_field(answer, "an unknown exception");
  }
  write_all(fd, answer);
  ::_exit(0);  // no atexit handlers, no destructors of the parent's objects
}

}  // namespace

LinkResult link_in_child(const std::function<LinkResult()>& link, const std::string& inputs) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw LinkError(std::string("cannot link ") + inputs + " in an isolated process: pipe: " + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw LinkError(std::string("cannot link ") + inputs + " in an isolated process: fork: " + std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(fds[1], link);
  }
  ::close(fds[1]);
  std::string answer;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kIsolatedLinkSeconds);
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buf[1 << 16];
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end: it exited
    answer.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    throw LinkError("nvJitLink did not finish linking " + inputs + " within " + std::to_string(kIsolatedLinkSeconds) +
                    " s in an isolated process; it was stopped");
  if (WIFSIGNALED(status))
    throw LinkError("nvJitLink crashed (signal " + std::to_string(WTERMSIG(status)) + ", " +
                    ::strsignal(WTERMSIG(status)) + ") linking " + inputs +
                    " in an isolated process: such an input is corrupt or from an incompatible toolkit; this "
                    "process is unharmed (see docs/linking.md, 'Which inputs are trusted')");
  std::size_t at = 1;
  std::string a, b, c;
  if (!answer.empty() && answer[0] == 'o' && get_field(answer, at, a) && get_field(answer, at, b) &&
      get_field(answer, at, c))
    return LinkResult{std::move(a), std::move(b), std::move(c)};
  if (!answer.empty() && answer[0] == 'l' && get_field(answer, at, a) && get_field(answer, at, b))
    throw LinkError(a, b);
  if (!answer.empty() && answer[0] == 'e' && get_field(answer, at, a))
    throw LinkError("linking " + inputs + " in an isolated process failed: " + a);
  throw LinkError("nvJitLink's process exited (status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                  ") without an answer linking " + inputs +
                  " in an isolated process (a crash that a sanitizer or signal handler turned into an exit): such an "
                  "input is corrupt or from an incompatible toolkit; this process is unharmed");
}

}  // namespace cubridge::toolkit_detail
