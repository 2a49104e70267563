// Internal: loads libcuda.so.1 on first use and resolves every entry point through cuGetProcAddress.
// This is the only file in cubridge that calls dlopen/dlsym for the driver.
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "driver/driver_api.hpp"

namespace cubridge::driver {
namespace {

struct LoadState {
  DriverApi api;
  bool ok = false;
  CUresult failure_code = CUDA_SUCCESS;
  std::string failure_name;
  std::string failure;  // why the driver is unusable, for the error of every later GPU call
  std::string failure_call;
};

LoadState& state() {
  static LoadState s;
  return s;
}

const char* library_name() {
  // CUBRIDGE_LIBCUDA lets tests (and unusual installs) point at another driver library.
  const char* override_path = std::getenv("CUBRIDGE_LIBCUDA");
  return (override_path != nullptr && *override_path != '\0') ? override_path : "libcuda.so.1";
}

void fail(LoadState& s, CUresult code, std::string name, std::string why, std::string call) {
  s.ok = false;
  s.failure_code = code;
  s.failure_name = std::move(name);
  s.failure = std::move(why);
  s.failure_call = std::move(call);
}

constexpr int kEntryPointAbi = 12000;

void load(LoadState& s) {
  const char* lib = library_name();
  void* handle = ::dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = ::dlerror();
    fail(s, CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
         std::string("no CUDA driver on this machine: dlopen(\"") + lib + "\") failed (" +
             (err ? err : "unknown reason") +
             "). GPU operations need the NVIDIA driver; compiling and other CPU-only work still "
             "succeed",
         "dlopen");
    return;
  }
  using GetProc = decltype(&::cuGetProcAddress_v2);
  auto get_proc = reinterpret_cast<GetProc>(::dlsym(handle, "cuGetProcAddress_v2"));
  if (get_proc == nullptr) {
    fail(s, CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND",
         std::string(lib) + " has no cuGetProcAddress_v2: the driver is older than CUDA 12.0, "
                            "which cubridge requires",
         "dlsym");
    return;
  }
  // The handle stays open for the life of the process: entry points must not dangle.
  // Entry points are requested at the 12.0 ABI: that is the signature cuda.h declares under each plain
  // name we use. Asking at CUDA_VERSION (13.0) returns newer variants with other signatures, e.g.
  // cuCtxGetDevice_v2(CUdevice*, CUcontext), and calling those through the plain prototype crashes.
  // A later entry is asked at the version it came in: asked at 12.0, the driver does not offer it. Each entry's
  // name is spelt by the macro that receives it: passed on to another macro first, cuda.h's defines would turn
  // it into the versioned name (cuCtxPushCurrent_v2), which cuGetProcAddress does not know.
#define CUBRIDGE_RESOLVE_NAMED(symbol, member, version)                                \
  {                                                                                    \
    void* fn = nullptr;                                                                \
    CUdriverProcAddressQueryResult status{};                                           \
    if (get_proc(symbol, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status) ==          \
            CUDA_SUCCESS &&                                                            \
        status == CU_GET_PROC_ADDRESS_SUCCESS)                                         \
      s.api.member = reinterpret_cast<decltype(s.api.member)>(fn);                     \
  }
#define CUBRIDGE_RESOLVE_ENTRY(name) CUBRIDGE_RESOLVE_NAMED(#name, name, kEntryPointAbi)
#define CUBRIDGE_RESOLVE_LATER_ENTRY(name, version) CUBRIDGE_RESOLVE_NAMED(#name, name, version)
  CUBRIDGE_DRIVER_ENTRY_POINTS(CUBRIDGE_RESOLVE_ENTRY)
  CUBRIDGE_DRIVER_LATER_ENTRY_POINTS(CUBRIDGE_RESOLVE_LATER_ENTRY)
#undef CUBRIDGE_RESOLVE_LATER_ENTRY
#undef CUBRIDGE_RESOLVE_ENTRY
#undef CUBRIDGE_RESOLVE_NAMED

  if (s.api.cuInit == nullptr) {
    fail(s, CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND",
         std::string(lib) + " does not provide cuInit", "cuGetProcAddress");
    return;
  }
  CUresult r = s.api.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char* name = error_name(r);
    std::string why;
    if (r == CUDA_ERROR_STUB_LIBRARY)
      why = std::string(lib) + " is the CUDA toolkit's stub library, not a driver: no GPU here";
    else if (r == CUDA_ERROR_NO_DEVICE)
      why = "the CUDA driver is installed but reports no CUDA device";
    else if (r == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
      why = "the CUDA driver library does not match the NVIDIA kernel module loaded";
    else
      why = "the CUDA driver failed to initialise";
    fail(s, r, name, why, "cuInit");
    return;
  }
  if (s.api.cuDriverGetVersion != nullptr) s.api.cuDriverGetVersion(&s.api.driver_version);
  s.ok = true;
}

std::once_flag& load_once() {
  static std::once_flag flag;
  return flag;
}

}  // namespace

namespace detail {
std::atomic<const DriverApi*> loaded_api{nullptr};

const DriverApi& load_api() {
  LoadState& s = state();
  std::call_once(load_once(), [&] { load(s); });
  if (!s.ok) throw DriverUnavailable(s.failure_code, s.failure_name, s.failure, s.failure_call);
  loaded_api.store(&s.api, std::memory_order_release);
  return s.api;
}
}  // namespace detail

bool available() noexcept {
  try {
    api();
    return true;
  } catch (...) {
    return false;
  }
}

DriverApi& mutable_api_for_testing() {
  api();
  return state().api;
}

const char* error_name(CUresult result) noexcept {
  LoadState& s = state();
  const char* name = nullptr;
  if (s.api.cuGetErrorName != nullptr && s.api.cuGetErrorName(result, &name) == CUDA_SUCCESS &&
      name != nullptr)
    return name;
  switch (result) {
    case CUDA_ERROR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
    case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
    case CUDA_ERROR_STUB_LIBRARY: return "CUDA_ERROR_STUB_LIBRARY";
    default: return "CUDA_ERROR_UNKNOWN_CODE";
  }
}

void throw_error(CUresult result, const char* call) {
  LoadState& s = state();
  const char* description = nullptr;
  if (s.api.cuGetErrorString == nullptr ||
      s.api.cuGetErrorString(result, &description) != CUDA_SUCCESS || description == nullptr)
    description = (result == CUDA_ERROR_NOT_FOUND) ? "entry point not provided by this driver"
                                                   : "no description";
  throw CudaError(static_cast<int>(result), error_name(result), description, call);
}

}  // namespace cubridge::driver
