// The packed parameter buffer of one kernel: values written at the signature's precomputed offsets,
// plus the array facts a launch needs (producer streams, devices). Implements: the Numba ABI's
// flattened argument layout (see kernel_signature.hpp) and the argument checks done before a launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "cubridge/array/array_view.hpp"
#include "cubridge/kernel/kernel_signature.hpp"
#include "cubridge/kernel/scalar.hpp"
#include "cubridge/error.hpp"

namespace cubridge {

class Kernel;

/// A value of the wrong kind for its parameter (an array for a scalar, a float for an int, a
/// float64 array for float32[:]). Python: TypeError. Range errors stay std::invalid_argument.
class ArgumentTypeError : public std::invalid_argument, public Error {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Reusable: set every parameter, launch, set them again. Not thread-safe (one per caller/thread).
class ArgumentPack {
 public:
  explicit ArgumentPack(std::shared_ptr<const KernelSignature> signature);
  ArgumentPack(const ArgumentPack&) = delete;
  ArgumentPack& operator=(const ArgumentPack&) = delete;

  const KernelSignature& signature() const noexcept { return *signature_; }
  const std::shared_ptr<const KernelSignature>& signature_ptr() const noexcept { return signature_; }

  /// Checks the view against parameter `index` (array kind, dtype, ndim, layout, a read-only view
  /// where the kernel writes, a mask) and writes its 5 + 2N values; for a pointer parameter, checks
  /// the dtype (any for void*), that the array is C- or F-contiguous (the kernel indexes it flat) and
  /// writability, and writes its data pointer. The view is copied (its owner stays alive until the
  /// next set of this parameter or clear()). Throws ArgumentTypeError or std::invalid_argument whose
  /// message starts with "argument <index>".
  void set_array(std::size_t index, const ArrayView& view);
  void set_array(std::size_t index, ArrayView&& view);
  /// As set_array, without copying the view: the caller keeps `view` (and what it refers to) alive and
  /// unchanged until the next set of this parameter or clear(). For launches whose caller holds the
  /// arrays (a Python launch holds its argument tuple). The view this parameter was last set to, given again
  /// unchanged (the same object with the same ArrayView::serial()), is neither checked nor written again: its
  /// words are still in place.
  void set_array_borrowed(std::size_t index, const ArrayView& view);
  /// A raw device address for pointer parameter `index` (no view: nothing to order or keep alive).
  void set_address(std::size_t index, std::uint64_t address);
  /// Converts to the parameter's exact type (range-checked) and writes it.
  void set_scalar(std::size_t index, const Scalar& value);
  /// set_scalar's result where nothing is converted, without making a Scalar (a launch's Python ints and
  /// floats): `v` into an int64 parameter (not a datetime's count), or into a float64 one. False, with
  /// nothing written, for any other parameter: the caller then takes set_scalar.
  bool set_exact_int64(std::size_t index, std::int64_t v) noexcept;
  bool set_exact_float64(std::size_t index, double v) noexcept;

  /// Throws std::invalid_argument naming the first parameter that was not set since clear().
  void check_complete() const;
  /// Forgets the arrays (releasing their owners) and marks every parameter unset.
  void clear() noexcept;

  /// kernelParams for cuLaunchKernel: one pointer per PTX parameter, into buffer(). For the driver to read only: the
  /// words are written by the setters alone (a borrowed view given again unchanged keeps the words written for it).
  void** params() noexcept { return pointers_.data(); }
  std::span<const std::byte> buffer() const noexcept {
    return {reinterpret_cast<const std::byte*>(words_.data()), words_.size() * 8};
  }
  /// buffer() up to the last parameter's end, for `kernel` to take whole, where the driver lays out its parameters
  /// as the signature packs them (check_parameter_layout, asked once per kernel this pack launches); empty where
  /// the driver cannot say or the kernel takes no parameters: a launch then passes params(). Throws
  /// InvalidArgument as check_parameter_layout where the two layouts differ.
  std::span<const std::byte> packed_for(const Kernel& kernel);
  /// The views set for the array and pointer parameters, in parameter order (null for unset ones and
  /// for pointers given as raw addresses).
  std::span<const ArrayView* const> arrays() const noexcept { return array_ptrs_; }

 private:
  std::byte* slot(std::size_t index, std::uint32_t k) noexcept;
  [[noreturn]] void type_error(std::size_t index, const std::string& got) const;
  void check_index(std::size_t index) const {
    if (index >= signature_->size()) [[unlikely]] index_error(index);
  }
  [[noreturn]] void index_error(std::size_t index) const;
  void keep(std::size_t index, ArrayView&& view);
  void check_and_write(std::size_t index, const ArrayView& view);
  /// An array's words (the address, or the Numba ABI's meminfo..strides) at its slots: the checks were made.
  void write_array(std::size_t index, const ParamKind& p, const ArrayView& view);

  std::shared_ptr<const KernelSignature> signature_;
  std::vector<std::uint64_t> words_;  // the packed buffer, as words so every slot is aligned
  std::vector<void*> pointers_;
  std::vector<std::uint32_t> array_index_;  // param index -> index into views_ (or UINT32_MAX)
  std::vector<ArrayView> views_;          // copies set_array kept (empty for borrowed views)
  std::vector<std::uint8_t> copied_;      // views_[k] holds a copy to release at clear()
  std::vector<const ArrayView*> array_ptrs_;
  std::vector<std::uint8_t> filled_;
  std::vector<SeenView> written_;  // by array index: the borrowed view whose words the buffer holds, if any
  std::uint64_t layout_checked_for_ = 0;  // the serial of the kernel whose layout packed_for() last checked
  bool layout_matches_ = false;           // and what it found
};

}  // namespace cubridge
