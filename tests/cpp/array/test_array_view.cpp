// Tests of ArrayView: validation, contiguity, extent, slicing, reshaping. CPU only (no memory touched).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "cubridge/array/array_view.hpp"

using cubridge::ArrayView;
using cubridge::parse_typestr;

namespace {
ArrayView make(std::vector<std::int64_t> shape, std::optional<std::vector<std::int64_t>> strides = {},
               const char* typestr = "<f4", std::uintptr_t data = 0x10000) {
  ArrayView::Layout l;
  l.data = reinterpret_cast<void*>(data);
  l.dtype = parse_typestr(typestr, "t");
  l.shape = shape;
  if (strides) l.strides = std::span<const std::int64_t>(*strides);
  return ArrayView(l, nullptr, "__cuda_array_interface__");
}
std::string error_of(auto fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// Every making, copy, move and assignment gives a new serial, and so does being moved from: what a caller derived
// from a view it saw is good only while the same object keeps the serial it had (ArgumentPack, the lazy launch).
TEST(ArrayView, EachMakingCopyMoveAndAssignmentGivesANewSerial) {
  ArrayView a = make({4});
  const std::uint64_t first = a.serial();
  EXPECT_NE(first, 0u);
  EXPECT_EQ(a.serial(), first);  // asking does not change it
  ArrayView copy = a;
  EXPECT_NE(copy.serial(), a.serial());
  EXPECT_EQ(a.serial(), first);  // copying from a view leaves its serial
  const std::uint64_t copied = copy.serial();
  ArrayView moved = std::move(copy);
  EXPECT_NE(moved.serial(), first);
  EXPECT_NE(copy.serial(), copied);  // moved from: what it held is gone
  ArrayView target = make({2});
  const std::uint64_t target_before = target.serial(), source_before = moved.serial();
  ArrayView given = moved;
  const std::uint64_t given_before = given.serial();
  target = std::move(given);  // move-assignment: both sides change
  EXPECT_NE(target.serial(), target_before);
  EXPECT_NE(given.serial(), given_before);
  EXPECT_EQ(moved.serial(), source_before);
  const std::uint64_t before = a.serial();
  a = moved;
  EXPECT_NE(a.serial(), before);
  const std::uint64_t source = moved.serial();
  ArrayView taken = std::move(moved).with_stream(std::nullopt, false);  // changes `moved`, then moves from it
  EXPECT_NE(moved.serial(), source);
  EXPECT_NE(taken.serial(), source);
  for (auto change : {+[](ArrayView&& v) { return std::move(v).with_owner(nullptr); },
                      +[](ArrayView&& v) { return std::move(v).with_device(0); }}) {
    ArrayView from = make({3});
    const std::uint64_t was = from.serial();
    ArrayView out = change(std::move(from));
    EXPECT_NE(from.serial(), was);
    EXPECT_NE(out.serial(), was);
  }
  const std::uint64_t kept = a.serial();
  a = make({4});
  EXPECT_NE(a.serial(), kept);
  EXPECT_NE(a.with_device(0).serial(), a.serial());
  EXPECT_NE(ArrayView().serial(), ArrayView().serial());
}

TEST(ArrayView, ImplicitStridesAreCContiguous) {
  ArrayView v = make({2, 3, 4});
  EXPECT_EQ(std::vector<std::int64_t>(v.strides().begin(), v.strides().end()), (std::vector<std::int64_t>{48, 16, 4}));
  EXPECT_TRUE(v.strides_implicit());
  EXPECT_TRUE(v.is_c_contiguous());
  EXPECT_FALSE(v.is_f_contiguous());
  EXPECT_EQ(v.size(), 24);
  EXPECT_EQ(v.nbytes(), 96);
  EXPECT_EQ(v.extent().begin, 0);
  EXPECT_EQ(v.extent().end, 96);
}

TEST(ArrayView, FortranOrderAndUnitDimensions) {
  ArrayView f = make({2, 3}, std::vector<std::int64_t>{4, 8});
  EXPECT_TRUE(f.is_f_contiguous());
  EXPECT_FALSE(f.is_c_contiguous());
  ArrayView one = make({1, 5}, std::vector<std::int64_t>{999, 4});  // stride of an extent-1 axis is free
  EXPECT_TRUE(one.is_c_contiguous());
  ArrayView empty = make({0, 3}, std::vector<std::int64_t>{7, 9});
  EXPECT_TRUE(empty.is_c_contiguous() && empty.is_f_contiguous());
  EXPECT_EQ(empty.extent().size(), 0);
  ArrayView scalar = make({});
  EXPECT_EQ(scalar.size(), 1);
  EXPECT_EQ(scalar.ndim(), 0);
}

TEST(ArrayView, ExtentWithNegativeStrides) {
  ArrayView v = make({4}, std::vector<std::int64_t>{-4}, "<f4", 0x1000c);
  EXPECT_EQ(v.extent().begin, -12);
  EXPECT_EQ(v.extent().end, 4);
  ArrayView w = make({3, 2}, std::vector<std::int64_t>{-16, 8}, "<f8", 0x10020);
  EXPECT_EQ(w.extent().begin, -32);
  EXPECT_EQ(w.extent().end, 16);
}

TEST(ArrayView, RejectsBadLayouts) {
  EXPECT_EQ(error_of([] { make({2, -3}); }),
            "__cuda_array_interface__['shape'][1]: -3 is negative (extents must be >= 0)");
  EXPECT_EQ(error_of([] { make({2, 3}, std::vector<std::int64_t>{4}); }),
            "__cuda_array_interface__['strides']: has 1 entries but 'shape' has 2 (one byte stride per "
            "dimension, or None for C-contiguous)");
  EXPECT_EQ(error_of([] { make({3}, {}, "<f8", 0x10004); }),
            "__cuda_array_interface__['data']: pointer 0x10004 is not aligned to 8 bytes as typestr '<f8' requires");
  EXPECT_NE(error_of([] { make({1ll << 40, 1ll << 40}); }).find("overflows 64 bits"), std::string::npos);
  EXPECT_NE(error_of([] { make({1ll << 31}, std::vector<std::int64_t>{1ll << 40}); }).find("byte extent overflows"),
            std::string::npos);
  EXPECT_NO_THROW(make({0}, {}, "<f8", 0x3));  // zero-size: the pointer is never used
  EXPECT_NO_THROW(make({2}, {}, "<c16", 0x10008));  // complex aligns to its component
}

TEST(ArrayView, SlicingFollowsPythonRules) {
  ArrayView v = make({10});
  ArrayView s = v.slice(0, 2, 8, 2);
  EXPECT_EQ(s.shape()[0], 3);
  EXPECT_EQ(s.strides()[0], 8);
  EXPECT_EQ(s.address(), 0x10000u + 8);
  ArrayView r = v.slice(0, std::nullopt, std::nullopt, -1);
  EXPECT_EQ(r.shape()[0], 10);
  EXPECT_EQ(r.strides()[0], -4);
  EXPECT_EQ(r.address(), 0x10000u + 36);
  EXPECT_EQ(r.extent().begin, -36);
  ArrayView e = v.slice(0, 5, 2);
  EXPECT_EQ(e.shape()[0], 0);
  EXPECT_EQ(e.size(), 0);
  ArrayView neg = v.slice(0, -3, std::nullopt);
  EXPECT_EQ(neg.shape()[0], 3);
  EXPECT_EQ(v.slice(0, 100, 200).shape()[0], 0);
  EXPECT_EQ(v.slice(0, 8, -11, -3).shape()[0], 3);  // 8, 5, 2
  EXPECT_EQ(error_of([&] { v.slice(0, 0, 1, 0); }), "slice: step 0 is not allowed (use a non-zero step)");
  EXPECT_EQ(error_of([&] { v.slice(1, 0, 1); }), "slice: axis 1 is out of range for an array of 1 dimension(s)");
}

TEST(ArrayView, IndexDropsTheAxis) {
  ArrayView v = make({3, 4});
  ArrayView row = v.index(0, -1);
  EXPECT_EQ(row.ndim(), 1);
  EXPECT_EQ(row.address(), 0x10000u + 32);
  ArrayView col = v.index(1, 2);
  EXPECT_EQ(col.shape()[0], 3);
  EXPECT_EQ(col.strides()[0], 16);
  EXPECT_EQ(error_of([&] { v.index(0, 3); }), "index 3 is out of bounds for axis 0 with size 3");
  EXPECT_THROW(v.index(0, -4), std::out_of_range);
}

TEST(ArrayView, ReshapeAndTranspose) {
  ArrayView v = make({2, 6});
  std::vector<std::int64_t> s{3, -1};
  ArrayView r = v.reshape(s);
  EXPECT_EQ(r.shape()[1], 4);
  EXPECT_EQ(r.strides()[0], 16);
  ArrayView t = v.transposed();
  EXPECT_EQ(t.shape()[0], 6);
  EXPECT_TRUE(t.is_f_contiguous());
  EXPECT_NE(error_of([&] { t.reshape(s); }).find("not C-contiguous"), std::string::npos);
  EXPECT_NO_THROW(t.reshape(s, 'F'));
  std::vector<std::int64_t> bad{5, 5};
  EXPECT_EQ(error_of([&] { v.reshape(bad); }), "reshape: cannot reshape 12 elements into a shape of 25 elements");
  std::vector<std::int64_t> two{-1, -1};
  EXPECT_EQ(error_of([&] { v.reshape(two); }), "reshape: only one dimension may be -1");
}

TEST(ArrayView, OwnerIsKeptAlive) {
  auto owner = std::make_shared<int>(7);
  std::weak_ptr<int> weak = owner;
  std::vector<std::int64_t> shape{4};
  ArrayView::Layout l{reinterpret_cast<void*>(0x100), parse_typestr("<i4", "t"), shape, std::nullopt, true};
  ArrayView v(l, owner);
  owner.reset();
  ArrayView s = v.slice(0, 1, 3);
  v = ArrayView();
  EXPECT_FALSE(weak.expired());
  EXPECT_TRUE(s.read_only());
  s = ArrayView();
  EXPECT_TRUE(weak.expired());
}

TEST(ArrayView, ManyDimensionsLiveOnTheHeapAndCopyCorrectly) {
  std::vector<std::int64_t> shape(9, 2);
  ArrayView v = make(shape);
  ArrayView c = v;        // copy of heap storage
  ArrayView m = std::move(c);
  EXPECT_EQ(m.ndim(), 9);
  EXPECT_EQ(m.strides()[0], 4 * 256);
  ArrayView i = m.index(0, 1);  // 8 dims: back to inline storage
  EXPECT_EQ(i.ndim(), 8);
  EXPECT_EQ(i.shape()[7], 2);
  EXPECT_EQ(i.strides()[7], 4);
  std::vector<std::int64_t> flat{512};
  EXPECT_EQ(v.reshape(flat).shape()[0], 512);
  ArrayView t = v.transposed();
  EXPECT_EQ(t.strides()[8], 4 * 256);
  v = t;  // assign heap to heap
  EXPECT_EQ(v.strides()[0], 4);
}

namespace {
// NumPy's rule, computed afresh from the view's facts: every extent past 1 has the stride of the product of
// the extents after it (C) or before it (F) times the item size; an empty view is both.
bool contiguous_by_rule(const ArrayView& v, bool c_order) {
  if (v.size() == 0) return true;
  const auto shape = v.shape();
  const auto strides = v.strides();
  const std::size_t n = shape.size();
  std::int64_t expected = v.itemsize();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = c_order ? n - 1 - k : k;
    if (shape[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

void expect_layout_known(const ArrayView& v, const std::string& what) {
  EXPECT_EQ(v.is_c_contiguous(), contiguous_by_rule(v, true)) << what;
  EXPECT_EQ(v.is_f_contiguous(), contiguous_by_rule(v, false)) << what;
}
}  // namespace

// The view keeps its contiguity from construction; every way of making a view from another keeps it true.
TEST(ArrayView, ContiguityKnownFromConstructionThroughEveryDerivedView) {
  const std::vector<ArrayView> bases = {make({4, 6}), make({4, 6}, std::vector<std::int64_t>{4, 16}), make({3, 1, 5}),
                                        make({0, 3}), make({2, 3, 4}, std::vector<std::int64_t>{48, 4, 12}),
                                        make({7}), make({1, 1}), make({})};
  for (std::size_t b = 0; b < bases.size(); ++b) {
    const ArrayView& base = bases[b];
    const std::string name = "base " + std::to_string(b);
    expect_layout_known(base, name);
    expect_layout_known(base.transposed(), name + " transposed");
    for (int axis = 0; axis < base.ndim(); ++axis) {
      for (std::int64_t step : {1, 2, -1, 3})
        for (std::int64_t start : {0, 1}) {
          const ArrayView s = base.slice(axis, start, std::nullopt, step);
          expect_layout_known(s, name + " slice axis " + std::to_string(axis) + " step " + std::to_string(step));
          expect_layout_known(s.transposed(), name + " slice, transposed");
        }
      if (base.shape()[static_cast<std::size_t>(axis)] > 0) expect_layout_known(base.index(axis, 0), name + " index");
    }
    if (base.is_c_contiguous()) {
      const std::int64_t flat[] = {base.size()};
      expect_layout_known(base.reshape(flat, 'C'), name + " reshaped");
    }
    if (base.is_f_contiguous() && base.ndim() > 0) {
      const std::int64_t flat[] = {base.size(), 1};
      expect_layout_known(base.reshape(flat, 'F'), name + " reshaped F");
    }
  }
}
