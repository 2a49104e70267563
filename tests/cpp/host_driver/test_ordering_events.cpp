// The events that order a launch after a producer's stream (stream_order.cpp) are kept by their primary
// context and used again (Context::take_spare_event / keep_spare_event): one event serves any number of
// orderings on a thread; threads never share one at once; a closed context keeps none, and its successor
// starts with none; a context cubridge does not hold keeps nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <vector>

#include "cubridge/array/array_view.hpp"
#include "cubridge/array/stream_order.hpp"
#include "cubridge/driver/context.hpp"
#include "cubridge/driver/stream.hpp"
#include "driver/driver_api.hpp"
#include "on_threads.hpp"

using namespace cubridge;
using cubridge::testing::kStressThreads;
using cubridge::testing::on_threads;

namespace {

std::atomic<int> g_created{0};
CUresult (*g_real_create)(CUevent*, unsigned) = nullptr;

CUresult counting_create(CUevent* e, unsigned flags) {
  ++g_created;
  return g_real_create(e, flags);
}

/// Counts cuEventCreate calls for the scope.
class CountedEventCreation {
 public:
  CountedEventCreation() {
    auto& api = driver::mutable_api_for_testing();
    g_real_create = api.cuEventCreate;
    api.cuEventCreate = &counting_create;
    g_created = 0;
  }
  ~CountedEventCreation() { driver::mutable_api_for_testing().cuEventCreate = g_real_create; }
  int created() const { return g_created.load(); }
};

// Events between their record and their wait (each ordering records, then waits, on one thread): an event recorded
// again before its wait was enqueued would have been shared by two orderings at once.
std::mutex g_busy_mutex;
std::set<CUevent> g_busy;
std::atomic<int> g_shared{0};
CUresult (*g_real_record)(CUevent, CUstream) = nullptr;
CUresult (*g_real_wait)(CUstream, CUevent, unsigned) = nullptr;

CUresult watching_record(CUevent e, CUstream s) {
  {
    std::lock_guard lock(g_busy_mutex);
    if (!g_busy.insert(e).second) ++g_shared;
  }
  return g_real_record(e, s);
}

CUresult watching_wait(CUstream s, CUevent e, unsigned flags) {
  const CUresult r = g_real_wait(s, e, flags);
  std::lock_guard lock(g_busy_mutex);
  g_busy.erase(e);
  return r;
}

/// Watches the events between record and wait for the scope.
class WatchedEvents {
 public:
  WatchedEvents() {
    auto& api = driver::mutable_api_for_testing();
    g_real_record = api.cuEventRecord;
    g_real_wait = api.cuStreamWaitEvent;
    api.cuEventRecord = &watching_record;
    api.cuStreamWaitEvent = &watching_wait;
    g_shared = 0;
  }
  ~WatchedEvents() {
    auto& api = driver::mutable_api_for_testing();
    api.cuEventRecord = g_real_record;
    api.cuStreamWaitEvent = g_real_wait;
  }
  int shared() const { return g_shared.load(); }
};

/// A view of 16 floats of host memory whose producer stream is `producer` (nothing dereferences it).
ArrayView view_on(StreamRef producer, std::vector<std::int64_t>& shape) {
  static float storage[64];
  ArrayView::Layout layout{storage, dtype_of<float>(), shape, std::nullopt, false};
  return ArrayView(layout, nullptr).with_stream(producer, true);
}

/// The spare events `ctx` keeps now (taken out and handed back).
int spares(Context& ctx) {
  std::vector<CUevent> taken;
  while (CUevent e = ctx.take_spare_event()) taken.push_back(e);
  for (CUevent e : taken) EXPECT_TRUE(ctx.keep_spare_event(e));
  return static_cast<int>(taken.size());
}

}  // namespace

TEST(OrderingEvents, OneEventServesEveryOrderingOfAThread) {
  Context::close_all();
  auto ctx = Context::primary(Device(0));
  Stream producer(ctx), consumer(ctx);
  std::vector<std::int64_t> shape{16};
  ArrayView v = view_on(producer.ref(), shape);
  CountedEventCreation counted;
  ScopedContext scope(*ctx);
  for (int i = 0; i < 100; ++i) {
    order_before_use(v, consumer.ref());
    order_after_use(v, consumer.ref());
  }
  EXPECT_EQ(counted.created(), 1);
  EXPECT_EQ(spares(*ctx), 1);
}

TEST(OrderingEvents, AClosedContextKeepsNoneAndItsSuccessorStartsWithNone) {
  Context::close_all();
  auto old = Context::primary(Device(0));
  {
    Stream producer(old), consumer(old);
    std::vector<std::int64_t> shape{16};
    ScopedContext scope(*old);
    order_before_use(view_on(producer.ref(), shape), consumer.ref());
  }
  ASSERT_EQ(spares(*old), 1);
  Context::close_all();
  EXPECT_EQ(old->take_spare_event(), nullptr);
  EXPECT_FALSE(old->keep_spare_event(reinterpret_cast<CUevent>(std::uintptr_t{0x40})));
  auto fresh = Context::primary(Device(0));
  EXPECT_EQ(fresh->take_spare_event(), nullptr);
  EXPECT_EQ(Context::open_primary(old->handle()) == nullptr, old->handle() != fresh->handle());
  Stream producer(fresh), consumer(fresh);
  std::vector<std::int64_t> shape{16};
  CountedEventCreation counted;
  ScopedContext scope(*fresh);
  order_before_use(view_on(producer.ref(), shape), consumer.ref());
  EXPECT_EQ(counted.created(), 1);
}

TEST(OrderingEvents, AContextKeepsAtMostItsLimit) {
  Context::close_all();
  auto ctx = Context::primary(Device(0));
  ScopedContext scope(*ctx);
  std::vector<CUevent> made(Context::kMaxSpareEvents + 1);
  for (CUevent& e : made) CUBRIDGE_CU(cuEventCreate, &e, CU_EVENT_DISABLE_TIMING);
  for (std::size_t i = 0; i < Context::kMaxSpareEvents; ++i) EXPECT_TRUE(ctx->keep_spare_event(made[i]));
  EXPECT_FALSE(ctx->keep_spare_event(made.back()));  // refused: the caller destroys it
  CUBRIDGE_CU(cuEventDestroy, made.back());
  EXPECT_EQ(spares(*ctx), static_cast<int>(Context::kMaxSpareEvents));
  Context::close_all();
}

TEST(OrderingEvents, OnlyPrimaryContextsCubridgeHoldsAreFound) {
  Context::close_all();
  EXPECT_EQ(Context::open_primary(nullptr), nullptr);
  EXPECT_EQ(Context::open_primary(reinterpret_cast<CUcontext>(std::uintptr_t{0x1234})), nullptr);
  auto ctx = Context::primary(Device(0));
  EXPECT_EQ(Context::open_primary(ctx->handle()), ctx);
  Context::close_all();
  EXPECT_EQ(Context::open_primary(ctx->handle()), nullptr);
}

TEST(OrderingEvents, ThreadsOrderingAtOnceNeverShareAnEvent) {
  Context::close_all();
  auto ctx = Context::primary(Device(0));
  CountedEventCreation counted;
  WatchedEvents watched;
  auto failures = on_threads([&](int) {
    Stream producer(ctx), consumer(ctx);
    std::vector<std::int64_t> shape{16};
    ArrayView v = view_on(producer.ref(), shape);
    ScopedContext scope(*ctx);
    for (int i = 0; i < 500; ++i) {
      order_before_use(v, consumer.ref());
      order_after_use(v, consumer.ref());
    }
  });
  EXPECT_TRUE(failures.empty()) << failures.front();
  EXPECT_EQ(watched.shared(), 0);
  // At most one event in flight per thread: no more are ever made than threads, and all are kept.
  EXPECT_LE(counted.created(), kStressThreads);
  EXPECT_GE(counted.created(), 1);
  EXPECT_EQ(spares(*ctx), counted.created() > static_cast<int>(Context::kMaxSpareEvents)
                              ? static_cast<int>(Context::kMaxSpareEvents)
                              : counted.created());
  Context::close_all();
}
