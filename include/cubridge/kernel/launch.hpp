// Launching a kernel on packed arguments with the CUDA Array Interface's stream rules: the explicit
// stream, else the arrays' stream; producers on other streams ordered both ways with events, never
// by a host-wide synchronize. Implements: CAI v3 "stream" consumer synchronisation for kernel launches.
#pragma once

#include <optional>

#include "cubridge/driver/stream.hpp"
#include "cubridge/kernel/argument_pack.hpp"
#include "cubridge/kernel/kernel.hpp"
#include "cubridge/kernel/launch_config.hpp"

namespace cubridge {

/// The stream a launch runs on: config.stream if set, else the first array's producer stream
/// (among those that synchronise), else config.default_stream.
StreamRef launch_stream(const LaunchConfig& config, const ArgumentPack& args);

/// Checks completeness, the arrays' devices against the kernel's, and the configuration; orders the
/// launch stream after each distinct producer stream, launches, and orders those producer streams
/// after the launch. Returns the stream used. Throws before launching on any bad input. `stream`, when
/// given, is launch_stream(config, args) as the caller already chose it (it is not chosen again).
StreamRef launch(Kernel& kernel, const LaunchConfig& config, ArgumentPack& args,
                 std::optional<StreamRef> stream = std::nullopt);

}  // namespace cubridge
