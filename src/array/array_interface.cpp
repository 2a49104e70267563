// Internal: the CAI consumer rules (versions, stream, data pointer, mask; descr's are descr.cpp's) and the
// process-wide switches.
#include "cubridge/array/array_interface.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "cubridge/array/errors.hpp"
#include "cubridge/array/pointer_attributes.hpp"
#include "driver/driver_api.hpp"

namespace cubridge {

namespace {

constexpr const char* kWhat = "__cuda_array_interface__";

// -1: not read yet; 0 / 1 afterwards.
std::atomic<int> g_sync{-1};
std::atomic<bool> g_export_stream{true};

// The loader decides once per process, so the answer can be cached (driver::available() on a machine
// without a driver costs a thrown exception per call).
bool driver_present() noexcept {
  static const bool present = driver::available();
  return present;
}

}  // namespace

bool consumer_sync_default() noexcept {
  int v = g_sync.load(std::memory_order_relaxed);
  if (v < 0) {
    const char* env = std::getenv("CUBRIDGE_CUDA_ARRAY_INTERFACE_SYNC");
    v = (env != nullptr && std::strcmp(env, "0") == 0) ? 0 : 1;
    g_sync.store(v, std::memory_order_relaxed);
  }
  return v != 0;
}

void set_consumer_sync_default(bool sync) noexcept { g_sync.store(sync ? 1 : 0, std::memory_order_relaxed); }

bool export_stream_enabled() noexcept { return g_export_stream.load(std::memory_order_relaxed); }
void set_export_stream_enabled(bool enabled) noexcept {
  g_export_stream.store(enabled, std::memory_order_relaxed);
}

bool pointer_check_cached(std::uintptr_t address) noexcept {
  return !driver_present() || pointer_range_cached(address);
}

ArrayView view_from_interface(const ArrayInterface& d, std::shared_ptr<const void> owner,
                              const ImportOptions& options) {
  if (d.version < 0 || d.version > kCudaArrayInterfaceVersion)
    throw ArrayInterfaceError(std::string(kWhat) + "['version']: " + std::to_string(d.version) +
                                " is not a version this consumer understands (accepted: 0, 1, 2, 3)");
  if (d.has_mask && options.is_mask)  // a mask whose interface names a mask (itself, say) would recurse
    throw ArrayInterfaceError(std::string(kWhat) + "['mask']: the mask's own interface has a 'mask'; a mask is "
                              "a plain array of one entry per element");
  if (d.has_mask && d.version < 1)
    throw ArrayInterfaceError(std::string(kWhat) +
                                "['mask']: version 0 of the interface has no mask; a producer that "
                                "sends one must declare version 1 or later");
  std::optional<StreamRef> stream;
  if (d.version >= 3 && d.stream) {
    if (*d.stream == 0)
      throw ArrayInterfaceError(std::string(kWhat) +
                                  "['stream']: 0 is disallowed by the CUDA Array Interface v3 (use 1 "
                                  "for the legacy default stream, 2 for the per-thread default "
                                  "stream, a stream handle, or None)");
    stream = StreamRef::from_cai(*d.stream);
  }
  const DType dtype = d.parsed ? *d.parsed : parse_typestr(d.typestr, "__cuda_array_interface__['typestr']");
  ArrayView::Layout layout{reinterpret_cast<void*>(d.data), dtype, d.shape, d.strides, d.read_only};
  ArrayView view(layout, std::move(owner), kWhat);
  // Each with_* moves the view into the result (an import is on every launch: no move back into `view`).
  if (options.check_pointer && !view.empty() && driver_present()) {
    const int device = check_device_pointer(d.data, "__cuda_array_interface__['data']").device;
    if (stream) return std::move(view).with_device(device).with_stream(stream, options.sync);
    return std::move(view).with_device(device);
  }
  if (stream) return std::move(view).with_stream(stream, options.sync);
  return view;
}

ArrayView with_mask_of_interface(ArrayView view, const ArrayView& mask) {
  auto ms = mask.shape();
  auto vs = view.shape();
  if (!std::equal(ms.begin(), ms.end(), vs.begin(), vs.end()))
    throw ArrayInterfaceError(std::string(kWhat) + "['mask']: the mask's shape differs from 'shape' (a mask "
                              "has one entry per element)");
  return std::move(view).with_mask(std::make_shared<const ArrayView>(mask));
}

}  // namespace cubridge
