// Which manager serves each context: the process-wide choice (set_memory_manager, or the
// CUBRIDGE_MEMORY_MANAGER environment variable) and one manager per context, plus the allocation
// entry point the rest of cubridge uses. Implements: EMM v1 "set_memory_manager", "one manager per
// context", the environment variable, and statistics.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cubridge/driver/context.hpp"
#include "cubridge/driver/stream.hpp"
#include "cubridge/c/memory_plugin.h"
#include "cubridge/memory/manager.hpp"

namespace cubridge::memory {

using ManagerFactory = std::function<std::shared_ptr<MemoryManager>(std::shared_ptr<Context>)>;

/// The environment variable that chooses the manager: "default", "caching", "async", a path to a
/// plugin library (contains '/' or ends in ".so"), or a Python module name (the Python package loads those).
inline constexpr const char* kManagerEnvironmentVariable = "CUBRIDGE_MEMORY_MANAGER";

/// Chooses the manager for contexts whose manager is created from now on (contexts already served
/// keep theirs until close_all()). Returns false, changing nothing, when CUBRIDGE_MEMORY_MANAGER is
/// set and `from_environment` is false: the variable wins (the caller warns).
bool set_memory_manager(ManagerFactory factory, std::string description, bool from_environment = false);
/// A built-in manager by name: "default", "caching" or "async"; std::invalid_argument otherwise.
ManagerFactory builtin_manager(const std::string& name);
/// A factory from a plugin library (include/cubridge/c/memory_plugin.h); throws std::runtime_error
/// naming the path and the dlerror text, or the version it found.
ManagerFactory load_plugin_library(const std::string& path);
/// Checks the two entry points of a C plugin and wraps them (what load_plugin_library does after dlsym).
ManagerFactory c_plugin_factory(cubridge_memory_plugin_interface_version_fn version,
                                cubridge_memory_plugin_create_fn create, const std::string& origin);
/// Description of the current choice ("default", "caching", "python:pkg.Manager", a library path).
std::string memory_manager_description();
bool memory_manager_set_by_environment();

/// The manager of `context`, created (and initialize()d with the context current) on first use.
/// Throws CudaError when the context was closed.
std::shared_ptr<MemoryManager> manager_for(const std::shared_ptr<Context>& context);

/// The allocation entry point for the rest of cubridge: `bytes` of device memory in `context` from
/// its manager, on `stream` when the manager is stream-aware. The memory is given back when the
/// last shared_ptr dies. 0 bytes gives a null pointer without asking the manager. Throws
/// OutOfMemory, CudaError, or std::runtime_error naming a plugin that returned no or too small memory.
std::shared_ptr<MemoryPointer> allocate(const std::shared_ptr<Context>& context, std::size_t bytes,
                                        StreamRef stream);
std::shared_ptr<MemoryPointer> allocate(const std::shared_ptr<Context>& context, std::size_t bytes);

struct ManagerStats {
  int device = 0;
  std::string manager;
  MemoryStats::Snapshot counts;
  PendingFrees::Snapshot pending;
};
/// One entry per live context that has a manager.
std::vector<ManagerStats> memory_stats();

/// Tests: forget the choice and every manager (does not touch contexts).
void reset_registry_for_testing();

}  // namespace cubridge::memory
