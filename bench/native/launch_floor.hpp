// Benchmark only (cubridge._bench, never shipped): the floor a launch is measured against in bench/bench_kernels.py
// and bench/bench_launch.py.
#pragma once

#include <Python.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cubridge::bench {

/// `repeat` bare cuLaunchKernel calls of `entry` in `ptx` (loaded once into the current context), one block
/// of 32 threads on the legacy default stream, every parameter an 8-byte word of `words` (pointers, int64)
/// packed once; nanoseconds per call, timed in C++ (no Python, no checks per call).
double bare_launch_ns(const std::string& ptx, const std::string& entry, const std::vector<std::uint64_t>& words,
                      int repeat);

/// A Python callable taking no arguments that makes one bare cuLaunchKernel of `entry` in `ptx` (as
/// bare_launch_ns: one block of 32 threads, the legacy default stream, `words` packed once) per call, in the
/// context current when it was made (which must still be current when it is called): the floor of a launch
/// made from a Python loop, one call each (a METH_NOARGS builtin, the cheapest call CPython has). Raises
/// RuntimeError, naming the driver's error, where a launch fails.
PyObject* python_launcher(const std::string& ptx, const std::string& entry, const std::vector<std::uint64_t>& words);

/// Nanoseconds per call of the driver calls a launch may make besides cuLaunchKernel, each timed alone in a C++
/// loop of `repeat` calls with the current context as it is: {"cuCtxGetCurrent", "cuCtxGetDevice",
/// "cuCtxPushCurrent+cuCtxPopCurrent"}.
std::vector<std::pair<std::string, double>> driver_call_ns(int repeat);

}  // namespace cubridge::bench
