// Errors raised by the driver layer: every failed CUDA driver call becomes a CudaError.
// Implements: DESIGN.md "driver/" error rule (driver's error name, its message, the failing call).
// Internal rules: see src/driver/driver_api.hpp for the checked-call helper that throws these.
#pragma once

#include <stdexcept>
#include <string>
#include "cubridge/error.hpp"

namespace cubridge {

/// A CUDA driver call failed. `code()` is the CUresult, `name()` its symbolic name
/// (e.g. "CUDA_ERROR_INVALID_VALUE"), `call()` the entry point that failed (e.g. "cuMemAlloc").
class CudaError : public std::runtime_error, public Error {
 public:
  CudaError(int code, std::string name, std::string description, std::string call);
  int code() const noexcept { return code_; }
  const std::string& name() const noexcept { return name_; }
  const std::string& description() const noexcept { return description_; }
  const std::string& call() const noexcept { return call_; }

 protected:
  struct FullMessage {};
  CudaError(FullMessage, std::string what, int code, std::string name, std::string description,
            std::string call);

 private:
  int code_;
  std::string name_;
  std::string description_;
  std::string call_;
};

/// No usable driver or device: libcuda.so.1 could not be loaded, is the toolkit's stub, or
/// reports no device. Raised by the first GPU operation; CPU-only work never raises it.
class DriverUnavailable : public CudaError {
 public:
  /// what(): "no usable CUDA driver or device: <description> [<call>: <name>]".
  DriverUnavailable(int code, std::string name, std::string description, std::string call);
};

}  // namespace cubridge
