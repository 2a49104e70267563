// The out-of-memory error every manager raises once its recovery (flush pending frees, retry once)
// failed. Implements: EMM v1 "memalloc" failure, with the size asked for and the free/total memory.
#pragma once

#include <cstddef>
#include <string>

#include "cubridge/driver/error.hpp"

namespace cubridge {

/// what(): "out of memory: cannot allocate N bytes (X MiB) on device D with <manager>: F bytes free of
/// T bytes total". code() is CUDA_ERROR_OUT_OF_MEMORY (2). Python: cubridge.OutOfMemory (also a MemoryError).
class OutOfMemory : public CudaError {
 public:
  OutOfMemory(std::size_t requested, std::size_t free, std::size_t total, int device,
              const std::string& manager, const std::string& call);
  std::size_t requested() const noexcept { return requested_; }
  std::size_t free_bytes() const noexcept { return free_; }
  std::size_t total_bytes() const noexcept { return total_; }

 private:
  std::size_t requested_, free_, total_;
};

}  // namespace cubridge
