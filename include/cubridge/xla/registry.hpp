// The process-wide registry of classic custom-call targets, keyed by (name, platform).
// Implements: XLA "Custom calls" target registration (XLA_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM
// semantics: one function per name and platform; "Host" and "CUDA" are the platforms).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cubridge/c/xla_custom_call.h"

namespace cubridge::xla {

enum class Platform : int { host = CUBRIDGE_XLA_PLATFORM_HOST, cuda = CUBRIDGE_XLA_PLATFORM_CUDA };

/// "Host" / "cpu" → host, "CUDA" / "cuda" / "gpu" → cuda; throws std::invalid_argument naming the
/// value and the accepted spellings.
Platform parse_platform(std::string_view name);
/// XLA's name of the platform: "Host" or "CUDA".
const char* platform_name(Platform platform) noexcept;

/// A classic target: its function and the API version that fixes its signature.
struct Target {
  std::string name;
  Platform platform = Platform::host;
  int api_version = 2;                 // 1, 2 or 3 (see cubridge/c/xla_custom_call.h)
  void (*function)(void) = nullptr;
  bool command_buffer_compatible = true;  // GPU only: XLA may capture the call in a CUDA graph
};

/// Validates a descriptor as exported by CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET; throws
/// std::invalid_argument naming the bad field and what is accepted.
Target target_from_descriptor(const CubridgeXlaTargetDescriptor& descriptor);

class Registry {
 public:
  /// The one registry of this process (of this copy of cubridge_core).
  static Registry& global();

  /// Adds a target. Throws std::invalid_argument for an empty name, a null function, an api_version
  /// outside 1..3, or a (name, platform) that is already registered (the message names both).
  void add(const Target& target);
  /// The target registered under (name, platform), if any.
  std::optional<Target> find(std::string_view name, Platform platform) const;
  std::vector<Target> targets() const;
  /// Messages of registrations that failed where nobody could be told (the macro, at start-up).
  std::vector<std::string> rejected() const;
  void note_rejected(std::string message);

  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

 private:
  Registry() = default;
  struct State;
  State& state() const;
};

}  // namespace cubridge::xla
