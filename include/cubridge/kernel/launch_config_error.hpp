// The error validate_launch throws for a launch configuration the device or the kernel cannot run.
// Implements: cuLaunchKernel's refusal of such a configuration (CUDA_ERROR_INVALID_VALUE), raised before the
// driver is called, with the value, the limit it broke and the driver error it would have been.
#pragma once

#include "cubridge/error.hpp"

namespace cubridge {

/// A launch configuration refused before the launch (extents, threads per block, shared memory): an
/// InvalidArgument (Python: cubridge.LaunchConfigError, a ValueError) whose message ends by naming the driver
/// error the launch would have met, so callers that report driver errors by name find it.
class LaunchConfigError : public InvalidArgument {
 public:
  /// The driver's name for the error such a launch gets from cuLaunchKernel.
  static constexpr const char* driver_error = "CUDA_ERROR_INVALID_VALUE";
  /// `explanation` (the value and the limit it broke) with the driver error appended.
  explicit LaunchConfigError(const std::string& explanation)
      : InvalidArgument(explanation + "; the driver refuses such a launch with " + driver_error) {}
};

}  // namespace cubridge
