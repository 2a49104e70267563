// Internal: taking and giving back the GIL around C++ work (a link, libNVVM, NVRTC, a copy, a synchronize,
// random seeding, a Python reference dropped by a C++ thread) so that a daemon thread caught in that work
// when the interpreter exits never takes the process down.
// Why not nanobind's guards: CPython 3.11–3.13 end a thread that asks for the GIL after finalization began
// with pthread_exit, which glibc runs as a forced unwind; nanobind's gil_scoped_release/acquire ask from
// an implicitly noexcept destructor/constructor, so the unwind meets noexcept and calls std::terminate
// ("terminate called without an active exception"), and were the unwind let through, nanobind's dispatch
// would swallow it in a catch (...) and glibc would abort instead. CPython 3.14 hangs such a thread
// instead (PyThread_hang_thread); these guards do the same on every version: the unwind is caught where
// it starts and the thread sleeps until the process is gone.
// A thread still inside a vendor library when the process exits is the other half: exit() runs that
// library's static destructors (libNVVM's, seen crashing) under the running call. So the interpreter's
// last cleanup (Py_AtExit) waits, bounded, for the GIL-free calls in flight to return (and park).
#pragma once

#include <Python.h>
#include <unistd.h>

#include <atomic>

namespace cubridge::python {

namespace gil_detail {

/// GIL-free calls now running (a plain atomic: no destructor, so still usable while exit() runs).
inline std::atomic<int> g_calls_in_flight{0};

/// How long the exit waits for calls in flight: a link or a compile takes seconds at most; a call stuck
/// for longer (a synchronize on a kernel that never ends) is left to what exit() does to it.
inline constexpr int kExitWaitMilliseconds = 30000;

inline void wait_for_calls_in_flight() {
  for (int ms = 0; ms < kExitWaitMilliseconds && g_calls_in_flight.load() > 0; ++ms) usleep(1000);
}

/// Registers the wait once, with the GIL held (the first GilReleased).
inline void register_exit_wait() {
  static const bool registered = Py_AtExit(&wait_for_calls_in_flight) == 0;
  (void)registered;
}

}  // namespace gil_detail

/// Parks the calling thread for the rest of the process: what CPython 3.14 does with a thread that asks
/// for the GIL after finalization began. Nothing is returned to Python, which no longer runs its code.
[[noreturn]] inline void park_thread_at_exit() noexcept {
  for (;;) pause();
}

/// The GIL released for the scope (the calling thread must hold it); taken back on leaving, or the
/// thread parked when the interpreter exited in between.
class GilReleased {
 public:
  GilReleased() noexcept {
    gil_detail::register_exit_wait();
    gil_detail::g_calls_in_flight.fetch_add(1);
    state_ = PyEval_SaveThread();
  }
  ~GilReleased() {
    gil_detail::g_calls_in_flight.fetch_sub(1);  // before the GIL: at exit, this thread parks there
    try {
      PyEval_RestoreThread(state_);
    } catch (...) {  // pthread_exit's forced unwind: CPython ends this thread, the interpreter is exiting
      park_thread_at_exit();
    }
  }
  GilReleased(const GilReleased&) = delete;
  GilReleased& operator=(const GilReleased&) = delete;

 private:
  PyThreadState* state_;
};

/// The GIL taken for the scope from any thread (held or not); given back on leaving. A thread that asks
/// while the interpreter exits is parked (the caller checks python_alive() first to skip work instead).
class GilAcquired {
 public:
  GilAcquired() noexcept {
    try {
      state_ = PyGILState_Ensure();
    } catch (...) {  // pthread_exit's forced unwind, as in ~GilReleased
      park_thread_at_exit();
    }
  }
  ~GilAcquired() { PyGILState_Release(state_); }
  GilAcquired(const GilAcquired&) = delete;
  GilAcquired& operator=(const GilAcquired&) = delete;

 private:
  PyGILState_STATE state_{};
};

}  // namespace cubridge::python
