// Internal: bindings of the random layer (host-side xoroshiro128+ seeding). Only .def lines and the buffer
// conversion; the work lives in src/random/. The Pythonic layer over it is python/cubridge/random.py.
#include <cstdint>
#include <span>
#include <string>

#include "bindings.hpp"
#include "py_gil.hpp"
#include "cubridge/random/xoroshiro128p_states.hpp"

namespace cubridge::python {
namespace {

/// Fills a writable C-contiguous buffer of 16-byte states (a NumPy array of xoroshiro128p_dtype).
void init_states_into(nb::handle buffer, std::uint64_t seed, std::uint64_t subsequence_start) {
  Py_buffer view{};
  if (PyObject_GetBuffer(buffer.ptr(), &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
  struct Release {
    Py_buffer* v;
    ~Release() { PyBuffer_Release(v); }
  } release{&view};
  const auto bytes = static_cast<std::size_t>(view.len);
  if (bytes % sizeof(random::Xoroshiro128pState) != 0)
    throw nb::value_error(("_init_xoroshiro128p_states: the buffer holds " + std::to_string(bytes) +
                           " bytes, not a whole number of 16-byte states").c_str());
  std::span<random::Xoroshiro128pState> states(static_cast<random::Xoroshiro128pState*>(view.buf),
                                               bytes / sizeof(random::Xoroshiro128pState));
  GilReleased unlocked;
  random::init_xoroshiro128p_states(states, seed, subsequence_start);
}

}  // namespace

void bind_random(nb::module_& m) {
  m.def("_init_xoroshiro128p_states", &init_states_into, nb::arg("buffer"), nb::arg("seed"),
        nb::arg("subsequence_start"),
        "Fills `buffer` (writable, C-contiguous, 16 bytes per state) with numba.cuda.random's xoroshiro128+ "
        "states for `seed`, the first one `subsequence_start` jumps of 2**64 steps along.");
}

}  // namespace cubridge::python
