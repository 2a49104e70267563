// A CUDA Array Interface description in C++ terms, and the consumer-side rules that turn it into an
// ArrayView. Implements: CAI v3 (keys, version 0-3 differences, "stream" consumer semantics, "mask").
// The Python binding only type-checks the dict's values into this struct; every rule lives here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "cubridge/array/array_view.hpp"

namespace cubridge {

/// The newest CAI version this library reads and the only one it writes.
inline constexpr int kCudaArrayInterfaceVersion = 3;

/// A `__cuda_array_interface__` dict whose values already have the right Python types.
struct ArrayInterface {
  std::int64_t version = kCudaArrayInterfaceVersion;  // as given: the range is one of the rules
  std::span<const std::int64_t> shape;
  std::string_view typestr;
  /// `typestr` already parsed by the caller (a reader that caches its producer's dtypes): not parsed again.
  std::optional<DType> parsed;
  std::uintptr_t data = 0;
  bool read_only = false;
  std::optional<std::span<const std::int64_t>> strides;  // nullopt: absent or None
  std::optional<std::uintptr_t> stream;                  // nullopt: absent or None
  bool has_mask = false;                                 // a non-None "mask" was given
};

struct ImportOptions {
  /// Order our work after the producer's stream (CAI v3 consumer rule). sync=False turns it off.
  bool sync = true;
  /// Ask the driver whether `data` is GPU-accessible (skipped when there is no driver at all:
  /// then nothing can dereference the pointer later either).
  bool check_pointer = true;
  /// The description is another array's "mask" (which must not have a mask of its own).
  bool is_mask = false;
};

/// Whether view_from_interface's pointer check of `address` is answered without the driver: no driver is loaded
/// (nothing is checked), or this thread's range cache holds the address. The import memos keep a view only then:
/// memory the range cache does not keep is asked of the driver at every import, and must stay so.
bool pointer_check_cached(std::uintptr_t address) noexcept;

/// Applies every CAI rule to `desc` and returns the view (without its mask: the caller imports the
/// mask object and attaches it with with_mask_of_interface). Throws ArrayInterfaceError whose message
/// starts with "__cuda_array_interface__['<key>']" and names the value and what would be accepted.
/// Version rules: 0-3 accepted; a mask needs version >= 1; "stream" has meaning only from version 3
/// (earlier versions leave synchronisation to the user, so the view gets no stream).
ArrayView view_from_interface(const ArrayInterface& desc, std::shared_ptr<const void> owner,
                              const ImportOptions& options);

/// `view` with `mask` (the view of its "mask" object) attached: one mask entry per element, so the
/// shapes must be equal. Throws ArrayInterfaceError.
ArrayView with_mask_of_interface(ArrayView view, const ArrayView& mask);

/// Whether consumers synchronise by default: false only when CUBRIDGE_CUDA_ARRAY_INTERFACE_SYNC=0
/// (read once, on first use). set_ overrides it for the process.
bool consumer_sync_default() noexcept;
void set_consumer_sync_default(bool sync) noexcept;

/// Whether exports name their stream (the default), or say None (a process-wide option).
bool export_stream_enabled() noexcept;
void set_export_stream_enabled(bool enabled) noexcept;

}  // namespace cubridge
