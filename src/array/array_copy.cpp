// Internal: host<->device and device<->device copies over a view's byte extent.
#include "cubridge/array/array_copy.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cubridge/array/errors.hpp"
#include "cubridge/array/stream_order.hpp"
#include "cubridge/driver/context.hpp"
#include "cubridge/driver/device.hpp"
#include "driver/driver_api.hpp"
#include "cubridge/error.hpp"

namespace cubridge {

namespace {

void refuse_mask(const ArrayView& v, const char* op) {
  if (v.mask())
    throw MaskNotSupported(std::string(op) +
                           ": the array has a mask (CAI 'mask'), which a plain copy cannot honour; "
                           "copy the data and the mask separately");
}

std::shared_ptr<Context> context_of(const ArrayView& v) {
  return v.device() >= 0 ? Context::primary(Device(v.device())) : Context::current();
}

CUdeviceptr first_byte(const ArrayView& v) {
  return static_cast<CUdeviceptr>(v.address() + v.extent().begin);
}

}  // namespace

void copy_extent_to_host(const ArrayView& src, void* dst, std::size_t dst_bytes, StreamRef stream) {
  refuse_mask(src, "copy_to_host");
  const ByteExtent e = src.extent();
  if (e.size() == 0) return;
  if (dst_bytes < static_cast<std::size_t>(e.size()))
    throw cubridge::InvalidArgument("copy_to_host: the host buffer has " + std::to_string(dst_bytes) +
                                " bytes but the array spans " + std::to_string(e.size()));
  auto context = context_of(src);
  ScopedContext scope(*context);
  const ArrayView* views[] = {&src};
  ScopedStreamUse use(views, stream);
  CUBRIDGE_CU(cuMemcpyDtoHAsync, dst, first_byte(src), static_cast<std::size_t>(e.size()), stream.handle());
  use.finish();
  stream.synchronize();
}

void copy_extent_from_host(const ArrayView& dst, const void* src, std::size_t bytes, StreamRef stream) {
  refuse_mask(dst, "copy from host");
  if (dst.read_only()) throw cubridge::InvalidArgument("copy from host: the destination array is read-only");
  const ByteExtent e = dst.extent();
  if (bytes != static_cast<std::size_t>(e.size()))
    throw cubridge::InvalidArgument("copy from host: " + std::to_string(bytes) +
                                " bytes given but the destination spans " + std::to_string(e.size()));
  if (bytes == 0) return;
  auto context = context_of(dst);
  ScopedContext scope(*context);
  const ArrayView* views[] = {&dst};
  ScopedStreamUse use(views, stream);
  CUBRIDGE_CU(cuMemcpyHtoDAsync, first_byte(dst), src, bytes, stream.handle());
  use.finish();
}

void copy_between_views(const ArrayView& dst, const ArrayView& src, StreamRef stream) {
  refuse_mask(src, "copy_from");
  refuse_mask(dst, "copy_from");
  if (dst.read_only()) throw cubridge::InvalidArgument("copy_from: the destination array is read-only");
  if (dst.itemsize() != src.itemsize() || dst.dtype().kind != src.dtype().kind)
    throw cubridge::InvalidArgument(std::string("copy_from: dtype '") + src.dtype().typestr() +
                                "' differs from the destination's '" + dst.dtype().typestr() + "'");
  auto same = [](auto a, auto b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); };
  if (!same(dst.shape(), src.shape()))
    throw cubridge::InvalidArgument("copy_from: the shapes differ (source and destination must match)");
  if (src.empty()) return;
  bool same_layout = same(dst.strides(), src.strides()) && src.extent().size() == src.nbytes();
  bool both_c = dst.is_c_contiguous() && src.is_c_contiguous();
  bool both_f = dst.is_f_contiguous() && src.is_f_contiguous();
  if (!same_layout && !both_c && !both_f)
    throw cubridge::InvalidArgument(
        "copy_from: source and destination must both be C- or both Fortran-contiguous (or have the "
        "same dense strides); strided copies need a kernel");
  auto context = context_of(dst);
  ScopedContext scope(*context);
  const ArrayView* views[] = {&dst, &src};
  ScopedStreamUse use(views, stream);
  const std::size_t bytes = static_cast<std::size_t>(src.nbytes());
  if (dst.device() >= 0 && src.device() >= 0 && dst.device() != src.device()) {
    // A peer copy, on `stream` in the destination's context. The source device's default stream (which
    // orders its blocking streams, where an unstreamed array's producer wrote) is not ordered with ours:
    // wait for it, copy, and make it wait for the copy before anything there overwrites the source.
    auto source = Context::primary(Device(src.device()));
    wait_across_devices(stream, dst.device(), StreamRef::legacy(), src.device());
    CUBRIDGE_CU(cuMemcpyPeerAsync, first_byte(dst), context->handle(), first_byte(src), source->handle(), bytes,
                stream.handle());
    wait_across_devices(StreamRef::legacy(), src.device(), stream, dst.device());
  } else {
    CUBRIDGE_CU(cuMemcpyDtoDAsync, first_byte(dst), first_byte(src), bytes, stream.handle());
  }
  use.finish();
}

}  // namespace cubridge
