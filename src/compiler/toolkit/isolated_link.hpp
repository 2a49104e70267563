// Internal: a link run in a child process, for inputs nvJitLink cannot be trusted with in this one
// (trusted_ltoir.hpp says which). The child is a fork() of this process that runs the same link code and
// sends the result (or the LinkError) back through a pipe, then exits; a crash or a hang there becomes a
// LinkError here. fork() without exec: the child touches nothing but nvJitLink and the pipe (no Python, no
// CUDA driver), and link_fork_guard.hpp makes sure nvJitLink is idle when the fork happens.
#pragma once

#include <functional>

#include "cubridge/compiler/linker.hpp"

namespace cubridge::toolkit_detail {

/// The seconds an isolated link may take before its process is killed.
inline constexpr int kIsolatedLinkSeconds = 600;

/// Runs `link` in a child process and returns its result, or rethrows its LinkError (what() and log());
/// a child that dies by a signal or outlives kIsolatedLinkSeconds gives a LinkError naming `inputs`
/// (a description of the untrusted inputs) and what happened.
LinkResult link_in_child(const std::function<LinkResult()>& link, const std::string& inputs);

}  // namespace cubridge::toolkit_detail
