// Internal (tests): run one body on many threads released together, for the thread-stress tests (issue
// 13). Threads start at once (each waits until all exist) so that they really contend.
#pragma once

#include <atomic>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace cubridge::testing {

inline constexpr int kStressThreads = 16;

/// Runs body(thread_index) on kStressThreads threads started together; returns the what() of each
/// exception a thread's body threw (empty when every thread finished).
template <class Body>
std::vector<std::string> on_threads(Body body) {
  std::atomic<int> ready{0};
  std::vector<std::string> failures(kStressThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kStressThreads; ++t)
    threads.emplace_back([&, t] {
      ++ready;
      while (ready.load() < kStressThreads) std::this_thread::yield();
      try {
        body(t);
      } catch (const std::exception& e) {
        failures[static_cast<std::size_t>(t)] = "thread " + std::to_string(t) + ": " + e.what();
      }
    });
  for (auto& th : threads) th.join();
  std::vector<std::string> out;
  for (auto& f : failures)
    if (!f.empty()) out.push_back(f);
  return out;
}

}  // namespace cubridge::testing
