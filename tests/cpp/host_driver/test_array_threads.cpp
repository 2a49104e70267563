// Thread stress (issue 13) of the array layer: 16 threads import arrays at once, through the CUDA Array
// Interface rules (pointer attributes asked of the driver, ordering after the producer's stream) and
// through DLPack (export, the checker every producer's tensor passes, adoption with its deleter), each
// with its own memory and stream. Every view must describe exactly the memory its thread made, and let
// go of it afterwards.
#include <gtest/gtest.h>

#include <array>
#include <algorithm>
#include <cstdint>
#include <string>

#include "cubridge/array/array_interface.hpp"
#include "cubridge/array/dlpack_exchange.hpp"
#include "cubridge/array/stream_order.hpp"
#include "cubridge/driver/stream.hpp"
#include "cubridge/memory.hpp"
#include "on_threads.hpp"

using namespace cubridge;
using cubridge::testing::on_threads;

namespace {

constexpr int kRounds = 1000;

void expect_same(const ArrayView& view, std::uintptr_t address, std::span<const std::int64_t> shape, const char* how) {
  if (view.address() != address || view.ndim() != static_cast<int>(shape.size()) ||
      !std::equal(shape.begin(), shape.end(), view.shape().begin()) || view.dtype().itemsize != 4)
    throw std::runtime_error(std::string(how) + " gave a view of other memory or another shape");
}

}  // namespace

TEST(ArrayThreads, ImportsFromSixteenThreads) {
  Context::close_all();
  memory::reset_registry_for_testing();
  auto ctx = Context::primary(Device(0));
  auto failures = on_threads([&](int t) {
    Stream stream(ctx);
    for (int round = 0; round < kRounds; ++round) {
      const std::array<std::int64_t, 2> shape{1 + (t + round) % 7, 3 + round % 5};
      auto memory = memory::allocate(ctx, static_cast<std::size_t>(shape[0] * shape[1] * 4), stream.ref());
      {
        ArrayInterface cai;
        cai.shape = shape;
        cai.typestr = "<f4";
        cai.data = memory->device_pointer();
        cai.stream = stream.ref().cai_value();
        ArrayView view = view_from_interface(cai, memory, {.sync = true, .check_pointer = true});
        expect_same(view, memory->device_pointer(), shape, "the CUDA Array Interface");
        if (view.device() != 0) throw std::runtime_error("the driver placed the memory on device " + std::to_string(view.device()));
        order_before_use(view, StreamRef::legacy());
        order_after_use(view, StreamRef::legacy());

        auto* managed = to_dlpack_versioned(view, {});
        check_dltensor(managed->dl_tensor, kMaxDLPackNdim, "stress");
        ArrayView adopted = adopt_dlpack(managed);
        expect_same(adopted, memory->device_pointer(), shape, "DLPack");
      }
      // Every view and the DLPack tensor (its deleter) let go of the memory.
      if (memory.use_count() != 1) throw std::runtime_error(std::to_string(memory.use_count() - 1) + " references left");
    }
  });
  EXPECT_TRUE(failures.empty()) << failures.front();
  Context::close_all();
}
