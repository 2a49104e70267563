// A kernel launch configuration (grid, block, dynamic shared memory, stream) and its validation
// against the device's and the kernel's limits. Implements: the launch-configuration rules of
// cuLaunchKernel (block/grid extents, threads per block, shared memory up to the opt-in maximum).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "cubridge/driver/device.hpp"
#include "cubridge/driver/stream.hpp"

namespace cubridge {

/// One to three extents as the user gave them; missing ones are 1. `rank` remembers how many were
/// given, so error messages repeat the value in the user's spelling ("(0, 4)", "2048").
struct Extent3 {
  std::int64_t x = 1, y = 1, z = 1;
  int rank = 1;

  /// From 1 to 3 values. Throws std::invalid_argument naming `what` for 0 or more than 3 values
  /// (the values themselves are checked later, by validate_launch).
  static Extent3 of(std::span<const std::int64_t> values, const char* what);
  std::int64_t product() const noexcept { return x * y * z; }
  /// "5" for rank 1, "(5, 2)" for rank 2, "(5, 2, 1)" for rank 3.
  std::string to_string() const;
  friend bool operator==(const Extent3&, const Extent3&) = default;
};

struct LaunchConfig {
  Extent3 grid;
  Extent3 block;
  std::int64_t shared_mem = 0;      // dynamic shared memory in bytes
  std::optional<StreamRef> stream;  // nullopt: the arrays' stream, else `default_stream`
  /// Used when neither `stream` nor any array names one (the per-thread default stream where the
  /// process asked for it: CUBRIDGE_PER_THREAD_DEFAULT_STREAM=1 in Python).
  StreamRef default_stream = StreamRef::legacy();
};

/// The device attributes a launch is checked against (read once per device and cached).
struct DeviceLimits {
  std::int64_t max_threads_per_block = 1024;
  std::int64_t max_block[3] = {1024, 1024, 64};
  std::int64_t max_grid[3] = {2147483647, 65535, 65535};
  std::int64_t max_shared_per_block = 48 * 1024;  // without opting in
  std::int64_t max_shared_optin = 48 * 1024;      // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN

  /// Cached per ordinal; throws CudaError when the driver cannot answer.
  static const DeviceLimits& of(const Device& device);
};

/// What a compiled function adds to the device's limits.
struct KernelLimits {
  std::int64_t max_threads_per_block = 1024;  // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (registers)
  std::int64_t static_shared = 0;             // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
};

/// Throws LaunchConfigError (a std::invalid_argument) naming the offending value, the limit it broke and
/// the driver error the launch would meet, before anything is launched: extents < 1, per-dimension block and grid limits, threads per block, and static plus
/// dynamic shared memory against the opt-in maximum.
void validate_launch(const LaunchConfig& config, const DeviceLimits& device, const KernelLimits& kernel);

/// The grid that covers `n` threads with blocks of `block` threads (n > 0, block > 0).
std::int64_t blocks_for(std::int64_t n, std::int64_t block) noexcept;

}  // namespace cubridge
