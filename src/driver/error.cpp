// Internal: the message format of CudaError: "<call> failed: <NAME> (<description>)".
#include "cubridge/driver/error.hpp"

namespace cubridge {

CudaError::CudaError(int code, std::string name, std::string description, std::string call)
    : std::runtime_error(call + " failed: " + name + " (" + description + ")"),
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
                "no usable CUDA driver or device: " + description + " [" + call + ": " + name + "]",
                code, name, description, call) {}

}  // namespace cubridge
