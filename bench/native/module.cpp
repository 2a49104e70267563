// Benchmark only: the extension module cubridge._bench, built when CMake's CUBRIDGE_BENCH_HOOKS is ON
// (scripts/gpu-bench turns it on) and never part of a release build: timing loops that must run without
// Python between iterations (the floors and the C++ rows of bench/*.py).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include "alloc_free_pairs.hpp"
#include "cupy_stream.hpp"
#include "launch_floor.hpp"
#include "cubridge/driver/context.hpp"

namespace nb = nanobind;

NB_MODULE(_bench, m) {
  m.doc() = "Timing loops for bench/ (built with CUBRIDGE_BENCH_HOOKS=ON only).";
  m.def("time_alloc_free_pairs", [](std::size_t bytes, std::size_t pairs, int repeats) {
          auto t = cubridge::memory::time_alloc_free_pairs(cubridge::Context::current(), bytes, pairs, repeats);
          nb::dict d;
          d["caching_pool_ns"] = t.caching_pool_ns;
          d["caching_manager_ns"] = t.caching_manager_ns;
          d["registry_ns"] = t.registry_ns;
          d["raw_cumemalloc_ns"] = t.raw_cumemalloc_ns;
          d["raw_cumemallocasync_ns"] = t.raw_cumemallocasync_ns;
          return d; },
        nb::arg("bytes"), nb::arg("pairs") = 1000000, nb::arg("repeats") = 5,
        "Median ns per alloc+free pair: CachingPool, its manager, the registry, raw cuMemAlloc(Async).");
  m.def("bare_launch_ns", &cubridge::bench::bare_launch_ns, nb::arg("ptx"), nb::arg("entry"), nb::arg("words"),
        nb::arg("repeat") = 2000,
        "ns per bare cuLaunchKernel of `entry` (1 block of 32, legacy stream), each parameter an 8-byte word.");
  m.def("python_launcher", [](const std::string& ptx, const std::string& entry, const std::vector<std::uint64_t>& words) {
          PyObject* fn = cubridge::bench::python_launcher(ptx, entry, words);
          if (fn == nullptr) throw nb::python_error();
          return nb::steal(fn); },
        nb::arg("ptx"), nb::arg("entry"), nb::arg("words"),
        "A callable of no arguments making one bare cuLaunchKernel per call (the floor of a launch from a Python "
        "loop), in the current context.");
  m.def("driver_call_ns", &cubridge::bench::driver_call_ns, nb::arg("repeat") = 100000,
        "[(call, ns per call)] of the context calls a launch may make besides cuLaunchKernel, each in a C++ loop.");
  m.def("cupy_current_stream_ns", &cubridge::bench::cupy_current_stream_ns, nb::arg("repeat") = 100000,
        nb::arg("module") = "cupy.cuda.stream",
        "ns per call of `module`'s exported get_current_stream_ptr C function in a C++ loop; -1 where not exported.");
}
