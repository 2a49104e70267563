// Benchmark only (cubridge._bench, never shipped): CuPy's current-stream C function, the one its CAI export and
// cubridge's CuPy reader call for the first CuPy array of a launch, timed alone in a C++ loop.
#pragma once

namespace cubridge::bench {

/// Nanoseconds per call of cupy.cuda.stream's exported `get_current_stream_ptr` (the capsule in its
/// `__pyx_capi__` named by its C signature), over `repeat` calls; -1 where CuPy does not export it so.
double cupy_current_stream_ns(int repeat);

}  // namespace cubridge::bench
