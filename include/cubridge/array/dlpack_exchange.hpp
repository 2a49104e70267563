// ArrayView <-> DLPack managed tensors (versioned 1.x and the pre-1.0 form), ownership included.
// Implements: DLPack 1.x "DLManagedTensorVersioned" / "DLManagedTensor" export and import: element
// strides, byte_offset, READ_ONLY flag, deleter called exactly once.
#pragma once

#include <memory>

#include "cubridge/array/array_view.hpp"
#include "cubridge/c/dlpack.h"

namespace cubridge {

/// The DLPack device of a view's memory: CUDA, CUDA_MANAGED or CUDA_HOST, with the view's ordinal.
struct DLPackDeviceInfo {
  int type = CUBRIDGE_DL_CUDA;
  int id = 0;
};

/// A new managed tensor describing `view` that keeps view.owner() alive until its deleter runs.
/// `flags` are OR-ed in (IS_COPIED); READ_ONLY is set from the view. Throws ExportError when DLPack
/// cannot express the view (non-native byte order, 'V' dtype, strides not a multiple of the
/// itemsize) and MaskNotSupported for a masked view.
CubridgeDLManagedTensorVersioned* to_dlpack_versioned(const ArrayView& view, DLPackDeviceInfo device,
                                                      std::uint64_t flags = 0);
/// The pre-1.0 form, for consumers that ask for no max_version. Refuses read-only views (the old
/// struct cannot say "read-only") with ExportError.
CubridgeDLManagedTensor* to_dlpack_unversioned(const ArrayView& view, DLPackDeviceInfo device);

/// The most dimensions a DLPack tensor may have here (DLPack sets no limit; this bounds the work and
/// memory a producer's tensor can ask for).
inline constexpr int kMaxDLPackNdim = 64;

/// Checks a producer's DLTensor before anything reads it: a GPU-accessible device, 0 <= ndim <= max_ndim,
/// a shape array when ndim > 0, extents >= 0, and element count, byte size and byte strides that fit 64
/// bits. Throws std::invalid_argument starting with `who` and naming the bad field. One checker for
/// from_dlpack and the C API's borrowed exports, so both refuse the same tensors. Returns the tensor's
/// dtype (from_dlpack_dtype), which the checks need and every caller reads next. `known`: from_dlpack_dtype's
/// answer for t.dtype where the caller has it already (a caller keeping the last one), else null; the checks and
/// their order are the same either way.
DType check_dltensor(const CubridgeDLTensor& t, int max_ndim, const char* who, const DType* known = nullptr);

/// The address of the tensor's first element (data + byte_offset), for a tensor check_dltensor accepted.
void* dltensor_data(const CubridgeDLTensor& t) noexcept;

/// A view of a borrowed DLTensor (no ownership taken; `owner` keeps the data alive).
/// Throws std::invalid_argument naming the device type / dtype / ndim that cannot be imported.
ArrayView view_of_dltensor(const CubridgeDLTensor& t, bool read_only, std::shared_ptr<const void> owner);
/// Takes ownership of `t`: its deleter runs when the last copy of the returned view dies, or right
/// away when the import throws. A major version other than 1 is refused (deleter still called).
ArrayView adopt_dlpack(CubridgeDLManagedTensorVersioned* t);
ArrayView adopt_dlpack(CubridgeDLManagedTensor* t);

}  // namespace cubridge
