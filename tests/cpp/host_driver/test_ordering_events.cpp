// The events that order a launch after a producer's stream (stream_order.cpp) are kept by their primary
// context and used again (Context::take_spare_event / keep_spare_event): one event serves any number of
// orderings on a thread; threads never share one at once; a closed context destroys the ones it kept, and its
// successor starts with none; a full context, a failed record and a context cubridge does not hold keep nothing
// (the event is destroyed); a refused wait falls back to the host's wait and keeps the event. That a wait is for
// the record it was given, whatever is recorded after, is the driver's (tests/cpp/array/test_array_gpu.cpp).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "cubridge/array/array_view.hpp"
#include "cubridge/array/stream_order.hpp"
#include "cubridge/driver/context.hpp"
#include "cubridge/driver/error.hpp"
#include "cubridge/driver/stream.hpp"
#include "driver/driver_api.hpp"
#include "interposed.hpp"
#include "on_threads.hpp"

using namespace cubridge;
using cubridge::testing::Interposed;
using cubridge::testing::kStressThreads;
using cubridge::testing::on_threads;

namespace {

std::atomic<int> g_created{0}, g_destroyed{0};
CUresult (*g_real_create)(CUevent*, unsigned) = nullptr;
CUresult (*g_real_destroy)(CUevent) = nullptr;

CUresult counting_create(CUevent* e, unsigned flags) {
  ++g_created;
  return g_real_create(e, flags);
}

CUresult counting_destroy(CUevent e) {
  ++g_destroyed;
  return g_real_destroy(e);
}

/// Counts cuEventCreate and cuEventDestroy calls for the scope.
class CountedEventCreation {
 public:
  CountedEventCreation() {
    g_created = 0;
    g_destroyed = 0;
  }
  int created() const { return g_created.load(); }
  int destroyed() const { return g_destroyed.load(); }

 private:
  Interposed<decltype(driver::DriverApi::cuEventCreate)> create_{driver::mutable_api_for_testing().cuEventCreate,
                                                                  &counting_create, &g_real_create};
  Interposed<decltype(driver::DriverApi::cuEventDestroy)> destroy_{driver::mutable_api_for_testing().cuEventDestroy,
                                                                   &counting_destroy, &g_real_destroy};
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
  WatchedEvents() { g_shared = 0; }
  int shared() const { return g_shared.load(); }

 private:
  Interposed<decltype(driver::DriverApi::cuEventRecord)> record_{driver::mutable_api_for_testing().cuEventRecord,
                                                                 &watching_record, &g_real_record};
  Interposed<decltype(driver::DriverApi::cuStreamWaitEvent)> wait_{
      driver::mutable_api_for_testing().cuStreamWaitEvent, &watching_wait, &g_real_wait};
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

/// A fresh primary context of device 0 (every context closed first), a producer and a consumer stream of it, and
/// the consumer ordered after the producer, or the producer after the consumer, with the context current.
struct TwoStreams {
  TwoStreams() : ctx((Context::close_all(), Context::primary(Device(0)))) {
    producer.emplace(ctx);
    consumer.emplace(ctx);
  }
  ~TwoStreams() {
    drop_streams();
    Context::close_all();
  }
  /// Destroys the streams while their context is open (a closed context's streams are left to its reset).
  void drop_streams() {
    producer.reset();
    consumer.reset();
  }
  void order_before() {
    ScopedContext scope(*ctx);
    order_before_use(view_on(producer->ref(), shape), consumer->ref());
  }
  void order_after() {
    ScopedContext scope(*ctx);
    order_after_use(view_on(producer->ref(), shape), consumer->ref());
  }
  std::shared_ptr<Context> ctx;
  std::optional<Stream> producer, consumer;
  std::vector<std::int64_t> shape{16};
};

}  // namespace

TEST(OrderingEvents, OneEventServesEveryOrderingOfAThread) {
  TwoStreams t;
  CountedEventCreation counted;
  for (int i = 0; i < 100; ++i) {
    t.order_before();
    t.order_after();
  }
  EXPECT_EQ(counted.created(), 1);
  EXPECT_EQ(spares(*t.ctx), 1);
}

TEST(OrderingEvents, AClosedContextKeepsNoneAndItsSuccessorStartsWithNone) {
  TwoStreams t;
  t.order_before();
  ASSERT_EQ(spares(*t.ctx), 1);
  std::shared_ptr<Context> old = t.ctx;
  t.drop_streams();
  {
    CountedEventCreation closing;
    Context::close_all();
    EXPECT_EQ(closing.destroyed(), 1);  // the kept event is destroyed with its context current, not leaked
  }
  EXPECT_EQ(old->take_spare_event(), nullptr);
  EXPECT_FALSE(old->keep_spare_event(reinterpret_cast<CUevent>(std::uintptr_t{0x40})));
  TwoStreams fresh;
  EXPECT_EQ(fresh.ctx->take_spare_event(), nullptr);
  CountedEventCreation counted;
  fresh.order_before();
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
  EXPECT_EQ(counted.destroyed(), 0);  // kStressThreads events in flight at most: the limit (16) keeps them all
  EXPECT_EQ(spares(*ctx), counted.created());
  Context::close_all();
}

namespace {

// Hooks for the cases below: what the driver answers to the ordering's record and wait.
Context* g_fill_during_record = nullptr;  // filled to its limit while an ordering records (a full context)
bool g_fail_record = false, g_fail_wait = false;
std::atomic<int> g_host_waits{0};
CUresult (*g_saved_record)(CUevent, CUstream) = nullptr;
CUresult (*g_saved_wait)(CUstream, CUevent, unsigned) = nullptr;
CUresult (*g_saved_sync)(CUevent) = nullptr;
std::vector<CUevent> g_filled;

CUresult hooked_record(CUevent e, CUstream s) {
  if (g_fail_record) return CUDA_ERROR_INVALID_HANDLE;
  if (g_fill_during_record != nullptr) {
    while (true) {
      CUevent extra = nullptr;
      g_real_create(&extra, CU_EVENT_DISABLE_TIMING);
      if (!g_fill_during_record->keep_spare_event(extra)) {
        g_real_destroy(extra);
        break;
      }
      g_filled.push_back(extra);
    }
  }
  return g_saved_record(e, s);
}

CUresult hooked_wait(CUstream s, CUevent e, unsigned flags) {
  return g_fail_wait ? CUDA_ERROR_NOT_SUPPORTED : g_saved_wait(s, e, flags);
}

CUresult counting_sync(CUevent e) {
  ++g_host_waits;
  return g_saved_sync(e);
}

class HookedOrdering {
 public:
  HookedOrdering() { g_host_waits = 0; }
  ~HookedOrdering() {
    g_fill_during_record = nullptr;
    g_fail_record = g_fail_wait = false;
    g_filled.clear();
  }

 private:
  Interposed<decltype(driver::DriverApi::cuEventRecord)> record_{driver::mutable_api_for_testing().cuEventRecord,
                                                                 &hooked_record, &g_saved_record};
  Interposed<decltype(driver::DriverApi::cuStreamWaitEvent)> wait_{
      driver::mutable_api_for_testing().cuStreamWaitEvent, &hooked_wait, &g_saved_wait};
  Interposed<decltype(driver::DriverApi::cuEventSynchronize)> sync_{
      driver::mutable_api_for_testing().cuEventSynchronize, &counting_sync, &g_saved_sync};
};

}  // namespace

TEST(OrderingEvents, AFullContextKeepsNothingMoreAndTheEventIsDestroyed) {
  TwoStreams t;
  CountedEventCreation counted;
  HookedOrdering hooked;
  g_fill_during_record = t.ctx.get();  // another thread's orderings fill it while this one records
  t.order_before();
  // The fill makes and destroys its events with the driver's own functions, past the counts: these are the ordering's.
  EXPECT_EQ(counted.created(), 1);
  EXPECT_EQ(counted.destroyed(), 1);  // the context was full when the ordering handed its event back
  g_fill_during_record = nullptr;
  EXPECT_EQ(spares(*t.ctx), static_cast<int>(Context::kMaxSpareEvents));
}

TEST(OrderingEvents, AFailedRecordDestroysTheEventItTookAndKeepsNone) {
  TwoStreams t;
  t.order_before();
  ASSERT_EQ(spares(*t.ctx), 1);
  CountedEventCreation counted;
  {
    HookedOrdering hooked;
    g_fail_record = true;
    EXPECT_THROW(t.order_before(), CudaError);
  }
  EXPECT_EQ(counted.created(), 0);    // the kept event was taken...
  EXPECT_EQ(counted.destroyed(), 1);  // ...and, never recorded, destroyed rather than kept
  EXPECT_EQ(spares(*t.ctx), 0);
}

TEST(OrderingEvents, ARefusedWaitWaitsOnTheHostAndKeepsTheEvent) {
  TwoStreams t;
  CountedEventCreation counted;
  {
    HookedOrdering hooked;
    g_fail_wait = true;
    t.order_after();
    EXPECT_EQ(g_host_waits.load(), 1);
  }
  EXPECT_EQ(counted.created(), 1);
  EXPECT_EQ(counted.destroyed(), 0);
  EXPECT_EQ(spares(*t.ctx), 1);
}

TEST(OrderingEvents, AContextCubridgeDoesNotHoldKeepsNothing) {
  Context::close_all();
  auto ctx = Context::primary(Device(0));
  static int foreign_context_storage = 0;  // a context another library made (the stand-in takes any handle)
  auto foreign = reinterpret_cast<CUcontext>(&foreign_context_storage);
  CUstream foreign_stream = nullptr;
  CUBRIDGE_CU(cuCtxPushCurrent, foreign);
  CUBRIDGE_CU(cuStreamCreate, &foreign_stream, CU_STREAM_NON_BLOCKING);
  CUcontext popped = nullptr;
  CUBRIDGE_CU(cuCtxPopCurrent, &popped);
  ASSERT_EQ(Context::open_primary(foreign), nullptr);
  std::vector<std::int64_t> shape{16};
  {
    Stream consumer(ctx);
    ScopedContext scope(*ctx);
    CountedEventCreation counted;
    for (int i = 0; i < 3; ++i) order_before_use(view_on(StreamRef::external(foreign_stream), shape), consumer.ref());
    EXPECT_EQ(counted.created(), 3);    // made for each ordering...
    EXPECT_EQ(counted.destroyed(), 3);  // ...and destroyed after it
  }
  EXPECT_EQ(spares(*ctx), 0);
  CUBRIDGE_CU(cuStreamDestroy, foreign_stream);
  Context::close_all();
}
