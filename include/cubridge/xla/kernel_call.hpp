// A loaded kernel launched as an XLA custom call (cubridge.jax.kernel_call): a process-wide table of
// kernels, the opaque bytes of one call site, and the built-in GPU target `cubridge_kernel_call`.
// Implements: XLA "Custom calls" on the GPU (classic signature, api version 2, served through the
// typed-FFI adapter) for kernels with Numba-ABI array and C pointer parameters (kernel_signature.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cubridge/c/xla_custom_call.h"
#include "cubridge/kernel/kernel_signature.hpp"
#include "cubridge/kernel/launch_config.hpp"

namespace cubridge::xla {

/// The target's name, as cubridge.jax registers it for "CUDA".
inline constexpr const char* kKernelCallTarget = "cubridge_kernel_call";

/// What the opaque bytes of one call site carry. `arguments` is the kernel's packed parameter buffer
/// (KernelSignature layout) with every scalar, shape and stride written at trace time and every data
/// pointer 0: the target copies it and writes XLA's buffers (operands, then results) into the array
/// and pointer parameters, in parameter order.
struct KernelCallSite {
  std::int64_t kernel = 0;         // id in KernelCallTable
  std::uint64_t fingerprint = 0;   // of the kernel's image, entry and signature (see KernelCallTable)
  Extent3 grid;
  Extent3 block;
  std::int64_t shared_mem = 0;     // dynamic shared memory, bytes
  std::string_view arguments;      // a view into the opaque bytes (or into what encode() was given)
  // The kernel itself, so that the call site is portable (jax.export, a persistent compilation cache):
  // a process in which `kernel` is unknown or another kernel loads it from here on first use. Empty
  // when absent (then such a process refuses the call).
  std::string_view image;
  std::string_view entry;
  std::string_view signature;      // KernelSignature text
  // decode(): how many leading bytes of the opaque hold every field the launch reads (kernel through
  // args), when they come first in encode()'s order; 0 otherwise. Equal leading bytes at the same address
  // mean the same site, so the target decodes a call site once per thread.
  std::size_t fixed_size = 0;

  /// Opaque bytes (cubridge's format, cubridge/xla/opaque.hpp): kernel, fingerprint, grid, block,
  /// shared, args, and image, entry and signature when the site carries its kernel.
  std::string encode() const;
  /// Throws std::invalid_argument naming the entry that is missing, of the wrong kind or out of range.
  /// The result views `opaque`, which must outlive it.
  static KernelCallSite decode(std::string_view opaque);
};

/// Every kernel registered for kernel_call in this process. Kernels stay loaded for the life of the
/// process: XLA may replay a captured CUDA graph that launches them at any time.
class KernelCallTable {
 public:
  struct Registered {
    std::int64_t id = 0;
    std::uint64_t fingerprint = 0;
  };

  static KernelCallTable& global();

  /// Loads `image` (PTX, cubin, fatbin) into the primary context of every device and finds `entry`
  /// there, so no module is loaded while XLA captures a CUDA graph. The same image, entry and
  /// signature get the same id back. Throws CudaError / std::invalid_argument naming the device.
  Registered add(std::span<const std::byte> image, const std::string& entry,
                 std::shared_ptr<const KernelSignature> signature);
  /// The image, entry name and signature text registered under `id`, for a portable call site (the
  /// views live as long as the process); nothing for an id not registered here.
  struct Source {
    std::string_view image;
    std::string_view entry;
    std::string signature;
  };
  std::optional<Source> source(std::int64_t id) const;
  /// Validates `config` against the kernel on every device and opts in to its dynamic shared memory
  /// now (not while XLA captures). Throws std::invalid_argument as Kernel::validate does.
  void prepare(std::int64_t id, const LaunchConfig& config);
  /// The target's work: decodes `opaque`, finds the kernel loaded in the context of `stream` (by id, else
  /// by fingerprint, else loading the kernel the site carries), writes `buffers` into the packed
  /// arguments and launches on `stream`. Throws on any mismatch.
  void launch(CUstream_st* stream, void** buffers, std::string_view opaque);

  std::size_t size() const;

  KernelCallTable(const KernelCallTable&) = delete;
  KernelCallTable& operator=(const KernelCallTable&) = delete;

 private:
  KernelCallTable() = default;
  struct State;
  State& state() const;
};

/// FNV-1a over the image, the entry name and the signature's text: a call site compiled in another
/// process (a persistent compilation cache) whose id names another kernel here is refused.
std::uint64_t kernel_fingerprint(std::span<const std::byte> image, std::string_view entry,
                                 const KernelSignature& signature) noexcept;

}  // namespace cubridge::xla

/// The classic GPU target (api version 2) behind `cubridge_kernel_call`; failures (a bad opaque, an
/// unknown kernel, a launch error) are reported through `status`, so they surface as the Python
/// exception of the jitted call.
extern "C" void cubridge_kernel_call_gpu(CUstream_st* stream, void** buffers, const char* opaque,
                                         std::size_t opaque_len, XlaCustomCallStatus* status);
