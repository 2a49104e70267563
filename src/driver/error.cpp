// Internal: the message format of CudaError: "<call> failed: <NAME> (<description>)".
#include "cubridge/driver/error.hpp"

#include <initializer_list>
#include <string_view>

namespace cubridge {

namespace {
// The pieces joined by appending: GCC 12 warns falsely (-Wrestrict, PR 105329) on chains of operator+.
std::string joined(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view p : parts) s += p;
  return s;
}
}  // namespace

CudaError::CudaError(int code, std::string name, std::string description, std::string call)
    : std::runtime_error(joined({call, " failed: ", name, " (", description, ")"})),
      code_(code),
      name_(std::move(name)),
      description_(std::move(description)),
      call_(std::move(call)) {}

CudaError::CudaError(FullMessage, std::string what, int code, std::string name,
                     std::string description, std::string call)
    : std::runtime_error(std::move(what)),
      code_(code),
      name_(std::move(name)),
      description_(std::move(description)),
      call_(std::move(call)) {}

DriverUnavailable::DriverUnavailable(int code, std::string name, std::string description,
                                     std::string call)
    : CudaError(FullMessage{},
                joined({"no usable CUDA driver or device: ", description, " [", call, ": ", name, "]"}),
                code, name, description, call) {}

}  // namespace cubridge
