// Internal: looking a kernel up in its module, its attributes, the shared-memory opt-in, raw launch.
#include "cubridge/kernel/kernel.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "cubridge/driver/stream_capture.hpp"
#include "cubridge/kernel/parameter_layout.hpp"
#include "driver/driver_api.hpp"
#include "cubridge/error.hpp"

namespace cubridge {

namespace {

int function_attribute(CUfunction f, CUfunction_attribute a) {
  int v = 0;
  CUBRIDGE_CU(cuFuncGetAttribute, &v, a, f);
  return v;
}

std::string entry_list(const Module& m) {
  if (m.entry_names().empty()) return "the module does not list its entries (cubin/fatbin)";
  std::string s = "its entries: ";
  for (std::size_t i = 0; i < m.entry_names().size(); ++i) s += (i ? ", " : "") + m.entry_names()[i];
  return s;
}

// A launch the driver refused. A launch on the legacy default stream while another (blocking) stream is
// being captured is the usual mistake under torch.cuda.graph or CuPy's begin_capture: say which stream to use.
[[noreturn]] void launch_failed(CUresult r, const std::string& kernel, StreamRef stream, const char* call) {
  if (r == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT && stream.is_legacy_default())
    throw CudaError(static_cast<int>(r), driver::error_name(r),
                    "kernel '" + kernel + "' was launched on the legacy default stream while another stream is "
                    "being captured into a CUDA graph (the legacy stream synchronises with every blocking stream, "
                    "which a capture forbids; the driver has invalidated that capture). Launch on the capturing "
                    "stream: kernel[griddim, blockdim, stream] (PyTorch: torch.cuda.current_stream() inside "
                    "torch.cuda.graph; CuPy: the stream that began the capture)",
                    call);
  driver::throw_error(r, call);
}

std::atomic<std::uint64_t> g_next_kernel_serial{1};

/// The configuration this thread validated last, and for which kernel: a launch loop validates the same one
/// every time (the lazy launch asks before packing and launch() again). What validate_launch reads of a kernel
/// never changes once it is made; a cooperative kernel's occupancy may (its carveout, its dynamic shared memory),
/// so its passes are not remembered.
struct ValidatedLaunch {
  std::uint64_t kernel = 0;
  Extent3 grid, block;
  std::int64_t shared_mem = 0;

  bool same(std::uint64_t k, const LaunchConfig& c) const noexcept {
    return kernel == k && grid == c.grid && block == c.block && shared_mem == c.shared_mem;
  }
};
thread_local ValidatedLaunch t_last_validated;

}  // namespace

Kernel::Kernel(std::shared_ptr<const Module> module, std::string name)
    : module_(std::move(module)), name_(std::move(name)), serial_(g_next_kernel_serial.fetch_add(1)) {
  ScopedContext scope(*module_->context());
  // A kernel first used inside a graph capture (a lazy @jit's first call) is looked up then: the lookup
  // and the attribute reads are no work to record, and a global capture would refuse them.
  RelaxedCaptureScope relaxed;
  CUresult r = CUBRIDGE_CU_RESULT(cuModuleGetFunction, &handle_, module_->handle(), name_.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    throw cubridge::InvalidArgument("kernel '" + name_ + "' is not in the module (" + entry_list(*module_) + ")");
  if (r != CUDA_SUCCESS) driver::throw_error(r, "cuModuleGetFunction");
  attributes_.max_threads_per_block = function_attribute(handle_, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  attributes_.num_regs = function_attribute(handle_, CU_FUNC_ATTRIBUTE_NUM_REGS);
  attributes_.static_shared = function_attribute(handle_, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  attributes_.const_bytes = function_attribute(handle_, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
  attributes_.local_bytes = function_attribute(handle_, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  attributes_.max_dynamic_shared = function_attribute(handle_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  attributes_.ptx_version = function_attribute(handle_, CU_FUNC_ATTRIBUTE_PTX_VERSION);
  attributes_.binary_version = function_attribute(handle_, CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  opted_in_shared_.store(attributes_.max_dynamic_shared, std::memory_order_relaxed);
  device_limits_ = &DeviceLimits::of(module_->context()->device());
  raise_record_ = RaiseRecord::find(*module_, name_);
  parameter_layout_ = read_parameter_layout(handle_);
}

CUfunction Kernel::handle() const {
  module_->context()->ensure_valid("kernel");
  return handle_;
}

KernelLimits Kernel::limits() const noexcept {
  return KernelLimits{attributes_.max_threads_per_block, attributes_.static_shared};
}

void Kernel::set_max_dynamic_shared_memory(std::int64_t bytes) {
  const std::int64_t max = device_limits_->max_shared_optin - attributes_.static_shared;
  if (bytes < 0 || bytes > max)
    throw cubridge::InvalidArgument("dynamic shared memory of " + std::to_string(bytes) + " bytes for kernel '" +
                                name_ + "': accepted 0 to " + std::to_string(max) +
                                " (the device's opt-in maximum " + std::to_string(device_limits_->max_shared_optin) +
                                " minus the kernel's " + std::to_string(attributes_.static_shared) +
                                " static bytes)");
  CUfunction f = handle();
  ScopedContext scope(*module_->context());
  RelaxedCaptureScope relaxed;  // a launch's opt-in may come inside a capture; it is no work to record
  CUBRIDGE_CU(cuFuncSetAttribute, f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(bytes));
  attributes_.max_dynamic_shared = bytes;
  opted_in_shared_.store(bytes, std::memory_order_relaxed);
}

void Kernel::set_shared_memory_carveout(int percent) {
  if (percent < -1 || percent > 100)
    throw cubridge::InvalidArgument("shared memory carveout " + std::to_string(percent) + " for kernel '" + name_ +
                                    "': accepted 0 to 100 (percent of the unified L1/shared memory) or -1 (the "
                                    "driver's default)");
  CUfunction f = handle();
  ScopedContext scope(*module_->context());
  CUBRIDGE_CU(cuFuncSetAttribute, f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent);
}

int Kernel::suggested_block_size(std::int64_t dynamic_shared) const {
  CUfunction f = handle();
  ScopedContext scope(*module_->context());
  int min_grid = 0, block = 0;
  CUBRIDGE_CU(cuOccupancyMaxPotentialBlockSize, &min_grid, &block, f, nullptr,
              static_cast<std::size_t>(dynamic_shared), 0);
  return block;
}

std::int64_t Kernel::max_cooperative_grid_blocks(std::int64_t block_threads, std::int64_t dynamic_shared) const {
  CUfunction f = handle();
  ScopedContext scope(*module_->context());
  int per_sm = 0;
  CUBRIDGE_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor, &per_sm, f, static_cast<int>(block_threads),
              static_cast<std::size_t>(dynamic_shared));
  return std::int64_t{per_sm} * module_->context()->device().attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
}

void Kernel::validate(const LaunchConfig& config) const {
  module_->context()->ensure_valid("kernel");
  ValidatedLaunch& last = t_last_validated;
  if (!cooperative_ && last.same(serial_, config)) return;
  validate_launch(config, *device_limits_, limits());
  if (!cooperative_) {
    last = ValidatedLaunch{serial_, config.grid, config.block, config.shared_mem};
    return;
  }
  const std::int64_t blocks = config.grid.product();
  const std::int64_t limit = max_cooperative_grid_blocks(config.block.product(), config.shared_mem);
  if (blocks > limit) {
    const int sms = module_->context()->device().attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    throw cubridge::InvalidArgument(
        "griddim " + config.grid.to_string() + " with blockdim " + config.block.to_string() + ": kernel '" + name_ +
        "' synchronises its grid (cuda.cg), so it needs a cooperative launch, whose " + std::to_string(blocks) +
        " blocks must all be resident at once; with " + std::to_string(config.block.product()) +
        " threads and " + std::to_string(config.shared_mem) + " bytes of dynamic shared memory per block at most " +
        std::to_string(limit) + " blocks fit (" + std::to_string(limit / std::max(sms, 1)) + " per multiprocessor x " +
        std::to_string(sms) + " multiprocessors; see max_cooperative_grid_blocks)");
  }
}

void Kernel::launch_raw(const LaunchConfig& config, StreamRef stream, void** params, std::span<const std::byte> packed) {
  validate(config);
  ScopedContext scope(*module_->context());
  launch_validated(config, stream, params, packed);
}

void Kernel::launch_validated(const LaunchConfig& config, StreamRef stream, void** params,
                              std::span<const std::byte> packed) {
  if (config.shared_mem > opted_in_shared_.load(std::memory_order_relaxed))
    set_max_dynamic_shared_memory(config.shared_mem);
  // The packed buffer's exact size: the driver refuses one longer than the kernel's parameters. A cooperative
  // launch (cuLaunchKernelEx) takes one pointer per parameter: given the buffer, it is refused while its stream is
  // being captured (CUDA_ERROR_INVALID_VALUE under torch.cuda.graph, on the H100's 580 driver).
  std::size_t packed_size = packed.size();
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, const_cast<std::byte*>(packed.data()), CU_LAUNCH_PARAM_BUFFER_SIZE,
                   &packed_size, CU_LAUNCH_PARAM_END};
  void** const extra_or_null = packed.empty() || cooperative_ ? nullptr : extra;
  if (extra_or_null != nullptr) params = nullptr;
  if (cooperative_) {
    CUlaunchAttribute cooperative{};
    cooperative.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    cooperative.value.cooperative = 1;
    CUlaunchConfig c{};
    c.gridDimX = static_cast<unsigned>(config.grid.x);
    c.gridDimY = static_cast<unsigned>(config.grid.y);
    c.gridDimZ = static_cast<unsigned>(config.grid.z);
    c.blockDimX = static_cast<unsigned>(config.block.x);
    c.blockDimY = static_cast<unsigned>(config.block.y);
    c.blockDimZ = static_cast<unsigned>(config.block.z);
    c.sharedMemBytes = static_cast<unsigned>(config.shared_mem);
    c.hStream = stream.handle();
    c.attrs = &cooperative;
    c.numAttrs = 1;
    const CUresult r = CUBRIDGE_CU_RESULT(cuLaunchKernelEx, &c, handle_, params, extra_or_null);
    if (r != CUDA_SUCCESS) launch_failed(r, name_, stream, "cuLaunchKernelEx");
    return;
  }
  const CUresult r = CUBRIDGE_CU_RESULT(
      cuLaunchKernel, handle_, static_cast<unsigned>(config.grid.x), static_cast<unsigned>(config.grid.y),
      static_cast<unsigned>(config.grid.z), static_cast<unsigned>(config.block.x),
      static_cast<unsigned>(config.block.y), static_cast<unsigned>(config.block.z),
      static_cast<unsigned>(config.shared_mem), stream.handle(), params, extra_or_null);
  if (r != CUDA_SUCCESS) launch_failed(r, name_, stream, "cuLaunchKernel");
}

}  // namespace cubridge
