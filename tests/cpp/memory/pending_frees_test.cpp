// PendingFrees: Numba's thresholds, defer nesting, thread safety, environment limits.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include "cubridge/memory/pending_frees.hpp"

using cubridge::memory::PendingFrees;
using cubridge::memory::PendingFreesLimits;

TEST(PendingFrees, FlushesWhenMoreThanCountArePending) {
  PendingFrees q(1 << 30, PendingFreesLimits{10, 0.2});
  int freed = 0;
  for (int i = 0; i < 10; ++i) q.add([&] { ++freed; }, 1);
  EXPECT_EQ(freed, 0);  // 10 is not "more than 10"
  EXPECT_EQ(q.snapshot().count, 10u);
  q.add([&] { ++freed; }, 1);
  EXPECT_EQ(freed, 11);
  EXPECT_EQ(q.snapshot().count, 0u);
  EXPECT_EQ(q.snapshot().bytes, 0u);
}

TEST(PendingFrees, FlushesWhenBytesExceedRatioOfTotal) {
  PendingFrees q(1000, PendingFreesLimits{10, 0.2});
  EXPECT_EQ(q.max_pending_bytes(), 200u);
  int freed = 0;
  q.add([&] { ++freed; }, 200);
  EXPECT_EQ(freed, 0);  // equal is not above
  q.add([&] { ++freed; }, 1);
  EXPECT_EQ(freed, 2);
}

TEST(PendingFrees, DeferNestsAndSuspendsFlushing) {
  PendingFrees q(1000, PendingFreesLimits{0, 0.2});
  int freed = 0;
  {
    auto outer = q.defer();
    {
      auto inner = q.defer();
      q.add([&] { ++freed; }, 1);
      q.flush();
    }
    EXPECT_TRUE(q.deferred());
    q.add([&] { ++freed; }, 1);
    EXPECT_EQ(freed, 0);
  }
  EXPECT_FALSE(q.deferred());
  EXPECT_EQ(q.snapshot().count, 2u);  // flushed on the next add or flush, not by the guard
  q.flush();
  EXPECT_EQ(freed, 2);
}

TEST(PendingFrees, ThrowingReleaseDoesNotStopOthers) {
  PendingFrees q(1000, PendingFreesLimits{100, 1.0});
  int freed = 0;
  q.add([] { throw std::runtime_error("boom"); }, 1);
  q.add([&] { ++freed; }, 1);
  q.flush();
  EXPECT_EQ(freed, 1);
  EXPECT_EQ(q.snapshot().count, 0u);
}

TEST(PendingFrees, ThreadsNeitherLoseNorDoubleFree) {
  auto q = std::make_shared<PendingFrees>(1 << 20, PendingFreesLimits{10, 0.2});
  constexpr int kThreads = 8, kPerThread = 5000;
  std::vector<std::atomic<int>> freed(kThreads * kPerThread);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        int id = t * kPerThread + i;
        if (i % 100 == 0) {
          auto g = q->defer();
          q->add([&freed, id] { freed[id].fetch_add(1); }, 16);
        } else {
          q->add([&freed, id] { freed[id].fetch_add(1); }, 16);
        }
      }
    });
  for (auto& t : threads) t.join();
  q->flush();
  for (auto& f : freed) ASSERT_EQ(f.load(), 1);
}

TEST(PendingFrees, LimitsFromEnvironment) {
  setenv("CUBRIDGE_MAX_PENDING_DEALLOCS_COUNT", "3", 1);
  setenv("CUBRIDGE_MAX_PENDING_DEALLOCS_RATIO", "0.5", 1);
  auto l = PendingFreesLimits::from_environment();
  EXPECT_EQ(l.max_count, 3u);
  EXPECT_DOUBLE_EQ(l.max_ratio, 0.5);
  setenv("CUBRIDGE_MAX_PENDING_DEALLOCS_COUNT", "ten", 1);
  try {
    PendingFreesLimits::from_environment();
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("CUBRIDGE_MAX_PENDING_DEALLOCS_COUNT='ten' is not a count"), std::string::npos);
  }
  unsetenv("CUBRIDGE_MAX_PENDING_DEALLOCS_COUNT");
  setenv("CUBRIDGE_MAX_PENDING_DEALLOCS_RATIO", "1.5", 1);
  try {
    PendingFreesLimits::from_environment();
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'1.5' is not a fraction of device memory (accepted: a number in [0, 1]"),
              std::string::npos);
  }
  unsetenv("CUBRIDGE_MAX_PENDING_DEALLOCS_RATIO");
  auto d = PendingFreesLimits::from_environment();
  EXPECT_EQ(d.max_count, 10u);
  EXPECT_DOUBLE_EQ(d.max_ratio, 0.2);
}
