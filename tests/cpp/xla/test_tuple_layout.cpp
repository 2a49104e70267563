// Tuple layouts: the documentation's p0 example on the CPU (nested pointer arrays) and its six-buffer
// flat list on the GPU; paths to leaves; malformed layout codes.
#include <gtest/gtest.h>

#include <stdexcept>

#include "cubridge/xla/tuple_layout.hpp"

using namespace cubridge::xla;

namespace {
// p0 = (f32[32], (f32[64], f32[128]), f32[256]); result (f32[512], f32[1024]).
CallLayout documentation_example() {
  CallLayout l;
  l.operands.push_back(TupleTree::tuple(
      {TupleTree::leaf(), TupleTree::tuple({TupleTree::leaf(), TupleTree::leaf()}), TupleTree::leaf()}));
  l.result = TupleTree::tuple({TupleTree::leaf(), TupleTree::leaf()});
  return l;
}
}  // namespace

TEST(TupleLayout, EncodesInPreorderAndDecodesBack) {
  CallLayout l = documentation_example();
  std::vector<std::int32_t> codes = l.encode();
  EXPECT_EQ(codes, (std::vector<std::int32_t>{1, 3, -1, 2, -1, -1, -1, 2, -1, -1}));
  EXPECT_EQ(CallLayout::decode(codes).encode(), codes);
  EXPECT_EQ(l.operand_leaves(), 4u);
  EXPECT_EQ(l.result_leaves(), 2u);
}

TEST(TupleLayout, GpuBuffersAreTheSixLeavesInPreorder) {
  CallLayout l = documentation_example();
  std::size_t p00[] = {0}, p010[] = {1, 0}, p011[] = {1, 1}, p02[] = {2}, r0[] = {0}, r1[] = {1};
  EXPECT_EQ(l.gpu_operand_index(0, p00), 0u);
  EXPECT_EQ(l.gpu_operand_index(0, p010), 1u);
  EXPECT_EQ(l.gpu_operand_index(0, p011), 2u);
  EXPECT_EQ(l.gpu_operand_index(0, p02), 3u);
  EXPECT_EQ(l.gpu_result_index(r0), 4u);
  EXPECT_EQ(l.gpu_result_index(r1), 5u);
}

TEST(TupleLayout, CpuTablesNestTuples) {
  CallLayout l = documentation_example();
  float a, b, c, d, o0, o1;
  void* operands[] = {&a, &b, &c, &d};
  void* results[] = {&o0, &o1};
  CpuPointerTables t;
  t.build(l, operands, results);
  auto* p0 = static_cast<void* const*>(const_cast<void*>(t.in()[0]));
  EXPECT_EQ(p0[0], &a);
  auto* p0_1 = static_cast<void* const*>(p0[1]);
  EXPECT_EQ(p0_1[0], &b);
  EXPECT_EQ(p0_1[1], &c);
  EXPECT_EQ(p0[2], &d);
  auto* out = static_cast<void**>(t.out());
  EXPECT_EQ(out[0], &o0);
  EXPECT_EQ(out[1], &o1);
}

TEST(TupleLayout, CpuTablesWithoutTuplesPassBuffersDirectly) {
  CallLayout l = CallLayout::flat(2, 1);
  float x, y, z;
  void* operands[] = {&x, &y};
  void* results[] = {&z};
  CpuPointerTables t;
  t.build(l, operands, results);
  EXPECT_EQ(t.in()[0], &x);
  EXPECT_EQ(t.in()[1], &y);
  EXPECT_EQ(t.out(), &z);
}

TEST(TupleLayout, LargeLayoutsUseTheHeap) {
  CallLayout l = CallLayout::flat(40, 3);
  std::vector<float> storage(43);
  std::vector<void*> ptrs;
  for (float& f : storage) ptrs.push_back(&f);
  CpuPointerTables t;
  t.build(l, std::span(ptrs).first(40), std::span(ptrs).subspan(40));
  EXPECT_EQ(t.in()[39], &storage[39]);
  EXPECT_EQ(static_cast<void**>(t.out())[2], &storage[42]);
}

TEST(TupleLayout, ShapeTreeMapsPathsToShapes) {
  ShapeTree s{TupleTree::tuple({TupleTree::leaf(), TupleTree::tuple({TupleTree::leaf()})}),
              {Shape{ElementType::f32, {32}}, Shape{ElementType::s64, {2, 3}}}};
  s.check();
  std::size_t p[] = {1, 0};
  EXPECT_EQ(s.at(p).type, ElementType::s64);
  EXPECT_EQ(s.at(p).byte_size(), 48u);
  s.leaves.pop_back();
  EXPECT_THROW(s.check(), std::invalid_argument);
}

TEST(TupleLayout, BadPathsSayWhy) {
  CallLayout l = documentation_example();
  std::size_t too_far[] = {3};
  try {
    l.gpu_operand_index(0, too_far);
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "tuple path {3}: index 3 at depth 0 is out of range for a tuple of 3");
  }
  std::size_t stops_at_tuple[] = {1};
  try {
    l.gpu_operand_index(0, stops_at_tuple);
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "tuple path {1} ends at a tuple of 2, not at a buffer");
  }
  std::size_t into_leaf[] = {0, 0};
  EXPECT_THROW(l.gpu_operand_index(0, into_leaf), std::out_of_range);
  EXPECT_THROW(l.gpu_operand_index(1, too_far), std::out_of_range);
}

TEST(TupleLayout, MalformedCodesSayWhy) {
  auto message = [](std::vector<std::int32_t> codes) {
    try {
      CallLayout::decode(codes);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_EQ(message({}), "tuple layout: the first code must be the operand count (≥ 0), got nothing");
  EXPECT_EQ(message({1, 5, -1}),
            "tuple layout: a tuple of 5 children at position 1 but only 1 codes follow");
  EXPECT_EQ(message({1, -2, -1}),
            "tuple layout: code -2 at position 1 is not -1 (leaf) or a child count ≥ 0");
  // A million nested one-element tuples: refused at the depth limit, not a stack overflow.
  std::vector<std::int32_t> deep(1'000'002, 1);
  deep[0] = 1;
  deep.back() = -1;
  EXPECT_EQ(message(deep), "tuple layout: tuples nest more than 64 deep at position 66");
  EXPECT_EQ(message({1, -1, -1, -1}), "tuple layout: 1 codes follow the result's tree");
  EXPECT_NE(message({2, -1}).find("the codes end at position 2"), std::string::npos);
  CpuPointerTables t;
  float x;
  void* one[] = {&x};
  EXPECT_THROW(t.build(CallLayout::flat(2, 1), one, one), std::invalid_argument);
}
