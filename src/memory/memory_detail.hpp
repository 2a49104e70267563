// Internal: helpers shared by the managers (free/total memory, the OOM error).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "cubridge/driver/context.hpp"
#include "cubridge/memory/memory_pointer.hpp"

namespace cubridge::memory::detail {

/// cuMemGetInfo in `context` (made current); {0, 0} when it fails, for error messages.
MemoryInfo memory_info_or_zero(const Context* context) noexcept;
/// Throws OutOfMemory for `size` with the free/total memory of `context`.
[[noreturn]] void throw_out_of_memory(const Context* context, std::size_t size, const std::string& manager,
                                      const char* call);
/// Makes `context` current for the scope's life when there is one (a manager made without a context
/// allocates in whichever is current, as before).
class ScopedContextIfAny {
 public:
  explicit ScopedContextIfAny(const std::shared_ptr<Context>& context) {
    if (context) scope_.emplace(*context);
  }

 private:
  std::optional<ScopedContext> scope_;
};
/// Runs `fn` with the context current when it is still valid; swallows errors (finalizers).
template <class Fn>
void in_valid_context(const std::shared_ptr<Context>& context, Fn&& fn) noexcept {
  if (!context || !context->valid()) return;  // close() reset the context: the memory died with it
  try {
    ScopedContext scope(*context);
    fn();
  } catch (...) {
  }
}

}  // namespace cubridge::memory::detail
