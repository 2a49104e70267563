// Benchmark only (cubridge._bench, never shipped): CuPy's current-stream C functions, the one its CAI export asks
// (cupy.cuda.stream's) and the one cubridge's CuPy reader asks (cupy_backends.cuda.stream's, which the first
// returns), each timed alone in a C++ loop.
#pragma once

#include <string>

namespace cubridge::bench {

/// Nanoseconds per call of `module_name`'s exported `get_current_stream_ptr` (the capsule in its `__pyx_capi__`
/// named by its C signature), over `repeat` calls; -1 where that module does not export it so.
double cupy_current_stream_ns(int repeat, const std::string& module_name);

}  // namespace cubridge::bench
