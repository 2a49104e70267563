// Internal: the table of driver entry points and the one checked-call helper. Only src/ includes it;
// the loader (loader.cpp) is the only file that calls dlopen/dlsym.
#pragma once

#include <cuda.h>

#include <atomic>

#include "cubridge/driver/error.hpp"
#include "driver/entry_points.hpp"

namespace cubridge::driver {

struct DriverApi {
#define CUBRIDGE_DECLARE_ENTRY(name) decltype(&::name) name = nullptr;
  CUBRIDGE_DRIVER_ENTRY_POINTS(CUBRIDGE_DECLARE_ENTRY)
#define CUBRIDGE_DECLARE_LATER_ENTRY(name, version) CUBRIDGE_DECLARE_ENTRY(name)
  CUBRIDGE_DRIVER_LATER_ENTRY_POINTS(CUBRIDGE_DECLARE_LATER_ENTRY)
#undef CUBRIDGE_DECLARE_LATER_ENTRY
#undef CUBRIDGE_DECLARE_ENTRY
  int driver_version = 0;
};

namespace detail {
/// The table once loaded and initialised, else null (set once, by the first api() that succeeds).
extern std::atomic<const DriverApi*> loaded_api;
/// api() before the table is loaded, or where it cannot be: loads, or throws.
const DriverApi& load_api();
}  // namespace detail

/// The loaded, initialised driver (cuInit done). Loads on first use; throws DriverUnavailable
/// (with the reason: no libcuda, a stub, no device) on this and every later call when it cannot.
/// Inline: it runs before every driver call (a dozen in a host-side launch), and once loaded it is one
/// acquire load.
inline const DriverApi& api() {
  if (const DriverApi* a = detail::loaded_api.load(std::memory_order_acquire)) return *a;
  return detail::load_api();
}

/// True when a driver and at least one device are usable; never throws.
bool available() noexcept;

/// Tests only: the live table, so a test can interpose on an entry (count calls, inject failures).
DriverApi& mutable_api_for_testing();

/// Builds and throws the CudaError for `result` returned by `call`.
[[noreturn]] void throw_error(CUresult result, const char* call);

/// "CUDA_ERROR_..." for a result, without throwing (falls back to the number).
const char* error_name(CUresult result) noexcept;

template <class Fn, class... Args>
inline void checked_call(const char* call, Fn fn, Args... args) {
  if (fn == nullptr) throw_error(CUDA_ERROR_NOT_FOUND, call);
  CUresult result = fn(args...);
  if (result != CUDA_SUCCESS) throw_error(result, call);
}

}  // namespace cubridge::driver

/// Calls a driver entry point and throws CudaError naming it on failure:
/// CUBRIDGE_CU(cuMemAlloc, &ptr, bytes);
#define CUBRIDGE_CU(fn, ...) \
  ::cubridge::driver::checked_call(#fn, ::cubridge::driver::api().fn __VA_OPT__(, ) __VA_ARGS__)
/// Calls an entry point and returns its CUresult (for calls whose failure is an answer, not an error).
#define CUBRIDGE_CU_RESULT(fn, ...) (::cubridge::driver::api().fn(__VA_ARGS__))
