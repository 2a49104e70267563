// Exceptions raised in kernels compiled with debug=True, reported on the host as numba-cuda reports them.
// Implements: numba-cuda's debug-mode launch (dispatcher.py _Kernel.launch): the kernel's module holds
// the i32 globals "<kernel>__errcode__", "<kernel>__tid{x,y,z}__" and "<kernel>__ctaid{x,y,z}__"; the
// launch zeroes the status, and after it the first raising thread's status and position are read back.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <cuda.h>

#include "cubridge/driver/stream.hpp"
#include "cubridge/error.hpp"

namespace cubridge {

class Module;

/// A debug=True kernel raised: `code` is the raise site's status (the compiler's RaiseSite::code),
/// `tid` and `ctaid` the raising thread's threadIdx and blockIdx (x, y, z). what() says all of it.
class KernelRaised : public std::runtime_error, public Error {
 public:
  KernelRaised(const std::string& kernel, int code, std::array<int, 3> tid, std::array<int, 3> ctaid);
  int code() const noexcept { return code_; }
  const std::array<int, 3>& tid() const noexcept { return tid_; }
  const std::array<int, 3>& ctaid() const noexcept { return ctaid_; }

 private:
  int code_;
  std::array<int, 3> tid_, ctaid_;
};

/// The status globals of one kernel.
class RaiseRecord {
 public:
  /// The record of kernel `name`, or nullopt when the module has no "<name>__errcode__" (code compiled
  /// without debug=True). The module's context must be current.
  static std::optional<RaiseRecord> find(const Module& module, const std::string& name);
  /// Before a launch: zeroes the status on `stream`.
  void reset(StreamRef stream) const;
  /// After the launch: waits for `stream` and throws KernelRaised when a thread raised.
  void check(StreamRef stream) const;

 private:
  std::string kernel_;
  CUdeviceptr errcode_ = 0;
  std::array<CUdeviceptr, 3> tid_{}, ctaid_{};
};

}  // namespace cubridge
