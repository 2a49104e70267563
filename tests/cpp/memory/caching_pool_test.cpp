// CachingPool with a fake upstream: binning, per-stream reuse, OOM recovery, deferral, threads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include "cubridge/memory/caching_pool.hpp"

using cubridge::memory::CachingPool;
using cubridge::memory::PoolUpstream;

namespace {
struct FakeState {
  std::mutex m;
  std::set<std::uintptr_t> live;
  std::size_t bytes = 0, limit = SIZE_MAX, allocs = 0, frees = 0, syncs = 0;
  std::uintptr_t next = 0x10000;
};
class FakeUpstream : public PoolUpstream {
 public:
  explicit FakeUpstream(std::shared_ptr<FakeState> s) : s_(std::move(s)) {}
  std::uintptr_t allocate(std::size_t bytes) override {
    std::lock_guard l(s_->m);
    if (s_->bytes + bytes > s_->limit) return 0;
    std::uintptr_t p = s_->next;
    s_->next += bytes + 4096;
    s_->live.insert(p);
    s_->bytes += bytes;
    ++s_->allocs;
    return p;
  }
  void deallocate(std::uintptr_t p, std::size_t bytes) noexcept override {
    std::lock_guard l(s_->m);
    EXPECT_EQ(s_->live.erase(p), 1u) << "double or foreign free";
    s_->bytes -= bytes;
    ++s_->frees;
  }
  void synchronize() override { ++s_->syncs; }

 private:
  std::shared_ptr<FakeState> s_;
};
}  // namespace

TEST(CachingPool, BlockSizesWasteAtMostAQuarter) {
  EXPECT_EQ(CachingPool::block_size(0), 0u);
  EXPECT_EQ(CachingPool::block_size(1), 512u);
  EXPECT_EQ(CachingPool::block_size(512), 512u);
  EXPECT_EQ(CachingPool::block_size(513), 640u);
  EXPECT_EQ(CachingPool::block_size(1024), 1024u);
  EXPECT_EQ(CachingPool::block_size(1025), 1280u);
  EXPECT_EQ(CachingPool::block_size(1 << 20), std::size_t{1} << 20);
  for (std::size_t n = 1; n < (1u << 22); n = n * 3 / 2 + 7) {
    std::size_t b = CachingPool::block_size(n);
    ASSERT_GE(b, n);
    if (n > 512) {
      ASSERT_LE(b - n, n / 4 + 1) << n;
    }
    ASSERT_EQ(CachingPool::block_size(b), b);
    ASSERT_EQ(CachingPool::bin_index(b), CachingPool::bin_index(n));
    ASSERT_LT(CachingPool::bin_index(n), CachingPool::kBins);
  }
  EXPECT_LT(CachingPool::bin_index(SIZE_MAX), CachingPool::kBins);
  EXPECT_NE(CachingPool::bin_index(1024), CachingPool::bin_index(1025));
}

TEST(CachingPool, ReusesFreedBlocksWithoutTheUpstream) {
  auto s = std::make_shared<FakeState>();
  {
    CachingPool pool(std::make_unique<FakeUpstream>(s), {});
    auto a = pool.allocate(1000, 0);
    pool.deallocate(a, 1000, 0);
    auto b = pool.allocate(1010, 0);  // same bin (1024)
    EXPECT_EQ(a, b);
    EXPECT_EQ(s->allocs, 1u);
    auto c = pool.allocate(1000, 0);
    EXPECT_NE(c, b);
    pool.deallocate(b, 1010, 0);
    pool.deallocate(c, 1000, 0);
    EXPECT_EQ(pool.snapshot().cached_blocks, 2u);
    EXPECT_EQ(pool.snapshot().cached_bytes, 2048u);
    EXPECT_EQ(pool.snapshot().upstream_bytes, 2048u);
  }
  EXPECT_TRUE(s->live.empty());  // the destructor gives the cache back
}

TEST(CachingPool, BlocksStayWithTheirStream) {
  auto s = std::make_shared<FakeState>();
  CachingPool pool(std::make_unique<FakeUpstream>(s), {});
  auto a = pool.allocate(4096, 7);
  pool.deallocate(a, 4096, 7);
  auto b = pool.allocate(4096, 8);
  EXPECT_NE(a, b);
  auto c = pool.allocate(4096, 7);
  EXPECT_EQ(a, c);
  pool.deallocate(b, 4096, 8);
  pool.deallocate(c, 4096, 7);
}

TEST(CachingPool, OutOfMemoryGivesTheCacheBackAndRetriesOnce) {
  auto s = std::make_shared<FakeState>();
  s->limit = 3000;
  CachingPool pool(std::make_unique<FakeUpstream>(s), {});
  auto a = pool.allocate(2000, 1);  // block 2048
  pool.deallocate(a, 2000, 1);
  auto b = pool.allocate(2500, 2);  // 2560: fits only after the cached 2048 goes back
  EXPECT_NE(b, 0u);
  EXPECT_EQ(s->syncs, 1u);
  EXPECT_EQ(pool.snapshot().cached_blocks, 0u);
  EXPECT_EQ(pool.allocate(2048, 2), 0u);  // still out of memory: 0, not a throw
  pool.deallocate(b, 2500, 2);
}

TEST(CachingPool, LargeBlocksBypassTheCache) {
  auto s = std::make_shared<FakeState>();
  CachingPool pool(std::make_unique<FakeUpstream>(s), CachingPool::Options{4096});
  auto a = pool.allocate(5000, 0);
  pool.deallocate(a, 5000, 0);
  EXPECT_EQ(s->frees, 1u);
  EXPECT_EQ(pool.snapshot().cached_blocks, 0u);
  EXPECT_EQ(pool.snapshot().upstream_bytes, 0u);
}

TEST(CachingPool, ReleaseCachedWaitsForDeferral) {
  auto s = std::make_shared<FakeState>();
  CachingPool pool(std::make_unique<FakeUpstream>(s), {});
  auto a = pool.allocate(100, 0);
  pool.deallocate(a, 100, 0);
  {
    auto g1 = pool.defer();
    auto g2 = pool.defer();
    pool.release_cached();
    EXPECT_EQ(s->frees, 0u);
  }
  pool.release_cached();
  EXPECT_EQ(s->frees, 1u);
  EXPECT_TRUE(s->live.empty());
}

TEST(CachingPool, ThreadsAllocatingAndFreeing) {
  auto s = std::make_shared<FakeState>();
  {
    CachingPool pool(std::make_unique<FakeUpstream>(s), {});
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        std::vector<std::pair<std::uintptr_t, std::size_t>> held;
        for (int i = 0; i < 20000; ++i) {
          std::size_t n = 64 + static_cast<std::size_t>((i * 7919 + t) % 100000);
          held.emplace_back(pool.allocate(n, static_cast<std::uintptr_t>(t % 3)), n);
          if (held.size() > 16) {
            auto [p, m] = held.front();
            held.erase(held.begin());
            pool.deallocate(p, m, static_cast<std::uintptr_t>(t % 3));
          }
        }
        for (auto [p, m] : held) pool.deallocate(p, m, static_cast<std::uintptr_t>(t % 3));
      });
    for (auto& t : threads) t.join();
    EXPECT_EQ(pool.snapshot().cached_bytes, pool.snapshot().upstream_bytes);
  }
  EXPECT_TRUE(s->live.empty());
}

TEST(CachingPool, MillionPairsStayFlat) {
  auto s = std::make_shared<FakeState>();
  CachingPool pool(std::make_unique<FakeUpstream>(s), {});
  for (int i = 0; i < 1000000; ++i) pool.deallocate(pool.allocate(1 << 20, 0), 1 << 20, 0);
  EXPECT_EQ(s->allocs, 1u);
  EXPECT_EQ(s->bytes, std::size_t{1} << 20);
}
