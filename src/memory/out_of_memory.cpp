// Internal: the OutOfMemory message (size asked for, free/total, device, manager).
#include "cubridge/memory/out_of_memory.hpp"

#include <cstdio>

namespace cubridge {

namespace {
std::string mib(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}
std::string message(std::size_t requested, std::size_t free, std::size_t total, int device,
                    const std::string& manager) {
  return "out of memory: cannot allocate " + std::to_string(requested) + " bytes (" + mib(requested) +
         ") on device " + std::to_string(device) + " with the " + manager + " memory manager: " +
         std::to_string(free) + " bytes (" + mib(free) + ") free of " + std::to_string(total) + " bytes (" +
         mib(total) + ") total";
}
}  // namespace

OutOfMemory::OutOfMemory(std::size_t requested, std::size_t free, std::size_t total, int device,
                         const std::string& manager, const std::string& call)
    : CudaError(FullMessage{}, message(requested, free, total, device, manager), 2, "CUDA_ERROR_OUT_OF_MEMORY",
                "out of memory", call),
      requested_(requested),
      free_(free),
      total_(total) {}

}  // namespace cubridge
