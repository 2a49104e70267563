// Internal: a kernel's parameter layout as the driver reports it, against a signature's packed slots.
#include "cubridge/kernel/parameter_layout.hpp"

#include <string>

#include "cubridge/error.hpp"
#include "cubridge/kernel/kernel.hpp"
#include "driver/driver_api.hpp"

namespace cubridge {

namespace {

// The driver's parameter buffer holds at most 32,764 bytes, so no kernel has more parameters than that.
constexpr std::size_t kMostParameters = 32764;

std::string layout_text(const std::vector<ParamSlot>& slots, std::size_t bytes) {
  return std::to_string(slots.size()) + (slots.size() == 1 ? " parameter, " : " parameters, ") +
         std::to_string(bytes) + " bytes";
}

std::size_t end_of(const std::vector<ParamSlot>& slots) {
  return slots.empty() ? 0 : std::size_t{slots.back().offset} + slots.back().size;
}

}  // namespace

std::optional<std::vector<ParamSlot>> read_parameter_layout(CUfunction function) {
  const auto get = driver::api().cuFuncGetParamInfo;
  if (get == nullptr) return std::nullopt;
  std::vector<ParamSlot> slots;
  for (std::size_t i = 0; i <= kMostParameters; ++i) {
    std::size_t offset = 0, size = 0;
    const CUresult r = get(function, i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) return slots;  // past the last parameter
    if (r != CUDA_SUCCESS || offset > kMostParameters || size > kMostParameters) return std::nullopt;
    slots.push_back({static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(size)});
  }
  return std::nullopt;  // no end: not an answer to trust
}

bool check_parameter_layout(const Kernel& kernel, const KernelSignature& signature) {
  const std::vector<ParamSlot>* layout = kernel.parameter_layout();
  if (layout == nullptr) return false;
  const std::vector<ParamSlot>& ours = signature.slots();
  // An empty answer for a signature with parameters may be the driver's generic CUDA_ERROR_INVALID_VALUE at the
  // first index rather than a kernel without parameters: the driver cannot say, as before CUDA 12.4.
  if (layout->empty() && !ours.empty()) return false;
  // Slot for slot; a complex scalar's two halves (numba's two parameters) may also fill one C parameter of their
  // size at their offset (cuFloatComplex, float2, cuDoubleComplex), which the packed buffer then hands over whole.
  std::size_t i = 0, j = 0;  // our slot, the kernel's parameter
  while (i < ours.size() && j < layout->size() && ours[i].offset == (*layout)[j].offset) {
    if (ours[i].size == (*layout)[j].size) {
      ++i;
      ++j;
      continue;
    }
    const std::size_t p = signature.parameter_of_slot(i);
    const bool complex_halves = signature[p].kind == ParamKind::Kind::Scalar && signature.slot_count(p) == 2 &&
                                signature.first_slot(p) == i && ours[i + 1].offset == ours[i].offset + ours[i].size &&
                                2 * ours[i].size == (*layout)[j].size;
    if (!complex_halves) break;
    i += 2;
    ++j;
  }
  if (i == ours.size() && j == layout->size()) return true;
  std::string what = "kernel '" + kernel.name() + "' takes " + layout_text(*layout, end_of(*layout)) +
                     ", but its signature " + signature.to_string() + " passes " +
                     layout_text(ours, signature.parameter_bytes());
  std::string advice;
  if (i < ours.size()) {
    const std::size_t p = signature.parameter_of_slot(i);
    const std::size_t part = i - signature.first_slot(p);
    what += "; they part at PTX parameter " + std::to_string(i) + ": the signature's " + signature.parameter_name(p) +
            " (" + signature[p].to_string() + (signature.slot_count(p) > 1 ? ", its part " + std::to_string(part) : "") +
            ") is " + std::to_string(ours[i].size) + " bytes at offset " + std::to_string(ours[i].offset);
    what += j < layout->size() ? ", the kernel's parameter " + std::to_string(j) + " is " +
                                     std::to_string((*layout)[j].size) + " bytes at offset " +
                                     std::to_string((*layout)[j].offset)
                               : ", past the kernel's last parameter";
    advice = "Write the signature as the kernel declares its parameters: an array (float32[:]) is numba's 5 + 2 * "
             "ndim parameters (meminfo, parent, nitems, itemsize, data, shape, strides), a C pointer is float32*, each "
             "scalar its own width (int32 for a C int, int64 for a long long), a cuFloatComplex complex64";
  } else {
    what += "; the kernel's parameter " + std::to_string(j) + " (" + std::to_string((*layout)[j].size) +
            " bytes at offset " + std::to_string((*layout)[j].offset) + ") is given nothing";
    advice = "Add the kernel's remaining parameters to the signature";
  }
  throw cubridge::InvalidArgument(what + ". " + advice);
}

}  // namespace cubridge
