// Internal: ArrayView validation, contiguity, extent and the view-making operations.
#include "cubridge/array/array_view.hpp"

#include <atomic>
#include <limits>
#include <stdexcept>
#include <string>
#include "cubridge/error.hpp"

#include "support/hex_text.hpp"

namespace cubridge {

namespace {

// Serials are handed out in blocks, one block per thread at a time: a view made or copied costs no atomic operation.
constexpr std::uint64_t kSerialBlock = std::uint64_t{1} << 16;
std::atomic<std::uint64_t> g_next_serial_block{1};  // 0 is no serial

struct SerialBlock {
  std::uint64_t next = 0, end = 0;
};
thread_local SerialBlock t_serials;

}  // namespace

std::uint64_t ViewSerial::fresh() noexcept {
  SerialBlock& b = t_serials;
  if (b.next == b.end) {
    b.next = g_next_serial_block.fetch_add(kSerialBlock, std::memory_order_relaxed);
    b.end = b.next + kSerialBlock;
  }
  return b.next++;
}

namespace {

std::string key(const char* what, const char* k) { return std::string(what) + "['" + k + "']"; }

}  // namespace

DimStore& DimStore::operator=(const DimStore& other) {
  if (this != &other) assign(other.data(), other.size_);
  return *this;
}

DimStore& DimStore::operator=(DimStore&& other) noexcept {
  if (this != &other) take(other);
  return *this;
}

void DimStore::take(DimStore& other) noexcept {
  heap_ = std::move(other.heap_);
  size_ = other.size_;
  if (!heap_)
    for (std::size_t i = 0; i < size_; ++i) inline_[i] = other.inline_[i];
  other.size_ = 0;
}

void DimStore::resize(std::size_t n) {
  if (n <= kInline) {
    heap_.reset();
  } else if (!heap_ || n > size_) {
    heap_ = std::make_unique<std::int64_t[]>(n);
  }
  size_ = n;
}

void DimStore::assign(const std::int64_t* values, std::size_t n) {
  if (values == data() && n == size_) return;
  if (n <= kInline || !heap_ || n > size_) {
    // Copy first: `values` may point into our own storage.
    std::unique_ptr<std::int64_t[]> fresh = n > kInline ? std::make_unique<std::int64_t[]>(n) : nullptr;
    std::int64_t tmp[kInline];
    std::int64_t* dst = fresh ? fresh.get() : tmp;
    for (std::size_t i = 0; i < n; ++i) dst[i] = values[i];
    heap_ = std::move(fresh);
    if (!heap_)
      for (std::size_t i = 0; i < n; ++i) inline_[i] = tmp[i];
  } else {
    for (std::size_t i = 0; i < n; ++i) heap_[i] = values[i];
  }
  size_ = n;
}

namespace {
// The next contiguous stride: step * extent (extents of 0 count as 1). Past 64 bits the array cannot hold
// an element (its size was checked), so any stride serves: keep the last one rather than overflow.
std::int64_t grow(std::int64_t step, std::int64_t extent) {
  std::int64_t next = 0;
  return __builtin_mul_overflow(step, extent > 0 ? extent : 1, &next) ? step : next;
}

// C-order strides of `shape` into out[0..shape.size()) (the view's constructor writes them in place).
void write_c_strides(std::span<const std::int64_t> shape, std::int64_t itemsize, std::int64_t* out) {
  std::int64_t step = itemsize;
  for (std::size_t i = shape.size(); i-- > 0;) {
    out[i] = step;
    step = grow(step, shape[i]);
  }
}
}  // namespace

std::vector<std::int64_t> c_strides(std::span<const std::int64_t> shape, std::int64_t itemsize) {
  std::vector<std::int64_t> s(shape.size());
  write_c_strides(shape, itemsize, s.data());
  return s;
}

std::vector<std::int64_t> f_strides(std::span<const std::int64_t> shape, std::int64_t itemsize) {
  std::vector<std::int64_t> s(shape.size());
  std::int64_t step = itemsize;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    s[i] = step;
    step = grow(step, shape[i]);
  }
  return s;
}

ArrayView::ArrayView(const Layout& l, std::shared_ptr<const void> owner, const char* what)
    : data_(l.data), dtype_(l.dtype), read_only_(l.read_only), owner_(std::move(owner)) {
  const std::size_t n = l.shape.size();
  if (dtype_.itemsize == 0)
    throw cubridge::InvalidArgument(key(what, "typestr") + ": the itemsize is 0 (a dtype needs at least one byte)");
  if (l.strides && l.strides->size() != n)
    throw cubridge::InvalidArgument(key(what, "strides") + ": has " + std::to_string(l.strides->size()) +
                                " entries but 'shape' has " + std::to_string(n) +
                                " (one byte stride per dimension, or None for C-contiguous)");
  std::int64_t size = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (l.shape[i] < 0)
      throw cubridge::InvalidArgument(key(what, "shape") + "[" + std::to_string(i) + "]: " +
                                  std::to_string(l.shape[i]) + " is negative (extents must be >= 0)");
    if (__builtin_mul_overflow(size, l.shape[i], &size))
      throw cubridge::InvalidArgument(key(what, "shape") + ": the number of elements overflows 64 bits");
  }
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(size, static_cast<std::int64_t>(dtype_.itemsize), &bytes))
    throw cubridge::InvalidArgument(key(what, "shape") + ": the size in bytes overflows 64 bits");
  size_ = size;
  dims_.resize(2 * n);
  for (std::size_t i = 0; i < n; ++i) dims_[i] = l.shape[i];
  strides_implicit_ = !l.strides.has_value();
  if (l.strides) {
    for (std::size_t i = 0; i < n; ++i) dims_[n + i] = (*l.strides)[i];
  } else {
    write_c_strides(l.shape, dtype_.itemsize, dims_.data() + n);
  }
  note_layout();
  if (size_ == 0) return;  // zero-size arrays may carry any pointer; nothing is ever read from it
  if (address() % dtype_.alignment() != 0)
    throw cubridge::InvalidArgument(key(what, "data") + ": pointer " + support::hex(address()) + " is not aligned to " +
                                std::to_string(dtype_.alignment()) + " bytes as typestr '" +
                                dtype_.typestr() + "' requires");
  // The extent must be representable too, or address arithmetic in kernels would wrap.
  std::int64_t lo = 0, hi = dtype_.itemsize;
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t span = 0;
    if (__builtin_mul_overflow(dims_[n + i], dims_[i] - 1, &span) ||
        __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi))
      throw cubridge::InvalidArgument(key(what, "strides") + ": the byte extent overflows 64 bits");
  }
}

namespace {

/// C order when `from_last` (the dimensions walked from the last), Fortran order otherwise.
bool ordered(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides, std::int64_t unit,
             bool from_last) noexcept {
  for (std::int64_t extent : shape)
    if (extent == 0) return true;
  std::int64_t expected = unit;
  const std::size_t n = shape.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = from_last ? n - 1 - k : k;
    if (shape[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

}  // namespace

bool c_order(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides, std::int64_t unit) noexcept {
  return ordered(shape, strides, unit, true);
}

bool f_order(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides, std::int64_t unit) noexcept {
  return ordered(shape, strides, unit, false);
}

void ArrayView::note_layout() noexcept {
  c_contiguous_ = size_ == 0 || c_order(shape(), strides(), dtype_.itemsize);
  f_contiguous_ = size_ == 0 || f_order(shape(), strides(), dtype_.itemsize);
}

ByteExtent ArrayView::extent() const noexcept {
  if (size_ == 0) return {};
  ByteExtent e{0, dtype_.itemsize};
  auto sh = shape();
  auto st = strides();
  for (std::size_t i = 0; i < sh.size(); ++i) {
    std::int64_t span = st[i] * (sh[i] - 1);
    (span < 0 ? e.begin : e.end) += span;
  }
  return e;
}

ArrayView ArrayView::with_stream(std::optional<StreamRef> stream, bool sync) const& {
  return ArrayView(*this).with_stream(stream, sync);
}

ArrayView ArrayView::with_stream(std::optional<StreamRef> stream, bool sync) && {
  stream_ = stream;
  sync_ = sync;
  return std::move(*this);
}

ArrayView ArrayView::with_mask(std::shared_ptr<const ArrayView> mask) const {
  ArrayView v = *this;
  v.mask_ = std::move(mask);
  return v;
}

ArrayView ArrayView::with_owner(std::shared_ptr<const void> owner) const& {
  return ArrayView(*this).with_owner(std::move(owner));
}

ArrayView ArrayView::with_owner(std::shared_ptr<const void> owner) && {
  owner_ = std::move(owner);
  return std::move(*this);
}

ArrayView ArrayView::with_device(int device) const& { return ArrayView(*this).with_device(device); }

ArrayView ArrayView::with_device(int device) && {
  device_ = device;
  return std::move(*this);
}

ArrayView ArrayView::as_read_only() const {
  ArrayView v = *this;
  v.read_only_ = true;
  return v;
}

namespace {
int check_axis(int axis, int ndim, const char* op) {
  int a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim)
    throw std::out_of_range(std::string(op) + ": axis " + std::to_string(axis) +
                            " is out of range for an array of " + std::to_string(ndim) + " dimension(s)");
  return a;
}
}  // namespace

ArrayView ArrayView::slice(int axis, std::optional<std::int64_t> start,
                           std::optional<std::int64_t> stop, std::int64_t step) const {
  int a = check_axis(axis, ndim(), "slice");
  if (step == 0) throw cubridge::InvalidArgument("slice: step 0 is not allowed (use a non-zero step)");
  if (step == std::numeric_limits<std::int64_t>::min())
    throw cubridge::InvalidArgument("slice: step " + std::to_string(step) + " is too large");
  const std::int64_t n = dims_[a];
  std::int64_t b = 0, e = 0, len = 0;
  auto clamp = [&](std::int64_t i, std::int64_t lo, std::int64_t hi) {
    if (i < 0) i += n;
    return i < lo ? lo : (i > hi ? hi : i);
  };
  if (step > 0) {
    b = start ? clamp(*start, 0, n) : 0;
    e = stop ? clamp(*stop, 0, n) : n;
    len = e > b ? (e - b - 1) / step + 1 : 0;  // ceil((e - b) / step) without overflowing for huge steps
  } else {
    b = start ? clamp(*start, -1, n - 1) : n - 1;
    e = stop ? clamp(*stop, -1, n - 1) : -1;
    len = b > e ? (b - e - 1) / (-step) + 1 : 0;
  }
  ArrayView v = *this;
  const std::size_t nd = dims_.size() / 2;
  if (len > 0) v.data_ = static_cast<char*>(data_) + b * dims_[nd + a];
  v.dims_[a] = len;
  // The new stride only matters when the view has two or more elements on this axis; then it addresses
  // memory inside the array and cannot overflow. With fewer, keep the old one (a product could).
  if (__builtin_mul_overflow(dims_[nd + a], step, &v.dims_[nd + a])) {
    if (len > 1) throw cubridge::InvalidArgument("slice: stride " + std::to_string(dims_[nd + a]) + " times step " +
                                             std::to_string(step) + " overflows 64 bits");
    v.dims_[nd + a] = dims_[nd + a];
  }
  v.size_ = n == 0 ? 0 : size_ / n * len;
  v.strides_implicit_ = false;
  v.note_layout();
  if (mask_) v.mask_ = std::make_shared<const ArrayView>(mask_->slice(axis, start, stop, step));
  return v;
}

ArrayView ArrayView::index(int axis, std::int64_t i) const {
  int a = check_axis(axis, ndim(), "index");
  const std::int64_t n = dims_[a];
  std::int64_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n)
    throw std::out_of_range("index " + std::to_string(i) + " is out of bounds for axis " +
                            std::to_string(a) + " with size " + std::to_string(n));
  ArrayView v = *this;
  const std::size_t nd = dims_.size() / 2;
  v.data_ = static_cast<char*>(data_) + j * dims_[nd + a];
  std::vector<std::int64_t> kept;
  kept.reserve(2 * nd - 2);
  for (std::size_t k = 0; k < nd; ++k)
    if (static_cast<int>(k) != a) kept.push_back(dims_[k]);
  for (std::size_t k = 0; k < nd; ++k)
    if (static_cast<int>(k) != a) kept.push_back(dims_[nd + k]);
  v.dims_.assign(kept.data(), kept.size());
  v.size_ = size_ / n;
  v.strides_implicit_ = false;
  v.note_layout();
  if (mask_) v.mask_ = std::make_shared<const ArrayView>(mask_->index(axis, i));
  return v;
}

ArrayView ArrayView::reshape(std::span<const std::int64_t> new_shape, char order) const {
  if (order != 'C' && order != 'F')
    throw cubridge::InvalidArgument(std::string("reshape: order '") + order + "' is not 'C' or 'F'");
  std::vector<std::int64_t> sh(new_shape.begin(), new_shape.end());
  int unknown = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < sh.size(); ++i) {
    if (sh[i] == -1) {
      if (unknown >= 0) throw cubridge::InvalidArgument("reshape: only one dimension may be -1");
      unknown = static_cast<int>(i);
    } else if (sh[i] < 0) {
      throw cubridge::InvalidArgument("reshape: extent " + std::to_string(sh[i]) + " is negative");
    } else if (__builtin_mul_overflow(known, sh[i], &known)) {
      throw cubridge::InvalidArgument("reshape: the new shape's size overflows 64 bits");
    }
  }
  if (unknown >= 0) {
    if (known == 0 || size_ % known != 0)
      throw cubridge::InvalidArgument("reshape: cannot infer the -1 extent: " + std::to_string(size_) +
                                  " elements do not divide by " + std::to_string(known));
    sh[unknown] = size_ / known;
    known = size_;
  }
  if (known != size_)
    throw cubridge::InvalidArgument("reshape: cannot reshape " + std::to_string(size_) +
                                " elements into a shape of " + std::to_string(known) + " elements");
  if (mask_) throw cubridge::InvalidArgument("reshape: the view has a mask, which reshape cannot carry");
  bool ok = order == 'C' ? is_c_contiguous() : is_f_contiguous();
  if (!ok)
    throw cubridge::InvalidArgument(std::string("reshape: the view is not ") +
                                (order == 'C' ? "C" : "Fortran") +
                                "-contiguous, so it cannot be reshaped without a copy");
  auto st = order == 'C' ? c_strides(sh, dtype_.itemsize) : f_strides(sh, dtype_.itemsize);
  ArrayView v = *this;
  sh.insert(sh.end(), st.begin(), st.end());
  v.dims_.assign(sh.data(), sh.size());
  v.strides_implicit_ = order == 'C';
  v.note_layout();
  return v;
}

ArrayView ArrayView::transposed() const {
  ArrayView v = *this;
  const std::size_t nd = dims_.size() / 2;
  for (std::size_t k = 0; k < nd; ++k) {
    v.dims_[k] = dims_[nd - 1 - k];
    v.dims_[nd + k] = dims_[2 * nd - 1 - k];
  }
  v.strides_implicit_ = nd <= 1 && strides_implicit_;
  v.note_layout();
  if (mask_) v.mask_ = std::make_shared<const ArrayView>(mask_->transposed());
  return v;
}

}  // namespace cubridge
