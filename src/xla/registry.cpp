// Internal: the process-wide registry of classic targets, and its C entry point.
#include "cubridge/xla/registry.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "cubridge/xla/custom_call.h"
#include "cubridge/error.hpp"

namespace cubridge::xla {

Platform parse_platform(std::string_view name) {
  if (name == "Host" || name == "cpu" || name == "host") return Platform::host;
  if (name == "CUDA" || name == "cuda" || name == "gpu") return Platform::cuda;
  throw cubridge::InvalidArgument("xla platform '" + std::string(name) +
                              "' is not known: use 'Host' (or 'cpu') or 'CUDA' (or 'cuda', 'gpu')");
}

const char* platform_name(Platform platform) noexcept {
  return platform == Platform::cuda ? "CUDA" : "Host";
}

Target target_from_descriptor(const CubridgeXlaTargetDescriptor& d) {
  if (d.version != CUBRIDGE_XLA_TARGET_DESCRIPTOR_VERSION) {
    throw cubridge::InvalidArgument("xla target descriptor version " + std::to_string(d.version) +
                                " is not supported: this cubridge reads version " +
                                std::to_string(CUBRIDGE_XLA_TARGET_DESCRIPTOR_VERSION));
  }
  std::string name = d.name != nullptr ? d.name : "";
  if (d.platform == -CUBRIDGE_XLA_PLATFORM_HOST || d.platform == -CUBRIDGE_XLA_PLATFORM_CUDA) {
    bool gpu_signature = d.platform == -CUBRIDGE_XLA_PLATFORM_CUDA;
    throw cubridge::InvalidArgument(
        "xla target '" + name + "': its signature is a " + (gpu_signature ? "GPU" : "CPU") +
        " one but the platform is '" + (gpu_signature ? "Host" : "CUDA") + "': register it for '" +
        (gpu_signature ? "CUDA" : "Host") + "'");
  }
  if (d.platform != CUBRIDGE_XLA_PLATFORM_HOST && d.platform != CUBRIDGE_XLA_PLATFORM_CUDA) {
    throw cubridge::InvalidArgument("xla target '" + name + "': platform code " +
                                std::to_string(d.platform) +
                                " is not known: use \"Host\" or \"CUDA\"");
  }
  if ((d.flags & ~CUBRIDGE_XLA_TARGET_NOT_COMMAND_BUFFER_COMPATIBLE) != 0) {
    throw cubridge::InvalidArgument("xla target '" + name + "': flags " + std::to_string(d.flags) +
                                " has unknown bits: only CUBRIDGE_XLA_TARGET_NOT_COMMAND_BUFFER_"
                                "COMPATIBLE (1) is defined");
  }
  Target t;
  t.name = std::move(name);
  t.platform = static_cast<Platform>(d.platform);
  t.api_version = d.api_version;
  t.function = d.function;
  t.command_buffer_compatible = (d.flags & CUBRIDGE_XLA_TARGET_NOT_COMMAND_BUFFER_COMPATIBLE) == 0;
  return t;
}

struct Registry::State {
  mutable std::mutex mutex;
  std::vector<Target> targets;
  std::vector<std::string> rejected;
};

Registry& Registry::global() {
  static Registry registry;
  return registry;
}

Registry::State& Registry::state() const {
  // The constructor is private and global() makes the only Registry, so the state can be static.
  static State state;
  return state;
}

void Registry::add(const Target& target) {
  if (target.name.empty()) throw cubridge::InvalidArgument("xla target name is empty: give a name");
  if (target.function == nullptr) {
    throw cubridge::InvalidArgument("xla target '" + target.name + "': the function pointer is null");
  }
  if (target.api_version < 1 || target.api_version > 3) {
    throw cubridge::InvalidArgument("xla target '" + target.name + "': api_version " +
                                std::to_string(target.api_version) +
                                " is not one of 1, 2, 3 (the classic custom-call API versions)");
  }
  State& s = state();
  std::lock_guard lock(s.mutex);
  for (const Target& t : s.targets) {
    if (t.name == target.name && t.platform == target.platform) {
      throw cubridge::InvalidArgument("xla target '" + target.name + "' is already registered for " +
                                  platform_name(target.platform) +
                                  ": a (name, platform) pair can be registered once");
    }
  }
  s.targets.push_back(target);
}

std::optional<Target> Registry::find(std::string_view name, Platform platform) const {
  State& s = state();
  std::lock_guard lock(s.mutex);
  for (const Target& t : s.targets) {
    if (t.name == name && t.platform == platform) return t;
  }
  return std::nullopt;
}

std::vector<Target> Registry::targets() const {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.targets;
}

std::vector<std::string> Registry::rejected() const {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.rejected;
}

void Registry::note_rejected(std::string message) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.rejected.push_back(std::move(message));
}

}  // namespace cubridge::xla

extern "C" int cubridge_xla_register_target(const CubridgeXlaTargetDescriptor* target, char* error,
                                            size_t error_len) {
  using cubridge::xla::Registry;
  std::string message;
  try {
    if (target == nullptr) throw cubridge::InvalidArgument("xla target descriptor is null");
    Registry::global().add(cubridge::xla::target_from_descriptor(*target));
    return 0;
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "xla target registration failed with an unknown exception";
  }
  try {
    Registry::global().note_rejected(message);
  } catch (...) {
  }
  if (error != nullptr && error_len > 0) {
    std::size_t n = std::min(error_len - 1, message.size());
    std::memcpy(error, message.data(), n);
    error[n] = '\0';
  }
  return -1;
}
