// Internal: the caching pool's bins (quarter-power-of-two widths), per-stream free lists and the
// out-of-memory path (synchronise, give the cache back, retry once).
#include "cubridge/memory/caching_pool.hpp"

#include <bit>
#include <utility>

namespace cubridge::memory {

std::size_t CachingPool::block_size(std::size_t bytes) noexcept {
  if (bytes == 0) return 0;
  if (bytes <= kMinBlock) return kMinBlock;
  int e = std::bit_width(bytes - 1);  // 2^(e-1) < bytes <= 2^e, e >= 10
  std::size_t step = std::size_t{1} << (e - 3);
  return (bytes + step - 1) / step * step;
}

std::size_t CachingPool::bin_index(std::size_t bytes) noexcept {
  if (bytes <= kMinBlock) return 0;
  int e = std::bit_width(bytes - 1);
  std::size_t step = std::size_t{1} << (e - 3);
  std::size_t quarter = (bytes + step - 1) / step - 5;  // 0..3: 5/8, 6/8, 7/8, 8/8 of 2^e
  return 1 + static_cast<std::size_t>(e - 10) * 4 + quarter;
}

CachingPool::CachingPool(std::unique_ptr<PoolUpstream> upstream, Options options)
    : upstream_(std::move(upstream)), options_(options) {}

CachingPool::~CachingPool() {
  std::vector<std::pair<std::uintptr_t, std::size_t>> out;
  {
    std::lock_guard lock(mutex_);
    release_locked(out);
  }
  for (auto [p, n] : out) upstream_->deallocate(p, n);
}

CachingPool::StreamBins& CachingPool::bins_for(std::uintptr_t stream) {
  if (last_ != nullptr && last_->stream == stream) return *last_;
  for (auto& s : streams_)
    if (s->stream == stream) return *(last_ = s.get());
  streams_.push_back(std::make_unique<StreamBins>());
  streams_.back()->stream = stream;
  return *(last_ = streams_.back().get());
}

std::uintptr_t CachingPool::allocate(std::size_t bytes, std::uintptr_t stream) {
  if (bytes == 0) return 0;
  std::size_t block = block_size(bytes);
  if (block <= options_.max_cached_block) {
    std::lock_guard lock(mutex_);
    auto& bin = bins_for(stream).bins[bin_index(bytes)];
    if (!bin.empty()) {
      std::uintptr_t p = bin.back();
      bin.pop_back();
      counts_.cached_blocks -= 1;
      counts_.cached_bytes -= block;
      return p;
    }
  } else {
    block = bytes;  // uncached: exactly what was asked for
  }
  std::uintptr_t p = upstream_->allocate(block);
  if (p == 0) {
    // Cached blocks of every stream go back; their last users may still be queued, hence the sync.
    upstream_->synchronize();
    std::vector<std::pair<std::uintptr_t, std::size_t>> out;
    {
      std::lock_guard lock(mutex_);
      release_locked(out);
    }
    for (auto [q, n] : out) upstream_->deallocate(q, n);
    p = upstream_->allocate(block);
    if (p == 0) return 0;
  }
  std::lock_guard lock(mutex_);
  counts_.upstream_bytes += block;
  counts_.upstream_allocations += 1;
  return p;
}

void CachingPool::deallocate(std::uintptr_t pointer, std::size_t bytes, std::uintptr_t stream) noexcept {
  if (pointer == 0) return;
  std::size_t block = block_size(bytes);
  if (block > options_.max_cached_block) {
    upstream_->deallocate(pointer, bytes);
    std::lock_guard lock(mutex_);
    counts_.upstream_bytes -= bytes;
    return;
  }
  std::lock_guard lock(mutex_);
  try {
    bins_for(stream).bins[bin_index(bytes)].push_back(pointer);
  } catch (...) {
    // No memory for the bookkeeping: give the block back instead of losing it.
    counts_.upstream_bytes -= block;
    upstream_->deallocate(pointer, block);
    return;
  }
  counts_.cached_blocks += 1;
  counts_.cached_bytes += block;
}

void CachingPool::release_locked(std::vector<std::pair<std::uintptr_t, std::size_t>>& out) {
  for (auto& s : streams_) {
    for (std::size_t i = 0; i < kBins; ++i) {
      auto& bin = s->bins[i];
      if (bin.empty()) continue;
      // Every block of a bin has the bin's size: recover it from the bin's largest request.
      std::size_t block = i == 0 ? kMinBlock : 0;
      if (i > 0) {
        std::size_t e = (i - 1) / 4 + 10, quarter = (i - 1) % 4;
        block = (std::size_t{1} << (e - 3)) * (5 + quarter);
      }
      for (std::uintptr_t p : bin) out.emplace_back(p, block);
      counts_.upstream_bytes -= block * bin.size();
      bin.clear();
    }
  }
  counts_.cached_blocks = 0;
  counts_.cached_bytes = 0;
}

void CachingPool::release_cached() {
  if (defer_depth_.load() > 0) return;
  std::vector<std::pair<std::uintptr_t, std::size_t>> out;
  {
    std::lock_guard lock(mutex_);
    release_locked(out);
  }
  for (auto [p, n] : out) upstream_->deallocate(p, n);
}

std::shared_ptr<void> CachingPool::defer() {
  defer_depth_.fetch_add(1);
  return std::shared_ptr<void>(this, [](CachingPool* self) { self->defer_depth_.fetch_sub(1); });
}

CachingPool::Snapshot CachingPool::snapshot() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

}  // namespace cubridge::memory
