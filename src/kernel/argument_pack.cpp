// Internal: checking arguments against the signature and writing them at their slots.
#include "cubridge/kernel/argument_pack.hpp"

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>

#include "cubridge/array/errors.hpp"
#include "cubridge/error.hpp"
#include "cubridge/kernel/kernel.hpp"
#include "cubridge/kernel/parameter_layout.hpp"
#include "cubridge/types/datetime_unit.hpp"

namespace cubridge {

namespace {

constexpr std::uint32_t kNotArray = 0xffffffffu;

std::string tuple_string(std::span<const std::int64_t> v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

const char* source_name(Scalar::Source s) {
  switch (s) {
    case Scalar::Source::Bool: return "a bool";
    case Scalar::Source::Int:
    case Scalar::Source::UInt: return "an int";
    case Scalar::Source::Float: return "a float";
    case Scalar::Source::Complex: return "a complex";
    case Scalar::Source::Datetime: return "a datetime64/timedelta64";
  }
  return "a value";
}

bool is_integer_type(ScalarType t) {
  return t >= ScalarType::Int8 && t <= ScalarType::UInt64;
}

// An array's element type against the parameter's: equal, or integers of one width that differ in
// signedness only (numba-cuda passes an int32 array to a uint32[:] parameter as its bits, as C reads them).
bool same_elements(ScalarType element, ScalarType param) {
  return element == param ||
         (is_integer_type(element) && is_integer_type(param) && scalar_type_size(element) == scalar_type_size(param));
}

}  // namespace

ArgumentPack::ArgumentPack(std::shared_ptr<const KernelSignature> signature)
    : signature_(std::move(signature)),
      words_(signature_->buffer_size() / 8, 0),
      array_index_(signature_->size(), kNotArray),
      views_(signature_->array_count()),
      copied_(signature_->array_count(), 0),
      array_ptrs_(signature_->array_count(), nullptr),
      filled_(signature_->size(), 0),
      written_(signature_->array_count()) {
  auto* base = reinterpret_cast<std::byte*>(words_.data());
  pointers_.reserve(signature_->slots().size());
  for (const ParamSlot& s : signature_->slots()) pointers_.push_back(base + s.offset);
  std::uint32_t k = 0;
  for (std::size_t i = 0; i < signature_->size(); ++i)
    if ((*signature_)[i].takes_array()) array_index_[i] = k++;
}

std::span<const std::byte> ArgumentPack::packed_for(const Kernel& kernel) {
  if (kernel.serial() != layout_checked_for_) {
    layout_matches_ = check_parameter_layout(kernel, *signature_);
    layout_checked_for_ = kernel.serial();
  }
  if (!layout_matches_) return {};
  return {reinterpret_cast<const std::byte*>(words_.data()), signature_->parameter_bytes()};
}

std::byte* ArgumentPack::slot(std::size_t index, std::uint32_t k) noexcept {
  const ParamSlot& s = signature_->slots()[signature_->first_slot(index) + k];
  return reinterpret_cast<std::byte*>(words_.data()) + s.offset;
}

void ArgumentPack::type_error(std::size_t index, const std::string& got) const {
  throw ArgumentTypeError(signature_->parameter_name(index) + ": " + got +
                          " was passed where the signature says " + (*signature_)[index].to_string() +
                          " (signature " + signature_->to_string() + ")");
}

void ArgumentPack::index_error(std::size_t index) const {
  throw std::out_of_range(signature_->parameter_name(index) + ": the kernel takes " +
                          std::to_string(signature_->size()) + " arguments");
}

void ArgumentPack::keep(std::size_t index, ArrayView&& view) {
  std::uint32_t a = array_index_[index];
  written_[a] = SeenView();  // the words are this copy's, which no later set gives again
  views_[a] = std::move(view);
  copied_[a] = 1;
  array_ptrs_[a] = &views_[a];
  filled_[index] = 1;
}

void ArgumentPack::set_array(std::size_t index, const ArrayView& view) { set_array(index, ArrayView(view)); }

void ArgumentPack::set_array(std::size_t index, ArrayView&& view) {
  check_and_write(index, view);
  keep(index, std::move(view));
}

void ArgumentPack::set_array_borrowed(std::size_t index, const ArrayView& view) {
  check_index(index);
  const std::uint32_t a = array_index_[index];
  if (a != kNotArray && written_[a].is(view)) {
    array_ptrs_[a] = &view;  // the view the words were written from, unchanged: checked and written then
    filled_[index] = 1;
    return;
  }
  check_and_write(index, view);
  array_ptrs_[a] = &view;
  filled_[index] = 1;
  written_[a] = SeenView(view);
}

void ArgumentPack::check_and_write(std::size_t index, const ArrayView& view) {
  check_index(index);
  const ParamKind& p = (*signature_)[index];
  auto element = scalar_type_of(view.dtype());
  // The common case first, each of its checks the one below would make: a Numba-ABI array of numbers given a
  // writable-enough, unmasked array of its element type, rank and layout.
  if (p.is_array() && p.record_size == 0 && !p.is_datetime() && element && same_elements(*element, p.type) && view.ndim() == p.ndim &&
      (p.layout != 'C' || view.is_c_contiguous()) && (p.layout != 'F' || view.is_f_contiguous()) &&
      !(p.written && view.read_only()) && !view.mask()) {
    write_array(index, p, view);
    return;
  }
  if (!p.takes_array()) type_error(index, "an array");
  if (p.record_size != 0 && p.record_kind == 'V' && (view.dtype().kind != 'V' || view.dtype().itemsize != p.record_size))
    type_error(index, std::string("an array of typestr '") + view.dtype().typestr() + "' (an array of records takes "
                      "a structured array of itemsize " + std::to_string(p.record_size) + ", typestr '|V" +
                      std::to_string(p.record_size) + "', through the CUDA Array Interface: DLPack cannot "
                      "express record dtypes)");
  if (p.is_datetime() &&
      (view.dtype().kind != p.record_kind || view.dtype().unit != p.record_unit || !view.dtype().native()))
    type_error(index, std::string("an array of typestr '") + view.dtype().typestr() + "' (an array of " + p.record +
                      " takes typestr '<" + p.record_kind + "8" +
                      (p.record_unit == kGenericDatetimeUnit ? "" : "[" + std::string(datetime_unit_name(p.record_unit)) + "]") +
                      "', native order: the unit is part of the type)");
  if (p.record_size != 0 && p.record_kind != 'V' && !p.is_datetime() &&
      (view.dtype().kind != p.record_kind || view.dtype().itemsize != p.record_size || !view.dtype().native()))
    type_error(index, std::string("an array of typestr '") + view.dtype().typestr() + "' (an array of " + p.record +
                      " takes typestr '" + (p.record_kind == 'S' ? "|S" : "<U") +
                      std::to_string(p.record_kind == 'S' ? p.record_size : p.record_size / 4) + "', native order)");
  if (p.record_size == 0 && !(p.is_pointer() && p.any_pointee) && (!element || !same_elements(*element, p.type)))
    type_error(index, std::string("a ") + (element ? scalar_type_name(*element) : "") +
                          (element ? " " : "") + "array (typestr '" + view.dtype().typestr() + "')");
  if (p.is_pointer() && !view.is_c_contiguous() && !view.is_f_contiguous())
    type_error(index, "an array that is neither C- nor F-contiguous (strides " + tuple_string(view.strides()) +
                          "; a pointer parameter indexes the array flat, so pass a contiguous copy)");
  if (p.is_array() && view.ndim() != p.ndim)
    type_error(index, "a " + std::to_string(view.ndim()) + "-d array (shape " +
                          tuple_string(view.shape()) + ")");
  if (p.layout == 'C' && !view.is_c_contiguous())
    type_error(index, "an array that is not C-contiguous (strides " + tuple_string(view.strides()) + ")");
  if (p.layout == 'F' && !view.is_f_contiguous())
    type_error(index, "an array that is not F-contiguous (strides " + tuple_string(view.strides()) + ")");
  if (p.written && view.read_only())
    throw cubridge::InvalidArgument(signature_->parameter_name(index) +
                                ": the array is read-only but the kernel may write it (" + p.to_string() +
                                "); pass a writable array, or declare the parameter 'const " +
                                p.to_string() + "' if the kernel only reads it");
  if (view.mask())
    throw MaskNotSupported(signature_->parameter_name(index) +
                           ": the array has a CUDA Array Interface mask, which a kernel launch cannot "
                           "honour; pass the data without a mask");

  if (p.is_record() && view.size() != 1)
    type_error(index, "an array of " + std::to_string(view.size()) + " records (shape " + tuple_string(view.shape()) +
                          "); a record parameter takes one: a 0-d structured array such as "
                          "cubridge.from_record_like(rec) or cubridge.to_device(rec)");
  write_array(index, p, view);
}

void ArgumentPack::write_array(std::size_t index, const ParamKind& p, const ArrayView& view) {
  if (p.is_pointer() || p.is_record()) {
    std::uintptr_t data = view.address();
    std::memcpy(slot(index, 0), &data, 8);
    return;
  }

  // Array slots are consecutive 8-byte words (see KernelSignature), so one base pointer serves all.
  std::byte* base = slot(index, 0);
  auto put = [base](std::uint32_t k, std::int64_t v) { std::memcpy(base + 8 * k, &v, 8); };
  put(0, 0);  // meminfo: no NRT on the device
  put(1, 0);  // parent: no Python object on the device
  put(2, view.size());
  put(3, view.itemsize());
  std::uintptr_t data = view.address();
  std::memcpy(base + 32, &data, 8);
  auto shape = view.shape();
  auto strides = view.strides();
  for (int d = 0; d < p.ndim; ++d) {
    put(5 + static_cast<std::uint32_t>(d), shape[static_cast<std::size_t>(d)]);
    put(5 + static_cast<std::uint32_t>(p.ndim + d), strides[static_cast<std::size_t>(d)]);
  }
}

void ArgumentPack::set_address(std::size_t index, std::uint64_t address) {
  check_index(index);
  const ParamKind& p = (*signature_)[index];
  if (!p.is_pointer()) type_error(index, "a device address (" + std::to_string(address) + ")");
  std::memcpy(slot(index, 0), &address, 8);
  std::uint32_t a = array_index_[index];
  written_[a] = SeenView();
  if (copied_[a]) views_[a] = ArrayView();
  copied_[a] = 0;
  array_ptrs_[a] = nullptr;
  filled_[index] = 1;
}

void ArgumentPack::set_scalar(std::size_t index, const Scalar& value) {
  check_index(index);
  const ParamKind& p = (*signature_)[index];
  if (p.takes_array()) type_error(index, std::string(source_name(value.source())) + " (" + value.to_string() + ")");
  const auto src = value.source();
  const ScalarType t = p.type;
  // A datetime64/timedelta64 fills only a parameter of its kind and unit, and such a parameter takes nothing
  // else: Numba converts neither between units nor from numbers (a month count read as days is wrong).
  if (p.is_datetime() || src == Scalar::Source::Datetime) {
    if (src != Scalar::Source::Datetime || value.datetime_kind() != p.record_kind ||
        value.datetime_unit() != p.record_unit)
      type_error(index, std::string(source_name(src)) + " (" + value.to_string() + ")");
    const std::int64_t count = value.as_int();
    std::memcpy(slot(index, 0), &count, 8);
    filled_[index] = 1;
    return;
  }

  if (t == ScalarType::Bool || is_integer_type(t)) {
    if (src == Scalar::Source::Float || src == Scalar::Source::Complex)
      type_error(index, std::string(source_name(src)) + " (" + value.to_string() + ")");
    // Range check in the widest types: signed values as int64, unsigned ones as uint64.
    const bool is_unsigned_src = src == Scalar::Source::UInt;
    const std::int64_t iv = value.as_int();
    const std::uint64_t uv = value.as_uint();
    std::int64_t lo = 0;
    std::uint64_t hi = 1;
    switch (t) {
      case ScalarType::Bool: lo = 0; hi = 1; break;
      case ScalarType::Int8: lo = INT8_MIN; hi = INT8_MAX; break;
      case ScalarType::Int16: lo = INT16_MIN; hi = INT16_MAX; break;
      case ScalarType::Int32: lo = INT32_MIN; hi = INT32_MAX; break;
      case ScalarType::Int64: lo = INT64_MIN; hi = INT64_MAX; break;
      case ScalarType::UInt8: hi = UINT8_MAX; break;
      case ScalarType::UInt16: hi = UINT16_MAX; break;
      case ScalarType::UInt32: hi = UINT32_MAX; break;
      default: hi = UINT64_MAX; break;
    }
    bool in_range = is_unsigned_src ? uv <= hi
                                    : (iv >= lo && (iv < 0 || static_cast<std::uint64_t>(iv) <= hi));
    // A signed parameter takes a non-negative int of its width's unsigned range as that bit pattern:
    // 0xFFFFFFFF for int32 is -1, as numba-cuda's ctypes conversion and a C hex literal give.
    const std::uint64_t width_max = scalar_type_size(t) == 8 ? UINT64_MAX : (std::uint64_t{1} << (8 * scalar_type_size(t))) - 1;
    if (!in_range && lo < 0 && (is_unsigned_src || iv >= 0) && (is_unsigned_src ? uv : static_cast<std::uint64_t>(iv)) <= width_max)
      in_range = true;
    if (!in_range)
      throw cubridge::InvalidArgument(signature_->parameter_name(index) + ": " + value.to_string() +
                                  " is out of range for " + scalar_type_name(t) + " (" +
                                  std::to_string(lo) + " to " + std::to_string(hi) +
                                  (lo < 0 ? ", or up to " + std::to_string(width_max) + " as the bit pattern" : "") + ")");
    std::uint64_t bits = is_unsigned_src ? uv : static_cast<std::uint64_t>(iv);
    // Little-endian hosts only (x86-64, aarch64): the low bytes of the word are the narrow value.
    std::memcpy(slot(index, 0), &bits, scalar_type_size(t));
    filled_[index] = 1;
    return;
  }

  if (t == ScalarType::Float16 || t == ScalarType::Float32 || t == ScalarType::Float64) {
    if (src == Scalar::Source::Complex)
      type_error(index, std::string(source_name(src)) + " (" + value.to_string() + ")");
    double v = value.real();
    if (t == ScalarType::Float16) {
      std::uint16_t h = float16_bits(v);
      std::memcpy(slot(index, 0), &h, 2);
    } else if (t == ScalarType::Float32) {
      float f = static_cast<float>(v);
      std::memcpy(slot(index, 0), &f, 4);
    } else {
      std::memcpy(slot(index, 0), &v, 8);
    }
    filled_[index] = 1;
    return;
  }

  // Complex: two parameters, real then imaginary (Numba flattens the struct).
  if (t == ScalarType::Complex64) {
    float re = static_cast<float>(value.real()), im = static_cast<float>(value.imag());
    std::memcpy(slot(index, 0), &re, 4);
    std::memcpy(slot(index, 1), &im, 4);
  } else {
    double re = value.real(), im = value.imag();
    std::memcpy(slot(index, 0), &re, 8);
    std::memcpy(slot(index, 1), &im, 8);
  }
  filled_[index] = 1;
}

bool ArgumentPack::set_exact_int64(std::size_t index, std::int64_t v) noexcept {
  if (index >= signature_->size()) return false;
  const ParamKind& p = (*signature_)[index];
  if (p.kind != ParamKind::Kind::Scalar || p.type != ScalarType::Int64 || p.is_datetime()) return false;
  std::memcpy(slot(index, 0), &v, 8);
  filled_[index] = 1;
  return true;
}

bool ArgumentPack::set_exact_float64(std::size_t index, double v) noexcept {
  if (index >= signature_->size()) return false;
  const ParamKind& p = (*signature_)[index];
  if (p.kind != ParamKind::Kind::Scalar || p.type != ScalarType::Float64) return false;
  std::memcpy(slot(index, 0), &v, 8);
  filled_[index] = 1;
  return true;
}

void ArgumentPack::check_complete() const {
  for (std::size_t i = 0; i < filled_.size(); ++i)
    if (!filled_[i])
      throw cubridge::InvalidArgument(signature_->parameter_name(i) + " (" + (*signature_)[i].to_string() +
                                  ") was not set; the kernel takes " + std::to_string(filled_.size()) +
                                  " arguments: " + signature_->to_string());
}

void ArgumentPack::clear() noexcept {
  for (std::size_t a = 0; a < views_.size(); ++a)
    if (copied_[a]) {  // only copies hold owners; a borrowed view's slot was never written
      views_[a] = ArrayView();
      copied_[a] = 0;
    }
  for (auto& p : array_ptrs_) p = nullptr;
  for (auto& f : filled_) f = 0;
}

}  // namespace cubridge
