// Kernel layer without a GPU: signature parsing, the Numba-ABI buffer layout, argument packing and
// its errors, launch-configuration validation, float16 rounding, code-image recognition.
#include <gtest/gtest.h>

#include <complex>
#include <limits>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>

#include "cubridge/array/errors.hpp"
#include "cubridge/kernel.hpp"

namespace cubridge {
namespace {

template <class T>
T read_at(const ArgumentPack& pack, std::uint32_t offset) {
  T v{};
  std::memcpy(&v, pack.buffer().data() + offset, sizeof(T));
  return v;
}

ArrayView fake_view(std::uintptr_t address, const char* typestr, std::vector<std::int64_t> shape,
                    std::optional<std::vector<std::int64_t>> strides = std::nullopt, bool read_only = false) {
  static std::vector<std::vector<std::int64_t>> keep;  // spans in Layout must outlive the call only
  ArrayView::Layout l;
  l.data = reinterpret_cast<void*>(address);
  l.dtype = parse_typestr(typestr, "test");
  l.shape = shape;
  if (strides) l.strides = std::span<const std::int64_t>(*strides);
  l.read_only = read_only;
  return ArrayView(l, nullptr, "test");
}

#define EXPECT_THROW_MSG(stmt, type, text)                                        \
  do {                                                                            \
    try {                                                                         \
      stmt;                                                                       \
      ADD_FAILURE() << "no exception from " #stmt;                                \
    } catch (const type& e) {                                                     \
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what(); \
    }                                                                             \
  } while (0)

TEST(KernelSignature, ParsesNumbaSpellings) {
  auto s = KernelSignature::parse("void(float32[:], float32[:, ::1], int64[::1, :], const f8[:,:,:], int32)");
  ASSERT_EQ(s.size(), 5u);
  ParamKind first;  // members set by name: an aggregate list would leave the record fields to a warning
  first.kind = ParamKind::Kind::Array;
  first.type = ScalarType::Float32;
  first.ndim = 1;
  first.layout = 'A';
  first.written = true;
  EXPECT_EQ(s[0], first);
  EXPECT_EQ(s[1].layout, 'C');
  EXPECT_EQ(s[1].ndim, 2);
  EXPECT_EQ(s[2].layout, 'F');
  EXPECT_EQ(s[3].type, ScalarType::Float64);
  EXPECT_FALSE(s[3].written);
  EXPECT_EQ(s[3].ndim, 3);
  EXPECT_FALSE(s[4].is_array());
  EXPECT_EQ(s.to_string(), "void(float32[:], float32[:, ::1], int64[::1, :], const float64[:, :, :], int32)");
  EXPECT_EQ(KernelSignature::parse(s.to_string()), s);
}

TEST(KernelSignature, AcceptsBareListsNumbaArrayStrAndEmpty) {
  EXPECT_EQ(KernelSignature::parse("float32[::1], int64").to_string(), "void(float32[::1], int64)");
  EXPECT_EQ(KernelSignature::parse("(float32[::1], int64)").to_string(), "void(float32[::1], int64)");
  EXPECT_EQ(KernelSignature::parse("array(float32, 2d, C), readonly array(int8, 1d, A), boolean").to_string(),
            "void(float32[:, ::1], const int8[:], bool)");
  EXPECT_EQ(KernelSignature::parse("void()").size(), 0u);
  EXPECT_EQ(KernelSignature::parse("").size(), 0u);
  EXPECT_EQ(KernelSignature::parse("float32[::1, :]").to_string(), "void(float32[::1, :])");
  EXPECT_EQ(KernelSignature::parse("f4[::1]")[0].layout, 'C');  // 1-d: C and F coincide
}

TEST(KernelSignature, RejectsWithTheOffendingText) {
  EXPECT_THROW_MSG(KernelSignature::parse("void(float31[:])"), std::invalid_argument, "'float31' is not a type");
  EXPECT_THROW_MSG(KernelSignature::parse("float32(float32[:])"), std::invalid_argument,
                   "a kernel returns void, but the signature says 'float32'");
  EXPECT_THROW_MSG(KernelSignature::parse("float32[:, ::1, :]"), std::invalid_argument,
                   "'::1' must be the last dimension (C order) or the first (F order)");
  EXPECT_THROW_MSG(KernelSignature::parse("float32[::2]"), std::invalid_argument, "'::2' is not a dimension");
  EXPECT_THROW_MSG(KernelSignature::parse("float32[]"), std::invalid_argument, "has no dimensions");
  EXPECT_THROW_MSG(KernelSignature::parse("float32[:"), std::invalid_argument, "unbalanced");
  EXPECT_THROW_MSG(KernelSignature::parse("int32, , int32"), std::invalid_argument, "an empty parameter");
  EXPECT_THROW_MSG(KernelSignature::parse("array(float32, xd, C)"), std::invalid_argument, "'xd' is not a rank");
  EXPECT_THROW_MSG(KernelSignature::parse("array(float32, 1d, Q)"), std::invalid_argument, "layout 'Q'");
}

TEST(KernelSignature, TuplesAreFlattenedToTheirElementsDepthFirst) {
  // numba-cuda's _prepare_args passes a tuple's elements one by one; an empty tuple passes nothing.
  auto s = KernelSignature::parse("void(int64[::1], Tuple(Tuple(), UniTuple(int64 x 2), float64), UniTuple(float32[:] x 2))");
  EXPECT_TRUE(s.has_tuples());
  EXPECT_EQ(s.argument_count(), 3u);
  ASSERT_EQ(s.size(), 6u);  // the array, two int64, one float64, two arrays
  EXPECT_TRUE(s[0].is_array());
  EXPECT_EQ(s[1].type, ScalarType::Int64);
  EXPECT_EQ(s[2].type, ScalarType::Int64);
  EXPECT_EQ(s[3].type, ScalarType::Float64);
  EXPECT_TRUE(s[4].is_array() && s[5].is_array());
  EXPECT_EQ(s.slot_count(4), 7u);
  EXPECT_EQ(s.to_string(),
            "void(int64[::1], Tuple(Tuple(), UniTuple(int64 x 2), float64), UniTuple(array(float32, 1d, A) x 2))");
  EXPECT_FALSE(s == KernelSignature::parse("void(int64[::1], int64, int64, float64, float32[:], float32[:])"));
  EXPECT_EQ(s.parameter_name(0), "argument 0");
  EXPECT_EQ(s.parameter_name(2), "argument 1[1][1]");
  EXPECT_EQ(s.parameter_name(5), "argument 2[1]");
  ArgumentPack pack(std::make_shared<KernelSignature>(s));  // messages name the element
  EXPECT_THROW_MSG(pack.set_scalar(3, std::complex<double>(1, 2)), ArgumentTypeError,
                   "argument 1[2]: a complex ((1+2j)) was passed where the signature says float64");
  auto empty = KernelSignature::parse("void(Tuple())");
  EXPECT_EQ(empty.argument_count(), 1u);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_FALSE(KernelSignature::parse("void(int64)").has_tuples());
}

TEST(KernelSignature, ArrayLayoutIsFivePlusTwoNSlotsOfEightBytes) {
  for (int n = 1; n <= 3; ++n) {
    std::string dims = ":";
    for (int i = 1; i < n; ++i) dims += ", :";
    auto s = KernelSignature::parse("float32[" + dims + "], int64");
    ASSERT_EQ(s.slot_count(0), static_cast<std::uint32_t>(5 + 2 * n));
    for (std::uint32_t k = 0; k < s.slot_count(0); ++k) {
      EXPECT_EQ(s.slots()[k].offset, 8 * k);
      EXPECT_EQ(s.slots()[k].size, 8u);
    }
    EXPECT_EQ(s.first_slot(1), static_cast<std::uint32_t>(5 + 2 * n));
    EXPECT_EQ(s.slots()[s.first_slot(1)].offset, static_cast<std::uint32_t>(8 * (5 + 2 * n)));
    EXPECT_EQ(s.buffer_size(), static_cast<std::uint32_t>(8 * (6 + 2 * n)));
  }
}

TEST(KernelSignature, ScalarSlotsAreNaturallyAlignedAndComplexIsTwo) {
  auto s = KernelSignature::parse("bool, int16, int32, int64, complex64, float16, complex128, uint8, float32");
  std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
  for (auto sl : s.slots()) got.emplace_back(sl.offset, sl.size);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> want = {
      {0, 1}, {2, 2}, {4, 4}, {8, 8}, {16, 4}, {20, 4}, {24, 2}, {32, 8}, {40, 8}, {48, 1}, {52, 4}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(s.slot_count(4), 2u);
  EXPECT_EQ(s.slot_count(6), 2u);
  EXPECT_EQ(s.buffer_size(), 56u);
}

TEST(ArgumentPack, WritesTheNumbaArrayFields) {
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("float32[:, :], int32[:, :, ::1]"));
  ArgumentPack pack(sig);
  pack.set_array(0, fake_view(0x10000, "<f4", {3, 4}, std::vector<std::int64_t>{4, 12}));  // F order
  pack.set_array(1, fake_view(0x20000, "<i4", {2, 3, 5}));
  EXPECT_EQ(read_at<std::int64_t>(pack, 0), 0);     // meminfo
  EXPECT_EQ(read_at<std::int64_t>(pack, 8), 0);     // parent
  EXPECT_EQ(read_at<std::int64_t>(pack, 16), 12);   // nitems
  EXPECT_EQ(read_at<std::int64_t>(pack, 24), 4);    // itemsize
  EXPECT_EQ(read_at<std::uint64_t>(pack, 32), 0x10000u);
  EXPECT_EQ(read_at<std::int64_t>(pack, 40), 3);
  EXPECT_EQ(read_at<std::int64_t>(pack, 48), 4);
  EXPECT_EQ(read_at<std::int64_t>(pack, 56), 4);    // strides in bytes
  EXPECT_EQ(read_at<std::int64_t>(pack, 64), 12);
  const std::uint32_t b = 72;
  EXPECT_EQ(read_at<std::int64_t>(pack, b + 16), 30);
  EXPECT_EQ(read_at<std::uint64_t>(pack, b + 32), 0x20000u);
  EXPECT_EQ(read_at<std::int64_t>(pack, b + 40), 2);
  EXPECT_EQ(read_at<std::int64_t>(pack, b + 56), 5);
  EXPECT_EQ(read_at<std::int64_t>(pack, b + 64), 60);
  EXPECT_EQ(read_at<std::int64_t>(pack, b + 72), 20);
  EXPECT_EQ(read_at<std::int64_t>(pack, b + 80), 4);
  EXPECT_EQ(pack.buffer().size(), 160u);
  // kernelParams point at the slots.
  EXPECT_EQ(static_cast<std::byte*>(pack.params()[4]) - pack.buffer().data(), 32);
  EXPECT_EQ(static_cast<std::byte*>(pack.params()[9]) - pack.buffer().data(), 72);
  pack.check_complete();
  ASSERT_EQ(pack.arrays().size(), 2u);
  EXPECT_EQ(pack.arrays()[1]->address(), 0x20000u);
}

// A borrowed view given again unchanged keeps its words without being checked again; any change to what the slot
// holds (another view at the same address, the same object assigned another view, a raw address, a copy, a refused
// view) writes or refuses as a first set does.
TEST(ArgumentPack, ABorrowedViewGivenAgainUnchangedKeepsItsWordsAndAnyChangeIsWrittenAgain) {
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("float32[::1], float32*"));
  ArgumentPack pack(sig);
  ArrayView v = fake_view(0x10000, "<f4", {8});
  pack.set_array_borrowed(0, v);
  pack.clear();
  pack.set_array_borrowed(0, v);  // unchanged: its words are the ones written before
  EXPECT_EQ(read_at<std::uint64_t>(pack, 32), 0x10000u);
  EXPECT_EQ(read_at<std::int64_t>(pack, 40), 8);
  EXPECT_EQ(pack.arrays()[0], &v);
  v = fake_view(0x20000, "<f4", {5});  // the same object, another view: written again
  pack.clear();
  pack.set_array_borrowed(0, v);
  EXPECT_EQ(read_at<std::uint64_t>(pack, 32), 0x20000u);
  EXPECT_EQ(read_at<std::int64_t>(pack, 40), 5);
  v = fake_view(0x20000, "<f8", {5});  // and one the parameter refuses: refused, not taken for the last one
  pack.clear();
  EXPECT_THROW_MSG(pack.set_array_borrowed(0, v), ArgumentTypeError, "a float64 array");
  v = fake_view(0x30000, "<f4", {3});
  pack.set_array_borrowed(0, v);
  pack.set_array(0, fake_view(0x40000, "<f4", {2}));  // a copy over the borrowed view's words
  pack.set_array_borrowed(0, v);
  EXPECT_EQ(read_at<std::uint64_t>(pack, 32), 0x30000u);
  EXPECT_EQ(read_at<std::int64_t>(pack, 40), 3);
  // Another view made where the last one was: written, though address and facts are alike but the pointer.
  alignas(ArrayView) std::byte place[sizeof(ArrayView)];
  auto* first = new (place) ArrayView(fake_view(0x50000, "<f4", {4}));
  pack.set_array_borrowed(0, *first);
  first->~ArrayView();
  auto* second = new (place) ArrayView(fake_view(0x60000, "<f4", {4}));
  ASSERT_EQ(static_cast<void*>(first), static_cast<void*>(second));
  pack.set_array_borrowed(0, *second);
  EXPECT_EQ(read_at<std::uint64_t>(pack, 32), 0x60000u);
  second->~ArrayView();
  // A refused view leaves the last view's words and record: that view given again is still taken as it was.
  ArrayView kept = fake_view(0x80000, "<f4", {6});
  pack.set_array_borrowed(0, kept);
  EXPECT_THROW_MSG(pack.set_array_borrowed(0, fake_view(0x90000, "<i8", {6})), ArgumentTypeError, "typestr '<i8'");
  pack.set_array_borrowed(0, kept);
  EXPECT_EQ(read_at<std::uint64_t>(pack, 32), 0x80000u);
  EXPECT_EQ(read_at<std::int64_t>(pack, 40), 6);
  // A borrowed view for a scalar parameter or past the last is refused as before, never taken from the record.
  auto scalars = std::make_shared<KernelSignature>(KernelSignature::parse("float32[::1], int64"));
  ArgumentPack other(scalars);
  EXPECT_THROW_MSG(other.set_array_borrowed(1, kept), ArgumentTypeError, "argument 1: an array was passed");
  EXPECT_THROW_MSG(other.set_array_borrowed(2, kept), std::out_of_range, "the kernel takes 2 arguments");
  // One view for two array parameters: each slot keeps its own words and record.
  auto two = std::make_shared<KernelSignature>(KernelSignature::parse("float32[::1], float32[::1]"));
  ArgumentPack both(two);
  for (int round = 0; round < 2; ++round) {
    both.set_array_borrowed(0, kept);
    both.set_array_borrowed(1, kept);
    EXPECT_EQ(read_at<std::uint64_t>(both, 32), 0x80000u);
    EXPECT_EQ(read_at<std::uint64_t>(both, 56 + 32), 0x80000u);
    both.clear();
  }
  // A pointer parameter: a raw address over the view's word, then the view again.
  ArrayView p = fake_view(0x70000, "<f4", {4});
  pack.set_array_borrowed(1, p);
  pack.set_address(1, 0x1234);
  EXPECT_EQ(read_at<std::uint64_t>(pack, 56), 0x1234u);  // after the 7 words of float32[::1]
  pack.set_array_borrowed(1, p);
  EXPECT_EQ(read_at<std::uint64_t>(pack, 56), 0x70000u);
}

// The fast forms of set_scalar write exactly what set_scalar writes for an int64 or a double into the
// parameter that takes it as it is, and nothing anywhere else (set_scalar then converts or refuses).
TEST(ArgumentPack, ExactInt64AndFloat64AreSetScalarsResultOrNothing) {
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse(
      "void(int64, float64, int32, float32, uint64, timedelta64[h], float32[::1], complex128)"));
  const auto& s = *sig;
  auto off = [&](std::size_t p) { return s.slots()[s.first_slot(p)].offset; };
  ArgumentPack fast(sig), slow(sig);
  EXPECT_TRUE(fast.set_exact_int64(0, -(std::int64_t{1} << 62)));
  slow.set_scalar(0, -(std::int64_t{1} << 62));
  EXPECT_TRUE(fast.set_exact_float64(1, -0.1));
  slow.set_scalar(1, -0.1);
  EXPECT_EQ(read_at<std::int64_t>(fast, off(0)), read_at<std::int64_t>(slow, off(0)));
  EXPECT_EQ(read_at<double>(fast, off(1)), read_at<double>(slow, off(1)));
  for (std::size_t p = 2; p < s.size(); ++p) {  // converted, range-checked, a datetime's count, an array
    EXPECT_FALSE(fast.set_exact_int64(p, 7)) << p;
    EXPECT_FALSE(fast.set_exact_float64(p, 7.0)) << p;
  }
  EXPECT_FALSE(fast.set_exact_int64(0 + s.size(), 7));  // past the end: nothing, no throw
  EXPECT_FALSE(fast.set_exact_float64(0, 7.0));          // an int64 parameter takes no double as it is
  EXPECT_FALSE(fast.set_exact_int64(1, 7));               // a float64 one no int64
  EXPECT_THROW(fast.check_complete(), std::invalid_argument);  // only 0 and 1 were set
}

TEST(ArgumentPack, WritesEveryScalarTypeExactly) {
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse(
      "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64, complex64, complex128"));
  ArgumentPack pack(sig);
  std::size_t i = 0;
  pack.set_scalar(i++, true);
  pack.set_scalar(i++, std::int64_t{-5});
  pack.set_scalar(i++, std::int64_t{-300});
  pack.set_scalar(i++, std::int64_t{-70000});
  pack.set_scalar(i++, std::int64_t{-(std::int64_t{1} << 40)});
  pack.set_scalar(i++, std::int64_t{255});
  pack.set_scalar(i++, std::int64_t{65535});
  pack.set_scalar(i++, std::int64_t{4000000000});
  pack.set_scalar(i++, std::uint64_t{18446744073709551615u});
  pack.set_scalar(i++, 1.5);
  pack.set_scalar(i++, 0.1);
  pack.set_scalar(i++, std::int64_t{3});  // an int where a float is expected is fine
  pack.set_scalar(i++, std::complex<double>(1.5, -2.0));
  pack.set_scalar(i++, std::complex<double>(0.25, 4.0));
  pack.check_complete();
  const auto& s = *sig;
  auto off = [&](std::size_t p, std::uint32_t k = 0) { return s.slots()[s.first_slot(p) + k].offset; };
  EXPECT_EQ(read_at<std::uint8_t>(pack, off(0)), 1);
  EXPECT_EQ(read_at<std::int8_t>(pack, off(1)), -5);
  EXPECT_EQ(read_at<std::int16_t>(pack, off(2)), -300);
  EXPECT_EQ(read_at<std::int32_t>(pack, off(3)), -70000);
  EXPECT_EQ(read_at<std::int64_t>(pack, off(4)), -(std::int64_t{1} << 40));
  EXPECT_EQ(read_at<std::uint8_t>(pack, off(5)), 255);
  EXPECT_EQ(read_at<std::uint16_t>(pack, off(6)), 65535);
  EXPECT_EQ(read_at<std::uint32_t>(pack, off(7)), 4000000000u);
  EXPECT_EQ(read_at<std::uint64_t>(pack, off(8)), 18446744073709551615u);
  EXPECT_EQ(read_at<std::uint16_t>(pack, off(9)), 0x3e00);
  EXPECT_EQ(read_at<float>(pack, off(10)), 0.1f);
  EXPECT_EQ(read_at<double>(pack, off(11)), 3.0);
  EXPECT_EQ(read_at<float>(pack, off(12, 0)), 1.5f);
  EXPECT_EQ(read_at<float>(pack, off(12, 1)), -2.0f);
  EXPECT_EQ(read_at<double>(pack, off(13, 0)), 0.25);
  EXPECT_EQ(read_at<double>(pack, off(13, 1)), 4.0);
}

TEST(ArgumentPack, RejectsMismatchedArraysBeforeLaunch) {
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("float32[:, ::1], const float32[:], int32"));
  ArgumentPack pack(sig);
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "<f8", {2, 2})), ArgumentTypeError,
                   "argument 0: a float64 array (typestr '<f8') was passed where the signature says float32[:, ::1]");
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "<f4", {4})), ArgumentTypeError,
                   "argument 0: a 1-d array (shape (4,)) was passed");
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "<f4", {2, 3}, std::vector<std::int64_t>{4, 8})),
                   ArgumentTypeError, "not C-contiguous (strides (4, 8))");
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "<f4", {2, 2}, std::nullopt, true)), std::invalid_argument,
                   "argument 0: the array is read-only but the kernel may write it (float32[:, ::1])");
  pack.set_array(1, fake_view(0x1000, "<f4", {4}, std::nullopt, true));  // const: read-only is fine
  EXPECT_THROW_MSG(pack.set_array(2, fake_view(0x1000, "<i4", {4})), ArgumentTypeError,
                   "argument 2: an array was passed where the signature says int32");
  EXPECT_THROW_MSG(pack.set_array(3, fake_view(0x1000, "<i4", {4})), std::out_of_range, "the kernel takes 3 arguments");
  EXPECT_THROW_MSG(pack.set_array(1, fake_view(0x1000, ">f4", {4})), ArgumentTypeError, "typestr '>f4'");
  EXPECT_THROW_MSG(pack.check_complete(), std::invalid_argument, "argument 0 (float32[:, ::1]) was not set");
  auto masked = fake_view(0x1000, "<f4", {4}).with_mask(std::make_shared<ArrayView>(fake_view(0x2000, "|b1", {4})));
  EXPECT_THROW_MSG(pack.set_array(1, masked), MaskNotSupported, "mask");
}

TEST(ArgumentPack, RejectsMismatchedScalars) {
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("int8, uint32, float32, bool, float32[:]"));
  ArgumentPack pack(sig);
  EXPECT_THROW_MSG(pack.set_scalar(0, std::int64_t{300}), std::invalid_argument,
                   "argument 0: 300 is out of range for int8 (-128 to 127, or up to 255 as the bit pattern)");
  EXPECT_THROW_MSG(pack.set_scalar(1, std::int64_t{-1}), std::invalid_argument, "-1 is out of range for uint32");
  EXPECT_THROW_MSG(pack.set_scalar(0, 1.5), ArgumentTypeError,
                   "argument 0: a float (1.5) was passed where the signature says int8");
  EXPECT_THROW_MSG(pack.set_scalar(2, std::complex<double>(1, 2)), ArgumentTypeError, "a complex ((1+2j))");
  EXPECT_THROW_MSG(pack.set_scalar(3, std::int64_t{2}), std::invalid_argument, "2 is out of range for bool");
  EXPECT_THROW_MSG(pack.set_scalar(4, std::int64_t{2}), ArgumentTypeError,
                   "argument 4: an int (2) was passed where the signature says float32[:]");
  pack.set_scalar(1, std::uint64_t{4294967295u});
  EXPECT_THROW_MSG(pack.set_scalar(0, std::int64_t{256}), std::invalid_argument,
                   "argument 0: 256 is out of range for int8 (-128 to 127, or up to 255 as the bit pattern)");
  EXPECT_THROW_MSG(pack.set_scalar(0, std::int64_t{-129}), std::invalid_argument, "-129 is out of range for int8");
}

TEST(ArgumentPack, SignedParametersTakeTheirWidthsUnsignedRangeAsBits) {
  // numba-cuda's ctypes conversion: cuda.jit("void(int32[:], int32)") given 0xFFFFFFFF passes -1.
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("int32, int8, int64, int16"));
  ArgumentPack pack(sig);
  pack.set_scalar(0, std::int64_t{0xFFFFFFFF});
  pack.set_scalar(1, std::int64_t{0x80});
  pack.set_scalar(2, std::uint64_t{0xFFFFFFFFFFFFFFFFu});
  pack.set_scalar(3, std::int64_t{-32768});
  auto off = [&](std::size_t i) { return sig->slots()[sig->first_slot(i)].offset; };
  EXPECT_EQ(read_at<std::int32_t>(pack, off(0)), -1);
  EXPECT_EQ(read_at<std::int8_t>(pack, off(1)), -128);
  EXPECT_EQ(read_at<std::int64_t>(pack, off(2)), -1);
  EXPECT_EQ(read_at<std::int16_t>(pack, off(3)), -32768);
}

TEST(ArgumentPack, IntegerArraysOfOneWidthPassAcrossSignedness) {
  // numba-cuda's vote tests pass an int32 array to 'void(uint32[:])': the kernel reads its bits.
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("uint32[:], int64[:], int32[:]"));
  ArgumentPack pack(sig);
  pack.set_array(0, fake_view(0x1000, "<i4", {4}));
  pack.set_array(1, fake_view(0x1000, "<u8", {4}));
  EXPECT_THROW_MSG(pack.set_array(2, fake_view(0x1000, "<u2", {4})), ArgumentTypeError,
                   "argument 2: a uint16 array (typestr '<u2') was passed where the signature says int32[:]");
  EXPECT_THROW_MSG(pack.set_array(2, fake_view(0x1000, "<f4", {4})), ArgumentTypeError,
                   "argument 2: a float32 array (typestr '<f4') was passed where the signature says int32[:]");
}

TEST(Scalar, PrintsLikePythonRepr) {
  // Error messages quote the value as Python would print it.
  EXPECT_EQ(Scalar(1.5).to_string(), "1.5");
  EXPECT_EQ(Scalar(0.1).to_string(), "0.1");
  EXPECT_EQ(Scalar(3.0).to_string(), "3.0");
  EXPECT_EQ(Scalar(-0.0).to_string(), "-0.0");
  EXPECT_EQ(Scalar(1e16).to_string(), "1e+16");
  EXPECT_EQ(Scalar(std::numeric_limits<double>::infinity()).to_string(), "inf");
  EXPECT_EQ(Scalar(std::complex<double>(1.5, -2.0)).to_string(), "(1.5-2j)");
  EXPECT_EQ(Scalar(std::int64_t{-7}).to_string(), "-7");
}

TEST(KernelSignature, PointerParametersAreOneEightByteSlot) {
  auto s = KernelSignature::parse("void(const float32*, float32 *, void*, const void *, int8, uint64)");
  ASSERT_EQ(s.size(), 6u);
  EXPECT_TRUE(s[0].is_pointer() && !s[0].is_array() && s[0].takes_array());
  EXPECT_EQ(s[0].type, ScalarType::Float32);
  EXPECT_FALSE(s[0].written);
  EXPECT_TRUE(s[1].written);
  EXPECT_TRUE(s[2].any_pointee && s[2].written);
  EXPECT_TRUE(s[3].any_pointee && !s[3].written);
  EXPECT_EQ(s.to_string(), "void(const float32*, float32*, void*, const void*, int8, uint64)");
  EXPECT_EQ(KernelSignature::parse(s.to_string()), s);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(s.slot_count(i), 1u);
    EXPECT_EQ(s.slots()[s.first_slot(i)].offset, 8 * i);
    EXPECT_EQ(s.slots()[s.first_slot(i)].size, 8u);
  }
  EXPECT_EQ(s.slots()[4].offset, 32u);  // int8
  EXPECT_EQ(s.slots()[5].offset, 40u);  // uint64, aligned
  EXPECT_EQ(s.array_count(), 4u);
  EXPECT_EQ(KernelSignature::parse("readonly f8*")[0].to_string(), "const float64*");
  EXPECT_THROW_MSG(KernelSignature::parse("float32**"), std::invalid_argument,
                   "'float32**' is a pointer to a pointer; pass such an address as a uint64 scalar");
  EXPECT_THROW_MSG(KernelSignature::parse("flt*"), std::invalid_argument, "'flt' is not a type; accepted:");
  EXPECT_EQ(KernelSignature::parse("float*")[0].to_string(), "float64*");  // Python's float, as everywhere
  EXPECT_THROW_MSG(KernelSignature::parse("*"), std::invalid_argument, "'' is not a type");
}

TEST(ArgumentPack, PointerParametersTakeContiguousArraysAndAddresses) {
  auto sig = std::make_shared<KernelSignature>(
      KernelSignature::parse("const float32*, float64*, void*, const void*, uint64"));
  ArgumentPack pack(sig);
  pack.set_array(0, fake_view(0x1000, "<f4", {3, 4}, std::nullopt, true));          // C order, read-only
  pack.set_array(1, fake_view(0x2000, "<f8", {3, 4}, std::vector<std::int64_t>{8, 24}));  // F order
  pack.set_array(2, fake_view(0x3000, "<i2", {5}));                                  // void*: any dtype
  pack.set_address(3, 0xdead0000u);
  pack.set_scalar(4, std::uint64_t{12});
  pack.check_complete();
  EXPECT_EQ(read_at<std::uint64_t>(pack, 0), 0x1000u);
  EXPECT_EQ(read_at<std::uint64_t>(pack, 8), 0x2000u);
  EXPECT_EQ(read_at<std::uint64_t>(pack, 16), 0x3000u);
  EXPECT_EQ(read_at<std::uint64_t>(pack, 24), 0xdead0000u);
  EXPECT_EQ(read_at<std::uint64_t>(pack, 32), 12u);
  EXPECT_EQ(pack.buffer().size(), 40u);
  ASSERT_EQ(pack.arrays().size(), 4u);
  EXPECT_EQ(pack.arrays()[1]->address(), 0x2000u);  // kept: its stream is ordered, its owner kept alive
  EXPECT_EQ(pack.arrays()[3], nullptr);             // a raw address has no view
}

TEST(ArgumentPack, PointerParametersRejectWithTheArgumentAndWhy) {
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("float32*, const float32*, int32"));
  ArgumentPack pack(sig);
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "<f8", {4})), ArgumentTypeError,
                   "argument 0: a float64 array (typestr '<f8') was passed where the signature says float32*");
  EXPECT_THROW_MSG(pack.set_array(1, fake_view(0x1000, "<f4", {4, 3}, std::vector<std::int64_t>{24, 4})),
                   ArgumentTypeError,
                   "argument 1: an array that is neither C- nor F-contiguous (strides (24, 4); a pointer "
                   "parameter indexes the array flat, so pass a contiguous copy) was passed where the "
                   "signature says const float32*");
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "<f4", {4}, std::nullopt, true)), std::invalid_argument,
                   "argument 0: the array is read-only but the kernel may write it (float32*); pass a writable "
                   "array, or declare the parameter 'const float32*'");
  EXPECT_THROW_MSG(pack.set_address(2, 0x1000), ArgumentTypeError,
                   "argument 2: a device address (4096) was passed where the signature says int32");
  EXPECT_THROW_MSG(pack.set_scalar(0, std::int64_t{5}), ArgumentTypeError,
                   "argument 0: an int (5) was passed where the signature says float32*");
  auto masked = fake_view(0x1000, "<f4", {4}).with_mask(std::make_shared<ArrayView>(fake_view(0x2000, "|b1", {4})));
  EXPECT_THROW_MSG(pack.set_array(1, masked), MaskNotSupported, "mask");
}

TEST(KernelSignature, RecordsAndArraysOfRecordsInNumbasSpelling) {
  const std::string rec = "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)";
  auto sig = KernelSignature::parse("void(" + rec + "[::1], unaligned array(" + rec + ", 2d, A), const " + rec +
                                    ", Record(s0=uint64, s1=uint64)[:])");
  ASSERT_EQ(sig.size(), 4u);
  EXPECT_EQ(sig[0].to_string(), rec + "[::1]");
  EXPECT_EQ(sig[1].to_string(), rec + "[:, :]");
  EXPECT_EQ(sig[2].to_string(), "const " + rec);  // one record: its address
  EXPECT_EQ(sig[3].to_string(), "Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;False)[:]");
  EXPECT_EQ(sig[0].record_size, 8u);
  EXPECT_EQ(sig[3].record_size, 16u);
  EXPECT_TRUE(sig[2].is_record() && sig[2].takes_array());
  EXPECT_EQ(sig.slot_count(0), 7u);
  EXPECT_EQ(sig.slot_count(2), 1u);
  EXPECT_EQ(KernelSignature::parse(sig.to_string()), sig);
  EXPECT_THROW_MSG(KernelSignature::parse("void(Record(x[type=float64;offset=0];4;False)[:])"), std::invalid_argument,
                   "'Record(x[type=float64;offset=0];4;False)' is not a record in Numba's spelling");
}

// Arrays of NumPy's fixed-width strings (Numba's CharSeq / UnicodeCharSeq): "[char x 12]" takes '|S12',
// "[unichr x 3]" takes '<U3' (12 bytes, native order) and nothing else, laid out as any array.
TEST(ArgumentPack, FixedWidthStringArraysTakeTheirTypestrOnly) {
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("void([char x 12][::1], array([unichr x 3], 1d, C))"));
  EXPECT_EQ((*sig)[0].to_string(), "[char x 12][::1]");
  EXPECT_EQ((*sig)[1].record_kind, 'U');
  EXPECT_EQ((*sig)[1].record_size, 12u);
  ArgumentPack pack(sig);
  pack.set_array(0, fake_view(0x1000, "|S12", {5}));
  pack.set_array(1, fake_view(0x2000, "<U3", {2}));
  pack.check_complete();
  EXPECT_EQ(read_at<std::int64_t>(pack, 16), 5);   // nitems
  EXPECT_EQ(read_at<std::int64_t>(pack, 24), 12);  // itemsize
  EXPECT_EQ(read_at<std::uint64_t>(pack, 32), 0x1000u);
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "|S11", {5})), ArgumentTypeError,
                   "argument 0: an array of typestr '|S11' (an array of [char x 12] takes typestr '|S12', native order)");
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "<U3", {5})), ArgumentTypeError, "takes typestr '|S12'");
  EXPECT_THROW_MSG(pack.set_array(1, fake_view(0x2000, ">U3", {2})), ArgumentTypeError,
                   "an array of [unichr x 3] takes typestr '<U3', native order");
  EXPECT_THROW_MSG(pack.set_array(1, fake_view(0x2000, "|V12", {2})), ArgumentTypeError, "typestr '|V12'");
}

// datetime64 / timedelta64 (Numba's NPDatetime(unit)): an array parameter takes its kind and unit only; a
// scalar parameter is its int64 count and takes only a datetime scalar of its kind and unit (no number, no
// other unit: Numba converts neither), and a number parameter takes no datetime.
TEST(ArgumentPack, DatetimeParametersTakeTheirKindAndUnitOnly) {
  auto sig = std::make_shared<KernelSignature>(
      KernelSignature::parse("void(datetime64[D][::1], timedelta64[h], int64, array(timedelta64[], 1d, A))"));
  EXPECT_EQ((*sig)[0].to_string(), "datetime64[D][::1]");
  EXPECT_EQ((*sig)[1].to_string(), "timedelta64[h]");
  EXPECT_EQ(sig->slot_count(1), 1u);
  ArgumentPack pack(sig);
  pack.set_array(0, fake_view(0x1000, "<M8[D]", {5}));
  pack.set_scalar(1, Scalar::datetime('m', 5, -3));
  pack.set_scalar(2, std::int64_t{7});
  pack.set_array(3, fake_view(0x2000, "<m8", {2}));
  pack.check_complete();
  EXPECT_EQ(read_at<std::int64_t>(pack, 24), 8);  // itemsize
  EXPECT_EQ(read_at<std::uint64_t>(pack, 32), 0x1000u);
  EXPECT_EQ(read_at<std::int64_t>(pack, 56), -3);  // the count, after the array's 7 slots
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "<M8[s]", {5})), ArgumentTypeError,
                   "argument 0: an array of typestr '<M8[s]' (an array of datetime64[D] takes typestr '<M8[D]', "
                   "native order: the unit is part of the type)");
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "<m8[D]", {5})), ArgumentTypeError, "takes typestr '<M8[D]'");
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "<i8", {5})), ArgumentTypeError, "typestr '<i8'");
  EXPECT_THROW_MSG(pack.set_array(3, fake_view(0x2000, "<m8[s]", {2})), ArgumentTypeError, "takes typestr '<m8'");
  EXPECT_THROW_MSG(pack.set_scalar(1, Scalar::datetime('m', 4, 3)), ArgumentTypeError,
                   "argument 1: a datetime64/timedelta64 (numpy.timedelta64(3,'D')) was passed where the signature "
                   "says timedelta64[h]");
  EXPECT_THROW_MSG(pack.set_scalar(1, Scalar::datetime('M', 5, 3)), ArgumentTypeError, "numpy.datetime64(3,'h')");
  EXPECT_THROW_MSG(pack.set_scalar(1, std::int64_t{3}), ArgumentTypeError, "an int (3)");
  EXPECT_THROW_MSG(pack.set_scalar(2, Scalar::datetime('M', 4, INT64_MIN)), ArgumentTypeError,
                   "numpy.datetime64('NaT','D')) was passed where the signature says int64");
}

TEST(ArgumentPack, RecordParametersTakeStructuredArraysByTheirItemSize) {
  const std::string rec = "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)";
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("void(" + rec + "[::1], " + rec + ")"));
  ArgumentPack pack(sig);
  pack.set_array(0, fake_view(0x1000, "|V8", {5}));
  pack.set_array(1, fake_view(0x2000, "|V8", {}));
  pack.check_complete();
  EXPECT_EQ(read_at<std::int64_t>(pack, 16), 5);  // nitems
  EXPECT_EQ(read_at<std::int64_t>(pack, 24), 8);  // itemsize
  EXPECT_EQ(read_at<std::uint64_t>(pack, 32), 0x1000u);
  EXPECT_EQ(read_at<std::uint64_t>(pack, 56), 0x2000u);  // the record's address, after the array's 7 slots
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "|V16", {5})), ArgumentTypeError,
                   "argument 0: an array of typestr '|V16' (an array of records takes a structured array of itemsize 8");
  EXPECT_THROW_MSG(pack.set_array(0, fake_view(0x1000, "<f8", {5})), ArgumentTypeError,
                   "DLPack cannot express record dtypes");
  EXPECT_THROW_MSG(pack.set_array(1, fake_view(0x2000, "|V8", {3})), ArgumentTypeError,
                   "argument 1: an array of 3 records (shape (3,)); a record parameter takes one");
  EXPECT_THROW_MSG(pack.set_address(1, 0x2000), ArgumentTypeError, "argument 1: a device address");
}

TEST(Float16, RoundsToNearestEvenLikeNumPy) {
  EXPECT_EQ(float16_bits(0.0), 0x0000);
  EXPECT_EQ(float16_bits(-0.0), 0x8000);
  EXPECT_EQ(float16_bits(1.0), 0x3c00);
  EXPECT_EQ(float16_bits(-2.0), 0xc000);
  EXPECT_EQ(float16_bits(65504.0), 0x7bff);
  EXPECT_EQ(float16_bits(65519.0), 0x7bff);
  EXPECT_EQ(float16_bits(65520.0), 0x7c00);  // halfway to the next, ties to even: infinity
  EXPECT_EQ(float16_bits(1e300), 0x7c00);
  EXPECT_EQ(float16_bits(5.960464477539063e-08), 0x0001);  // 2^-24, the smallest subnormal
  EXPECT_EQ(float16_bits(2.9802322387695312e-08), 0x0000);  // 2^-25: a tie, rounds to even (zero)
  EXPECT_EQ(float16_bits(6.103515625e-05), 0x0400);  // 2^-14, the smallest normal
  EXPECT_EQ(float16_bits(1.0 + 1.0 / 2048), 0x3c00);  // tie between 1 and 1+2^-10: even (1)
  EXPECT_EQ(float16_bits(1.0 + 3.0 / 2048), 0x3c02);  // tie: rounds up to even
  EXPECT_EQ(float16_bits(0.1), 0x2e66);
  EXPECT_EQ(float16_bits(std::numeric_limits<double>::infinity()), 0x7c00);
  EXPECT_EQ(float16_bits(std::numeric_limits<double>::quiet_NaN()) & 0x7e00, 0x7e00);
}

// A launch configuration of grid `g`, block `b` and `smem` bytes of dynamic shared memory.
LaunchConfig cfg(std::vector<std::int64_t> g, std::vector<std::int64_t> b, std::int64_t smem = 0) {
  LaunchConfig c;
  c.grid = Extent3::of(g, "griddim");
  c.block = Extent3::of(b, "blockdim");
  c.shared_mem = smem;
  return c;
}

TEST(LaunchConfig, ValidatesEveryLimitWithTheValueAndTheLimit) {
  DeviceLimits dev;  // the H100's numbers
  dev.max_shared_optin = 232448;
  KernelLimits k{1024, 1024};
  validate_launch(cfg({1}, {1024}), dev, k);
  validate_launch(cfg({2147483647, 65535, 65535}, {32, 32, 1}, 231424), dev, k);
  EXPECT_THROW_MSG(validate_launch(cfg({0}, {32}), dev, k), std::invalid_argument,
                   "griddim 0: extent x is 0; every extent must be at least 1");
  EXPECT_THROW_MSG(validate_launch(cfg({4, -1}, {32}), dev, k), std::invalid_argument,
                   "griddim (4, -1): extent y is -1");
  EXPECT_THROW_MSG(validate_launch(cfg({1}, {2048}), dev, k), std::invalid_argument,
                   "blockdim 2048: extent x is 2048, above the device's limit of 1024");
  EXPECT_THROW_MSG(validate_launch(cfg({1}, {1, 1, 65}), dev, k), std::invalid_argument,
                   "blockdim (1, 1, 65): extent z is 65, above the device's limit of 64");
  EXPECT_THROW_MSG(validate_launch(cfg({1, 65536}, {1}), dev, k), std::invalid_argument,
                   "griddim (1, 65536): extent y is 65536, above the device's limit of 65535");
  EXPECT_THROW_MSG(validate_launch(cfg({2147483648}, {1}), dev, k), std::invalid_argument,
                   "griddim 2147483648: extent x is 2147483648, above the device's limit of 2147483647");
  EXPECT_THROW_MSG(validate_launch(cfg({1}, {64, 32}), dev, k), std::invalid_argument,
                   "blockdim (64, 32): 2048 threads per block exceed the limit of 1024");
  EXPECT_THROW_MSG(validate_launch(cfg({1}, {1024}), dev, KernelLimits{512, 0}), std::invalid_argument,
                   "1024 threads per block exceed the limit of 512 (the device allows 1024, this kernel 512");
  EXPECT_THROW_MSG(validate_launch(cfg({1}, {32}, 231425), dev, k), std::invalid_argument,
                   "sharedmem 231425: 231425 bytes of dynamic shared memory plus the kernel's 1024 static "
                   "bytes exceed the device's maximum of 232448 bytes per block");
  EXPECT_THROW_MSG(validate_launch(cfg({1}, {32}, -1), dev, k), std::invalid_argument,
                   "sharedmem -1: dynamic shared memory must be 0 or more bytes");
  std::vector<std::int64_t> four = {1, 1, 1, 1};
  EXPECT_THROW_MSG(Extent3::of(four, "griddim"), std::invalid_argument,
                   "griddim: 4 extents given; give an int or a tuple of 1 to 3 ints");
  EXPECT_THROW_MSG(validate_launch(cfg({1}, {32}, INT64_MAX), dev, k), std::invalid_argument,
                   "sharedmem 9223372036854775807");
  EXPECT_EQ(blocks_for(INT64_MAX, 256), INT64_MAX / 256 + 1);
  EXPECT_EQ(blocks_for(1000, 256), 4);
  EXPECT_EQ(blocks_for(1024, 256), 4);
}

// Every refusal is a LaunchConfigError naming the driver error the launch would meet (numba-cuda's users see
// the driver's CUDA_ERROR_INVALID_VALUE for these), after cubridge's explanation.
TEST(LaunchConfig, RefusalsAreLaunchConfigErrorsNamingTheDriverError) {
  DeviceLimits dev;
  KernelLimits k{128, 0};
  const std::vector<LaunchConfig> refused = {cfg({0}, {32}), cfg({1}, {256}), cfg({1}, {2048}),
                                             cfg({1}, {32}, -1), cfg({1}, {32}, INT64_MAX)};
  for (const LaunchConfig& c : refused) {
    try {
      validate_launch(c, dev, k);
      ADD_FAILURE() << "no exception for blockdim " << c.block.to_string();
    } catch (const LaunchConfigError& e) {
      const std::string text = e.what();
      EXPECT_NE(text.find("; the driver refuses such a launch with CUDA_ERROR_INVALID_VALUE"), std::string::npos)
          << text;
    }
  }
  EXPECT_THROW_MSG(validate_launch(cfg({1}, {256}), dev, k), LaunchConfigError,
                   "blockdim 256: 256 threads per block exceed the limit of 128 (the device allows 1024, this kernel "
                   "128 with its registers); the driver refuses such a launch with CUDA_ERROR_INVALID_VALUE");
  EXPECT_STREQ(LaunchConfigError::driver_error, "CUDA_ERROR_INVALID_VALUE");
}

TEST(LaunchStream, ExplicitElseFirstSynchronisingArrayElseTheDefault) {
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("float32[:], float32[:], int32"));
  ArgumentPack pack(sig);
  const StreamRef p = StreamRef::external(reinterpret_cast<CUstream>(0x1000));
  const StreamRef q = StreamRef::external(reinterpret_cast<CUstream>(0x2000));
  pack.set_array(0, fake_view(0x1000, "<f4", {4}).with_stream(p, /*sync=*/false));  // sync off: ignored
  pack.set_array(1, fake_view(0x2000, "<f4", {4}).with_stream(q));
  pack.set_scalar(2, std::int64_t{1});
  LaunchConfig c;
  EXPECT_EQ(launch_stream(c, pack), q);
  c.stream = p;
  EXPECT_EQ(launch_stream(c, pack), p);
  c.stream.reset();
  pack.set_array(1, fake_view(0x2000, "<f4", {4}));
  EXPECT_EQ(launch_stream(c, pack), StreamRef::legacy());
  c.default_stream = StreamRef::per_thread();
  EXPECT_EQ(launch_stream(c, pack), StreamRef::per_thread());
}

std::string test_ptx() {
  const char* root = std::getenv("CUBRIDGE_SOURCE_DIR");
  std::ifstream f(std::string(root ? root : ".") + "/tests/cpp/kernel/numba_abi_kernels.ptx");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(CodeImage, RecognisesPtxCubinFatbinAndRefusesTheRest) {
  std::string ptx = test_ptx();
  ASSERT_FALSE(ptx.empty()) << "set CUBRIDGE_SOURCE_DIR to the repository";
  auto bytes = [](std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); };
  EXPECT_EQ(detect_image_format(bytes(ptx)), ImageFormat::Ptx);
  EXPECT_EQ(detect_image_format(bytes(std::string_view("\x7f" "ELF\x02\x01", 6))), ImageFormat::Cubin);
  EXPECT_EQ(detect_image_format(bytes(std::string_view("\x50\xed\x55\xba\x01\x00", 6))), ImageFormat::Fatbin);
  EXPECT_THROW_MSG(detect_image_format(bytes(std::string_view("BC\xc0\xde\x35\x14", 6))), std::invalid_argument,
                   "LLVM bitcode");
  EXPECT_THROW_MSG(detect_image_format(bytes("hello")), std::invalid_argument,
                   "5 bytes starting with 68 65 6c 6c 6f are neither PTX text");
  EXPECT_THROW_MSG(detect_image_format({}), std::invalid_argument, "empty");
  EXPECT_EQ(ptx_entry_names(ptx), (std::vector<std::string>{"add_f32", "scale_2d", "fill_3d", "scalars",
                                                            "reverse_block", "slow_fill"}));
}

}  // namespace
}  // namespace cubridge
