// The main() of every C++ test executable (instead of gtest_main): GoogleTest as usual, plus two things
// that make a crash readable in a CI log. Output is unbuffered, so what a test printed before it died is
// not lost in a pipe's buffer (CTest captures through a pipe). A fatal signal prints the signal, the
// running test and a backtrace to stderr, then dies of that same signal, so CTest still reports it.
// Under AddressSanitizer the sanitizer's own handler stays in charge (it prints more).
#include <gtest/gtest.h>

#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>

#include "sanitizer.hpp"

namespace {

// Written by the listener before each test, read by the signal handler: a fixed buffer, no allocation.
char g_running_test[512] = "(before the first test)";

class RunningTestRecorder : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo& info) override {
    std::snprintf(g_running_test, sizeof g_running_test, "%s.%s", info.test_suite_name(), info.name());
  }
  void OnTestEnd(const ::testing::TestInfo&) override {
    std::snprintf(g_running_test, sizeof g_running_test, "(between tests)");
  }
};

void write_text(const char* text) {
  ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

extern "C" void report_fatal_signal(int signo) {
  write_text("\n*** fatal signal ");
  const char* name = signo == SIGSEGV   ? "SIGSEGV"
                     : signo == SIGBUS  ? "SIGBUS"
                     : signo == SIGILL  ? "SIGILL"
                     : signo == SIGFPE  ? "SIGFPE"
                     : signo == SIGABRT ? "SIGABRT"
                                        : "?";
  write_text(name);
  write_text(" in test ");
  write_text(g_running_test);
  write_text("; backtrace:\n");
  void* frames[64];
  int n = ::backtrace(frames, 64);
  ::backtrace_symbols_fd(frames, n, STDERR_FILENO);
  std::signal(signo, SIG_DFL);
  std::raise(signo);
}

void install_crash_reporting() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::setvbuf(stderr, nullptr, _IONBF, 0);
  if (cubridge::testing::kUnderAddressSanitizer) return;  // ASan reports fatal signals itself
  void* warm[1];
  ::backtrace(warm, 1);  // loads libgcc's unwinder now, not inside the handler
  struct sigaction action {};
  action.sa_handler = report_fatal_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  for (int signo : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::sigaction(signo, &action, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  install_crash_reporting();
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new RunningTestRecorder);
  return RUN_ALL_TESTS();
}
