// Benchmark only (cubridge._bench, never shipped): the floor a launch is measured against in bench/bench_kernels.py
// and bench/bench_launch.py.
#pragma once

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

/// Nanoseconds per call of the driver calls a launch may make besides cuLaunchKernel, each timed alone in a C++
/// loop of `repeat` calls with the current context as it is: {"cuCtxGetCurrent", "cuCtxGetDevice",
/// "cuCtxPushCurrent+cuCtxPopCurrent"}.
std::vector<std::pair<std::string, double>> driver_call_ns(int repeat);

}  // namespace cubridge::bench
