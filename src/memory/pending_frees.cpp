// Internal: the pending-frees queue (Numba's _PendingDeallocs rules) and its environment limits.
#include "cubridge/memory/pending_frees.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>
#include "cubridge/error.hpp"

namespace cubridge::memory {

namespace {
const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? v : nullptr;
}
}  // namespace

PendingFreesLimits PendingFreesLimits::from_environment() {
  PendingFreesLimits limits;
  if (const char* v = env("CUBRIDGE_MAX_PENDING_DEALLOCS_COUNT")) {
    char* end = nullptr;
    long long n = std::strtoll(v, &end, 10);
    if (*end != '\0' || n < 0)
      throw cubridge::InvalidArgument(std::string("CUBRIDGE_MAX_PENDING_DEALLOCS_COUNT='") + v +
                                  "' is not a count (accepted: an integer >= 0, default 10)");
    limits.max_count = static_cast<std::size_t>(n);
  }
  if (const char* v = env("CUBRIDGE_MAX_PENDING_DEALLOCS_RATIO")) {
    char* end = nullptr;
    double r = std::strtod(v, &end);
    if (*end != '\0' || !(r >= 0.0 && r <= 1.0))
      throw cubridge::InvalidArgument(std::string("CUBRIDGE_MAX_PENDING_DEALLOCS_RATIO='") + v +
                                  "' is not a fraction of device memory (accepted: a number in [0, 1], default 0.2)");
    limits.max_ratio = r;
  }
  return limits;
}

PendingFrees::PendingFrees(std::size_t total_memory, PendingFreesLimits limits)
    : limits_(limits), max_bytes_(static_cast<std::size_t>(static_cast<double>(total_memory) * limits.max_ratio)) {}

void PendingFrees::add(Release release, std::size_t size) {
  bool over = false;
  {
    std::lock_guard lock(mutex_);
    items_.push_back({std::move(release), size});
    bytes_ += size;
    over = items_.size() > limits_.max_count || bytes_ > max_bytes_;
  }
  if (over) flush();
}

void PendingFrees::flush() {
  if (deferred()) return;
  std::vector<Item> taken;
  {
    std::lock_guard lock(mutex_);
    if (deferred()) return;  // a guard appeared while we waited for the lock
    taken.swap(items_);
    bytes_ = 0;
  }
  for (auto& item : taken) {
    try {
      item.release();
    } catch (...) {
      // Dropped: retrying could free twice, and the caller of flush() did not cause it.
    }
  }
}

std::shared_ptr<void> PendingFrees::defer() {
  defer_depth_.fetch_add(1);
  // The guard only decrements: the queue is flushed by the next add() or OOM, as in Numba.
  std::shared_ptr<PendingFrees> keep = weak_from_this().lock();
  return std::shared_ptr<void>(this, [keep](PendingFrees* self) { self->defer_depth_.fetch_sub(1); });
}

PendingFrees::Snapshot PendingFrees::snapshot() const {
  std::lock_guard lock(mutex_);
  return {items_.size(), bytes_};
}

}  // namespace cubridge::memory
