// Thread stress (issue 13) of the memory layer: 16 threads allocate, write, check and free through the
// registry at once, each on its own stream, while reading the statistics, with each built-in manager. No
// two live allocations may overlap (each thread checks its blocks still hold what it wrote), and the
// counters must come back to zero with every allocation counted once.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cubridge/driver/stream.hpp"
#include "cubridge/memory.hpp"
#include "on_threads.hpp"

using namespace cubridge;
using namespace cubridge::memory;
using cubridge::testing::kStressThreads;
using cubridge::testing::on_threads;

namespace {

constexpr int kRounds = 2000;

class ManagerThreads : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    Context::close_all();
    reset_registry_for_testing();
    ASSERT_TRUE(set_memory_manager(builtin_manager(GetParam()), GetParam()));
  }
  void TearDown() override {
    Context::close_all();
    reset_registry_for_testing();
  }
};

// Under the stand-in a device pointer is a host address, so the test reads and writes it directly.
unsigned char* bytes_of(const std::shared_ptr<MemoryPointer>& p) {
  return reinterpret_cast<unsigned char*>(p->device_pointer());
}

}  // namespace

TEST_P(ManagerThreads, AllocateWriteFreeFromSixteenThreads) {
  auto ctx = Context::primary(Device(0));
  auto failures = on_threads([&](int t) {
    Stream stream(ctx);
    std::vector<std::shared_ptr<MemoryPointer>> live;
    const auto mark = static_cast<unsigned char>(t + 1);
    for (int round = 0; round < kRounds; ++round) {
      const std::size_t size = 64 + static_cast<std::size_t>((round * 97 + t * 31) % 4096);
      auto p = round % 2 ? allocate(ctx, size, stream.ref()) : allocate(ctx, size);
      if (p->size() < size) throw std::runtime_error("got " + std::to_string(p->size()) + " bytes for " + std::to_string(size));
      std::memset(bytes_of(p), mark, p->size());
      live.push_back(std::move(p));
      if (live.size() == 8) {  // check that nobody else was handed these blocks, then give half back
        for (const auto& q : live)
          for (std::size_t i = 0; i < q->size(); i += 61)
            if (bytes_of(q)[i] != mark) throw std::runtime_error("a block was handed to another thread while live");
        live.erase(live.begin(), live.begin() + 4);
      }
      if (round % 50 == 0) {
        (void)memory_stats();
        (void)manager_for(ctx)->get_memory_info();
      }
    }
  });
  EXPECT_TRUE(failures.empty()) << failures.front();
  auto stats = memory_stats();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].manager, GetParam());
  EXPECT_EQ(stats[0].counts.total_allocations, static_cast<std::size_t>(kStressThreads * kRounds));
  EXPECT_EQ(stats[0].counts.live_allocations, 0u);
  EXPECT_EQ(stats[0].counts.bytes_in_use, 0u);
  EXPECT_GT(stats[0].counts.peak_bytes, 0u);
  manager_for(ctx)->reset();
}

INSTANTIATE_TEST_SUITE_P(Builtin, ManagerThreads, ::testing::Values("default", "caching", "async"),
                         [](const auto& info) { return info.param; });
