// One kernel (CUfunction) of a loaded module: its attributes, its dynamic shared-memory opt-in and
// the raw launch. Implements: DESIGN.md "kernel/" Kernel (cuModuleGetFunction, cuFuncGetAttribute,
// cuFuncSetAttribute for CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <cuda.h>

#include "cubridge/kernel/kernel_raise.hpp"
#include "cubridge/kernel/kernel_signature.hpp"
#include "cubridge/kernel/launch_config.hpp"
#include "cubridge/kernel/module.hpp"

namespace cubridge {

struct KernelAttributes {
  int max_threads_per_block = 0;          // limited by the kernel's registers
  int num_regs = 0;
  std::int64_t static_shared = 0;         // bytes
  std::int64_t const_bytes = 0;
  std::int64_t local_bytes = 0;           // per thread
  std::int64_t max_dynamic_shared = 0;    // the current opt-in value
  int ptx_version = 0;                    // e.g. 90 for PTX ISA 9.0 (0 when unknown)
  int binary_version = 0;                 // e.g. 90 for sm_90
};

class Kernel {
 public:
  /// Prefer Module::function. Throws std::invalid_argument when the module has no such entry.
  Kernel(std::shared_ptr<const Module> module, std::string name);
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  CUfunction handle() const;
  const std::string& name() const noexcept { return name_; }
  const std::shared_ptr<const Module>& module() const noexcept { return module_; }
  const KernelAttributes& attributes() const noexcept { return attributes_; }
  const DeviceLimits& device_limits() const noexcept { return *device_limits_; }
  KernelLimits limits() const noexcept;

  /// Lets launches use up to `bytes` of dynamic shared memory (beyond the default 48 KiB).
  /// Throws std::invalid_argument naming the value and the device's opt-in maximum.
  void set_max_dynamic_shared_memory(std::int64_t bytes);
  /// The preferred split of the unified L1/shared memory (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT):
  /// `percent` of it as shared memory, 0 to 100, or -1 for the driver's default; InvalidArgument otherwise.
  void set_shared_memory_carveout(int percent);
  /// The block size the occupancy calculator suggests for `dynamic_shared` bytes per block.
  int suggested_block_size(std::int64_t dynamic_shared = 0) const;

  /// Cooperative kernels (numba-cuda's cuda.cg grid sync) are launched with cuLaunchKernelEx and
  /// CU_LAUNCH_ATTRIBUTE_COOPERATIVE, every block resident at once, so the grid is checked against
  /// max_cooperative_grid_blocks first. The compiler says which kernels need it (CompileResult::cooperative).
  void set_cooperative(bool on) noexcept { cooperative_ = on; }
  bool cooperative() const noexcept { return cooperative_; }
  /// The most blocks a cooperative launch can have with `block_threads` threads per block and
  /// `dynamic_shared` bytes: active blocks per multiprocessor (the occupancy calculator) times the
  /// device's multiprocessors (numba-cuda's max_cooperative_grid_blocks).
  std::int64_t max_cooperative_grid_blocks(std::int64_t block_threads, std::int64_t dynamic_shared = 0) const;
  /// The status globals of a kernel compiled with debug=True (nullptr otherwise): launch() zeroes them
  /// before and checks them after, throwing KernelRaised.
  const RaiseRecord* raise_record() const noexcept { return raise_record_ ? &*raise_record_ : nullptr; }

  /// Throws std::invalid_argument (see validate_launch) when `config` cannot launch this kernel, and,
  /// for a cooperative kernel, when the grid is larger than max_cooperative_grid_blocks.
  void validate(const LaunchConfig& config) const;
  /// Launches on `stream` with `params` already packed (or the whole buffer `packed`: see launch_validated);
  /// validates first and opts in to the dynamic shared memory asked for. Context made current for the call.
  void launch_raw(const LaunchConfig& config, StreamRef stream, void** params, std::span<const std::byte> packed = {});
  /// launch_raw for a caller that already validated `config` for this kernel and made the kernel's
  /// context current (launch() does both once per launch). `packed`, when not empty, is the whole parameter
  /// buffer laid out as parameter_layout() says (check_parameter_layout), handed to the driver in one piece
  /// instead of `params` (except by a cooperative launch: `params` must then point into it too).
  void launch_validated(const LaunchConfig& config, StreamRef stream, void** params,
                        std::span<const std::byte> packed = {});

  /// Each parameter's offset and size as the driver lays them out (parameter_layout.hpp), read when the kernel
  /// is made; null where the driver cannot say (older than CUDA 12.4).
  const std::vector<ParamSlot>* parameter_layout() const noexcept {
    return parameter_layout_ ? &*parameter_layout_ : nullptr;
  }
  /// Unique among the kernels of the process, never reused: a cache may name the kernel by it.
  std::uint64_t serial() const noexcept { return serial_; }

 private:
  std::shared_ptr<const Module> module_;
  std::string name_;
  CUfunction handle_ = nullptr;
  KernelAttributes attributes_;
  const DeviceLimits* device_limits_ = nullptr;
  std::atomic<std::int64_t> opted_in_shared_{0};
  bool cooperative_ = false;
  std::optional<RaiseRecord> raise_record_;
  std::optional<std::vector<ParamSlot>> parameter_layout_;
  std::uint64_t serial_;  // unique in the process: validate()'s per-thread memo names the kernel by it
};

}  // namespace cubridge
