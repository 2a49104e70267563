// Internal: building and adopting DLPack managed tensors.
#include "cubridge/array/dlpack_exchange.hpp"

#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cubridge/array/errors.hpp"
#include "cubridge/error.hpp"

namespace cubridge {

namespace {

// What a managed tensor we produce owns: the shape/stride arrays it points into, and the owner.
struct ExportContext {
  std::vector<std::int64_t> dims;  // shape then element strides
  std::shared_ptr<const void> owner;
};

std::unique_ptr<ExportContext> export_context(const ArrayView& v, CubridgeDLTensor& t, DLPackDeviceInfo device) {
  if (v.mask())
    throw MaskNotSupported("__dlpack__: the array has a mask (CAI 'mask'), which DLPack cannot carry");
  auto dt = to_dlpack_dtype(v.dtype());
  if (!dt)
    throw ExportError(std::string("__dlpack__: dtype '") + v.dtype().typestr() +
                      "' has no DLPack equivalent (DLPack has native-order bool, int, uint, float and "
                      "complex types only)");
  auto ctx = std::make_unique<ExportContext>();
  const int n = v.ndim();
  ctx->dims.resize(2 * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    std::int64_t s = v.strides()[i];
    if (s % static_cast<std::int64_t>(v.itemsize()) != 0)
      throw ExportError("__dlpack__: stride " + std::to_string(s) + " of axis " + std::to_string(i) +
                        " is not a multiple of the itemsize " + std::to_string(v.itemsize()) +
                        " (DLPack strides count elements)");
    ctx->dims[i] = v.shape()[i];
    ctx->dims[n + i] = s / static_cast<std::int64_t>(v.itemsize());
  }
  ctx->owner = v.owner();
  t.data = v.data();
  t.device = CubridgeDLDevice{device.type, device.id};
  t.ndim = n;
  t.dtype = *dt;
  t.shape = n > 0 ? ctx->dims.data() : nullptr;
  t.strides = n > 0 ? ctx->dims.data() + n : nullptr;
  t.byte_offset = 0;
  return ctx;
}

void delete_versioned(CubridgeDLManagedTensorVersioned* self) {
  if (self == nullptr) return;
  delete static_cast<ExportContext*>(self->manager_ctx);
  delete self;
}

void delete_unversioned(CubridgeDLManagedTensor* self) {
  if (self == nullptr) return;
  delete static_cast<ExportContext*>(self->manager_ctx);
  delete self;
}

}  // namespace

CubridgeDLManagedTensorVersioned* to_dlpack_versioned(const ArrayView& view, DLPackDeviceInfo device,
                                                      std::uint64_t flags) {
  auto mt = std::make_unique<CubridgeDLManagedTensorVersioned>();
  auto ctx = export_context(view, mt->dl_tensor, device);
  mt->version = CubridgeDLPackVersion{CUBRIDGE_DLPACK_MAJOR_VERSION, CUBRIDGE_DLPACK_MINOR_VERSION};
  mt->flags = flags | (view.read_only() ? CUBRIDGE_DLPACK_FLAG_READ_ONLY : 0);
  mt->deleter = &delete_versioned;
  mt->manager_ctx = ctx.release();
  return mt.release();
}

CubridgeDLManagedTensor* to_dlpack_unversioned(const ArrayView& view, DLPackDeviceInfo device) {
  if (view.read_only())
    throw ExportError(
        "__dlpack__: the array is read-only and the pre-1.0 DLPack capsule cannot say so; pass "
        "max_version=(1, 0) or later");
  auto mt = std::make_unique<CubridgeDLManagedTensor>();
  auto ctx = export_context(view, mt->dl_tensor, device);
  mt->deleter = &delete_unversioned;
  mt->manager_ctx = ctx.release();
  return mt.release();
}

DType check_dltensor(const CubridgeDLTensor& t, int max_ndim, const char* who, const DType* known) {
  const int type = t.device.device_type;
  if (type != CUBRIDGE_DL_CUDA && type != CUBRIDGE_DL_CUDA_MANAGED && type != CUBRIDGE_DL_CUDA_HOST)
    throw cubridge::InvalidArgument(std::string(who) + ": device type " + std::to_string(type) +
                                " is not GPU-accessible (accepted: 2 CUDA, 3 CUDA host, 13 CUDA "
                                "managed); copy host arrays with cubridge.to_device()");
  if (t.ndim < 0 || t.ndim > max_ndim)
    throw cubridge::InvalidArgument(std::string(who) + ": ndim " + std::to_string(t.ndim) + " is outside 0.." +
                                std::to_string(max_ndim));
  if (t.ndim > 0 && t.shape == nullptr)
    throw cubridge::InvalidArgument(std::string(who) + ": ndim " + std::to_string(t.ndim) +
                                " with no shape array (shape is NULL) is malformed");
  std::uintptr_t first = 0;
  if (t.byte_offset > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
      __builtin_add_overflow(reinterpret_cast<std::uintptr_t>(t.data), t.byte_offset, &first))
    throw cubridge::InvalidArgument(std::string(who) + ": byte_offset " + std::to_string(t.byte_offset) +
                                " past data " + std::to_string(reinterpret_cast<std::uintptr_t>(t.data)) +
                                " leaves the 64-bit address space");
  const DType dtype = known != nullptr ? *known : from_dlpack_dtype(t.dtype);
  const std::int64_t itemsize = static_cast<std::int64_t>(dtype.itemsize);
  // Every extent a consumer computes from the tensor must fit 64 bits: the element count, the byte size,
  // and the contiguous strides (extents of 0 counted as 1, as c_strides does), each byte stride.
  std::int64_t elements = 1, span = itemsize;
  for (int i = 0; i < t.ndim; ++i) {
    const std::int64_t d = t.shape[i];
    if (d < 0)
      throw cubridge::InvalidArgument(std::string(who) + ": shape[" + std::to_string(i) + "] is " + std::to_string(d) +
                                  " (extents must be >= 0)");
    if (__builtin_mul_overflow(elements, d, &elements) || __builtin_mul_overflow(span, d > 0 ? d : 1, &span))
      throw cubridge::InvalidArgument(std::string(who) + ": the shape's size in bytes overflows 64 bits");
    std::int64_t bytes = 0;
    if (t.strides != nullptr && __builtin_mul_overflow(t.strides[i], itemsize, &bytes))
      throw cubridge::InvalidArgument(std::string(who) + ": stride " + std::to_string(t.strides[i]) + " of axis " +
                                  std::to_string(i) + " overflows 64 bits in bytes");
  }
  return dtype;
}

void* dltensor_data(const CubridgeDLTensor& t) noexcept {
  // In integers: a producer's pointer plus offset need not point into any object we could name.
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset);
}

ArrayView view_of_dltensor(const CubridgeDLTensor& t, bool read_only, std::shared_ptr<const void> owner) {
  const DType dtype = check_dltensor(t, kMaxDLPackNdim, "from_dlpack");
  // On the stack: a launch imports a tensor per argument, and the view copies the strides it keeps.
  std::array<std::int64_t, kMaxDLPackNdim> strides;
  if (t.strides != nullptr)
    for (int i = 0; i < t.ndim; ++i) strides[i] = t.strides[i] * static_cast<std::int64_t>(dtype.itemsize);
  ArrayView::Layout layout;
  layout.data = dltensor_data(t);
  layout.dtype = dtype;
  layout.shape = std::span<const std::int64_t>(t.shape, static_cast<std::size_t>(t.ndim));
  if (t.strides != nullptr) layout.strides = std::span<const std::int64_t>(strides.data(), static_cast<std::size_t>(t.ndim));
  layout.read_only = read_only;
  return ArrayView(layout, std::move(owner), "DLPack tensor").with_device(t.device.device_id);
}

ArrayView adopt_dlpack(CubridgeDLManagedTensorVersioned* t) {
  if (t == nullptr) throw cubridge::InvalidArgument("from_dlpack: the producer returned a null tensor");
  std::shared_ptr<const void> owner(t, [](const void* p) {
    auto* m = static_cast<CubridgeDLManagedTensorVersioned*>(const_cast<void*>(p));
    if (m->deleter) m->deleter(m);
  });
  if (t->version.major != CUBRIDGE_DLPACK_MAJOR_VERSION)
    throw cubridge::InvalidArgument("from_dlpack: DLPack major version " + std::to_string(t->version.major) +
                                " is not supported (this consumer reads major version 1)");
  return view_of_dltensor(t->dl_tensor, (t->flags & CUBRIDGE_DLPACK_FLAG_READ_ONLY) != 0, owner);
}

ArrayView adopt_dlpack(CubridgeDLManagedTensor* t) {
  if (t == nullptr) throw cubridge::InvalidArgument("from_dlpack: the producer returned a null tensor");
  std::shared_ptr<const void> owner(t, [](const void* p) {
    auto* m = static_cast<CubridgeDLManagedTensor*>(const_cast<void*>(p));
    if (m->deleter) m->deleter(m);
  });
  return view_of_dltensor(t->dl_tensor, false, owner);
}

}  // namespace cubridge
