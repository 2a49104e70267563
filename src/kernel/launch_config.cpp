// Internal: launch-configuration checks and the per-device limits they use.
#include "cubridge/kernel/launch_config.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include <cuda.h>
#include "cubridge/error.hpp"
#include "cubridge/kernel/launch_config_error.hpp"

namespace cubridge {

Extent3 Extent3::of(std::span<const std::int64_t> values, const char* what) {
  if (values.empty() || values.size() > 3)
    throw cubridge::InvalidArgument(std::string(what) + ": " + std::to_string(values.size()) +
                                " extents given; give an int or a tuple of 1 to 3 ints");
  Extent3 e;
  e.rank = static_cast<int>(values.size());
  e.x = values[0];
  if (values.size() > 1) e.y = values[1];
  if (values.size() > 2) e.z = values[2];
  return e;
}

std::string Extent3::to_string() const {
  if (rank == 1) return std::to_string(x);
  std::string s(1, '(');  // appending, not prepending: GCC 12 warns falsely on "(" + string (PR 105329)
  s += std::to_string(x) + ", " + std::to_string(y);
  if (rank == 3) s += ", " + std::to_string(z);
  return s + ")";
}

const DeviceLimits& DeviceLimits::of(const Device& device) {
  static std::mutex mutex;
  static auto* cache = new std::map<int, std::unique_ptr<DeviceLimits>>;  // never destroyed
  std::lock_guard lock(mutex);
  auto& slot = (*cache)[device.ordinal()];
  if (!slot) {
    auto l = std::make_unique<DeviceLimits>();
    l->max_threads_per_block = device.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    l->max_block[0] = device.attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    l->max_block[1] = device.attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    l->max_block[2] = device.attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    l->max_grid[0] = device.attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    l->max_grid[1] = device.attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    l->max_grid[2] = device.attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    l->max_shared_per_block = device.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    l->max_shared_optin = device.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    if (l->max_shared_optin < l->max_shared_per_block) l->max_shared_optin = l->max_shared_per_block;
    slot = std::move(l);
  }
  return *slot;
}

namespace {

void check_extents(const Extent3& e, const char* what, const std::int64_t (&max)[3]) {
  // Every launch checks: the common answer without building the message's pieces.
  if (e.x >= 1 && e.y >= 1 && e.z >= 1 && e.x <= max[0] && e.y <= max[1] && e.z <= max[2]) return;
  const std::int64_t v[3] = {e.x, e.y, e.z};
  static const char* const axis[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    if (v[i] < 1)
      throw LaunchConfigError(std::string(what) + " " + e.to_string() + ": extent " + axis[i] + " is " +
                                  std::to_string(v[i]) + "; every extent must be at least 1");
    if (v[i] > max[i])
      throw LaunchConfigError(std::string(what) + " " + e.to_string() + ": extent " + axis[i] + " is " +
                                  std::to_string(v[i]) + ", above the device's limit of " +
                                  std::to_string(max[i]));
  }
}

}  // namespace

void validate_launch(const LaunchConfig& config, const DeviceLimits& device, const KernelLimits& kernel) {
  check_extents(config.block, "blockdim", device.max_block);
  check_extents(config.grid, "griddim", device.max_grid);
  const std::int64_t threads = config.block.product();
  const std::int64_t limit = std::min(device.max_threads_per_block, kernel.max_threads_per_block);
  if (threads > limit)
    throw LaunchConfigError("blockdim " + config.block.to_string() + ": " + std::to_string(threads) +
                                " threads per block exceed the limit of " + std::to_string(limit) +
                                " (the device allows " + std::to_string(device.max_threads_per_block) +
                                ", this kernel " + std::to_string(kernel.max_threads_per_block) +
                                " with its registers)");
  if (config.shared_mem < 0)
    throw LaunchConfigError("sharedmem " + std::to_string(config.shared_mem) +
                                ": dynamic shared memory must be 0 or more bytes");
  if (config.shared_mem > device.max_shared_optin - kernel.static_shared)  // no overflow for huge values
    throw LaunchConfigError(
        "sharedmem " + std::to_string(config.shared_mem) + ": " + std::to_string(config.shared_mem) +
        " bytes of dynamic shared memory plus the kernel's " + std::to_string(kernel.static_shared) +
        " static bytes exceed the device's maximum of " + std::to_string(device.max_shared_optin) +
        " bytes per block");
}

std::int64_t blocks_for(std::int64_t n, std::int64_t block) noexcept {
  return n / block + (n % block != 0 ? 1 : 0);  // (n + block - 1) / block overflows near INT64_MAX
}

}  // namespace cubridge
