// Copies between host memory and ArrayViews, and between views, stream-ordered with the producers.
// Implements: the consumer side of CAI v3 "stream" for cubridge's own copies (to_device,
// copy_to_host, copy_from); a mask cannot be honoured by a plain copy, so masked views are refused.
#pragma once

#include <cstddef>

#include "cubridge/array/array_view.hpp"

namespace cubridge {

/// Copies the bytes of src.extent() into `dst` (dst_bytes >= extent size) on `stream`, ordered after
/// the producer, and returns once the host can read them (a wait on `stream` only).
void copy_extent_to_host(const ArrayView& src, void* dst, std::size_t dst_bytes, StreamRef stream);

/// Copies `bytes` of host memory into dst.extent() on `stream`; `src` may be reused on return.
/// Throws std::invalid_argument when dst is read-only or `bytes` differs from the extent size.
void copy_extent_from_host(const ArrayView& dst, const void* src, std::size_t bytes, StreamRef stream);

/// Device-to-device copy between views of the same dtype, shape and strides (asynchronous on
/// `stream`). Throws std::invalid_argument naming what differs; MaskNotSupported for masked views.
void copy_between_views(const ArrayView& dst, const ArrayView& src, StreamRef stream);

}  // namespace cubridge
