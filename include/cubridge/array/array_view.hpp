// A strided view of GPU memory: pointer, shape, byte strides, dtype, read-only flag, the owner that
// keeps the memory alive, and the stream the producer named. Implements: CAI v3 "shape", "strides",
// "data", "stream" and "mask" as one C++ value; DESIGN.md "array/" ArrayView.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "cubridge/array/dtype.hpp"
#include "cubridge/driver/stream.hpp"

namespace cubridge {

/// Lowest and one-past-highest byte touched by a view, relative to data(); [0, 0) when empty.
struct ByteExtent {
  std::int64_t begin = 0;  // <= 0 when some stride is negative
  std::int64_t end = 0;
  std::int64_t size() const noexcept { return end - begin; }
};

/// NumPy's C order (and PyTorch's is_contiguous()) of a layout: each stride, in units of `unit` (the itemsize for
/// byte strides, 1 for element strides), is C order's over the extents past 1; an empty layout is contiguous.
bool c_order(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides, std::int64_t unit) noexcept;
/// The same rule for Fortran order.
bool f_order(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides, std::int64_t unit) noexcept;

/// Shape and strides of a view: up to 4 dimensions stored inline, so making a view allocates nothing.
class DimStore {
 public:
  DimStore() = default;
  DimStore(const DimStore& other) { assign(other.data(), other.size_); }
  DimStore& operator=(const DimStore& other);
  DimStore(DimStore&& other) noexcept { take(other); }
  DimStore& operator=(DimStore&& other) noexcept;
  ~DimStore() = default;

  std::size_t size() const noexcept { return size_; }
  std::int64_t* data() noexcept { return heap_ ? heap_.get() : inline_; }
  const std::int64_t* data() const noexcept { return heap_ ? heap_.get() : inline_; }
  std::int64_t& operator[](std::size_t i) noexcept { return data()[i]; }
  std::int64_t operator[](std::size_t i) const noexcept { return data()[i]; }
  /// Resizes; the contents are unspecified afterwards (callers fill every entry).
  void resize(std::size_t n);
  void assign(const std::int64_t* values, std::size_t n);

 private:
  void take(DimStore& other) noexcept;
  static constexpr std::size_t kInline = 8;
  std::int64_t inline_[kInline] = {};
  std::unique_ptr<std::int64_t[]> heap_;
  std::size_t size_ = 0;
};

/// A number given anew each time an ArrayView is made or assigned (and to a view moved from): an object whose
/// address and serial are what they were holds the same view. Lets a caller that saw a view keep what it
/// derived from it (ArgumentPack: the view's packed words) without comparing the view's facts again.
class ViewSerial {
 public:
  ViewSerial() noexcept : value_(fresh()) {}
  ViewSerial(const ViewSerial&) noexcept : value_(fresh()) {}
  ViewSerial(ViewSerial&& other) noexcept : value_(fresh()) { other.value_ = fresh(); }
  ViewSerial& operator=(const ViewSerial&) noexcept {
    value_ = fresh();
    return *this;
  }
  ViewSerial& operator=(ViewSerial&& other) noexcept {
    value_ = fresh();
    other.value_ = fresh();
    return *this;
  }
  std::uint64_t value() const noexcept { return value_; }

 private:
  static std::uint64_t fresh() noexcept;  // never 0; unique in the process
  std::uint64_t value_;
};

/// Copies share the owner. A view never allocates device memory; it only refers to it.
class ArrayView {
 public:
  /// Everything a producer describes, checked for consistency by the constructor.
  struct Layout {
    void* data = nullptr;
    DType dtype;
    std::span<const std::int64_t> shape;
    /// Byte strides; nullopt means C-contiguous (CAI's "strides absent or None").
    std::optional<std::span<const std::int64_t>> strides;
    bool read_only = false;
  };

  ArrayView() = default;
  ArrayView(const ArrayView&) = default;
  ArrayView(ArrayView&&) noexcept = default;
  /// A failed copy (out of memory for more than 4 dimensions) leaves this view as it was, serial included: a view
  /// half assigned under its old serial would pass for the view it was.
  ArrayView& operator=(const ArrayView& other) {
    if (this != &other) *this = ArrayView(other);
    return *this;
  }
  ArrayView& operator=(ArrayView&&) noexcept = default;
  ~ArrayView() = default;
  /// Throws std::invalid_argument (message starting with `what`) on a negative extent, strides of
  /// the wrong length, a size that overflows, or a data pointer misaligned for the dtype.
  ArrayView(const Layout& layout, std::shared_ptr<const void> owner, const char* what = "ArrayView");

  void* data() const noexcept { return data_; }
  std::uintptr_t address() const noexcept { return reinterpret_cast<std::uintptr_t>(data_); }
  const DType& dtype() const noexcept { return dtype_; }
  std::uint32_t itemsize() const noexcept { return dtype_.itemsize; }
  int ndim() const noexcept { return static_cast<int>(dims_.size() / 2); }
  std::span<const std::int64_t> shape() const noexcept { return {dims_.data(), dims_.size() / 2}; }
  /// Byte strides, always filled (computed for C-contiguous producers).
  std::span<const std::int64_t> strides() const noexcept {
    return {dims_.data() + dims_.size() / 2, dims_.size() / 2};
  }
  /// True when the producer gave no strides (CAI exports them as None again).
  bool strides_implicit() const noexcept { return strides_implicit_; }
  bool read_only() const noexcept { return read_only_; }
  const std::shared_ptr<const void>& owner() const noexcept { return owner_; }
  /// CUDA ordinal of the memory, or -1 when unknown (zero-size arrays, no driver at import).
  int device() const noexcept { return device_; }
  ArrayView with_device(int device) const&;
  ArrayView with_device(int device) &&;

  std::int64_t size() const noexcept { return size_; }
  std::int64_t nbytes() const noexcept { return size_ * dtype_.itemsize; }
  bool empty() const noexcept { return size_ == 0; }
  // Extents of 1 may carry any stride; an empty view is both. Known from construction (a launch asks per array).
  bool is_c_contiguous() const noexcept { return c_contiguous_; }
  bool is_f_contiguous() const noexcept { return f_contiguous_; }
  bool is_contiguous() const noexcept { return c_contiguous_ || f_contiguous_; }
  ByteExtent extent() const noexcept;

  /// See ViewSerial: the same object with the same serial is the same view.
  std::uint64_t serial() const noexcept { return serial_.value(); }

  /// The producer's stream (CAI v3 "stream"); work enqueued there needs no synchronisation.
  const std::optional<StreamRef>& stream() const noexcept { return stream_; }
  /// False when the consumer switched synchronisation off (sync=False or the environment switch).
  bool synchronizes() const noexcept { return sync_ && stream_.has_value(); }
  ArrayView with_stream(std::optional<StreamRef> stream, bool sync = true) const&;
  ArrayView with_stream(std::optional<StreamRef> stream, bool sync = true) &&;

  /// The producer's mask (CAI "mask"), if any. Operations that cannot honour it must refuse.
  const std::shared_ptr<const ArrayView>& mask() const noexcept { return mask_; }
  ArrayView with_mask(std::shared_ptr<const ArrayView> mask) const;
  ArrayView with_owner(std::shared_ptr<const void> owner) const&;
  ArrayView with_owner(std::shared_ptr<const void> owner) &&;
  ArrayView as_read_only() const;

  /// Python-style slice of one axis (negative indices count from the end; step != 0).
  /// Throws std::out_of_range for a bad axis, std::invalid_argument for step 0.
  ArrayView slice(int axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                  std::int64_t step = 1) const;
  /// Selects index `i` of `axis` and drops that axis. Throws std::out_of_range naming i and the extent.
  ArrayView index(int axis, std::int64_t i) const;
  /// A view with a new shape over the same memory; needs a C- or F-contiguous view (element order
  /// follows `order`: 'C' or 'F'). One entry may be -1. Throws std::invalid_argument otherwise.
  ArrayView reshape(std::span<const std::int64_t> shape, char order = 'C') const;
  /// Reverses the axes (a transpose) without moving data.
  ArrayView transposed() const;

 private:
  void* data_ = nullptr;
  DType dtype_;
  DimStore dims_;  // shape then byte strides
  std::int64_t size_ = 0;
  bool read_only_ = false;
  bool strides_implicit_ = true;
  bool c_contiguous_ = true, f_contiguous_ = true;  // of dims_ and size_: note_layout() after each change
  bool sync_ = true;
  int device_ = -1;
  std::optional<StreamRef> stream_;
  std::shared_ptr<const void> owner_;
  std::shared_ptr<const ArrayView> mask_;
  ViewSerial serial_;  // the && overloads change *this and then move from it, which gives it a new serial

  void note_layout() noexcept;
};

/// Which view a caller saw last, known again by ViewSerial's rule (the same object with the same serial); a record of
/// no view knows none. What the caller derived from that view (a pack's words, a launch key's facts) holds while
/// is() does.
class SeenView {
 public:
  SeenView() noexcept = default;
  explicit SeenView(const ArrayView& view) noexcept : view_(&view), serial_(view.serial()) {}
  bool is(const ArrayView& view) const noexcept { return view_ == &view && serial_ == view.serial(); }

 private:
  const ArrayView* view_ = nullptr;  // compared only, never dereferenced: it may have gone since
  std::uint64_t serial_ = 0;
};

/// C-contiguous byte strides for `shape`.
std::vector<std::int64_t> c_strides(std::span<const std::int64_t> shape, std::int64_t itemsize);
/// F-contiguous byte strides for `shape`.
std::vector<std::int64_t> f_strides(std::span<const std::int64_t> shape, std::int64_t itemsize);

}  // namespace cubridge
