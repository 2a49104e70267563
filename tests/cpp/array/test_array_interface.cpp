// Tests of the CAI consumer rules in C++ terms: versions 0-3, stream values, mask, DLPack ownership.
// CPU only: zero pointers or no driver make the pointer check a no-op here.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "cubridge/array/array_interface.hpp"
#include "cubridge/array/dlpack_exchange.hpp"
#include "cubridge/array/errors.hpp"

using namespace cubridge;

namespace {
std::vector<std::int64_t> g_shape{2, 3};
ArrayInterface desc(int version = 3) {
  ArrayInterface d;
  d.version = version;
  d.shape = g_shape;
  d.typestr = "<f4";
  d.data = 0;  // with a zero-size check skipped below we keep the tests free of the driver
  return d;
}
ImportOptions no_check() { return ImportOptions{true, false}; }
void delete_if(CubridgeDLManagedTensorVersioned* t) {
  if (t) t->deleter(t);
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

TEST(ArrayInterface, StreamRules) {
  ArrayInterface d = desc();
  d.stream = 1;
  EXPECT_TRUE(view_from_interface(d, nullptr, no_check()).stream()->is_legacy_default());
  d.stream = 2;
  EXPECT_TRUE(view_from_interface(d, nullptr, no_check()).stream()->is_per_thread_default());
  d.stream = 0x1234;
  ArrayView v = view_from_interface(d, nullptr, no_check());
  EXPECT_EQ(v.stream()->cai_value(), 0x1234u);
  EXPECT_TRUE(v.synchronizes());
  EXPECT_FALSE(view_from_interface(d, nullptr, ImportOptions{false, false}).synchronizes());
  d.stream = std::nullopt;
  EXPECT_FALSE(view_from_interface(d, nullptr, no_check()).stream().has_value());
  d.stream = 0;
  EXPECT_EQ(error_of([&] { view_from_interface(d, nullptr, no_check()); }),
            "__cuda_array_interface__['stream']: 0 is disallowed by the CUDA Array Interface v3 (use 1 "
            "for the legacy default stream, 2 for the per-thread default stream, a stream handle, or None)");
}

TEST(ArrayInterface, VersionDifferences) {
  for (int v : {0, 1, 2}) {
    ArrayInterface d = desc(v);
    d.stream = 0x55;  // meaningless before v3: no synchronisation, no stream taken (not even 0 is checked)
    EXPECT_FALSE(view_from_interface(d, nullptr, no_check()).stream().has_value()) << v;
    d.stream = 0;
    EXPECT_NO_THROW(view_from_interface(d, nullptr, no_check())) << v;
  }
  ArrayInterface m0 = desc(0);
  m0.has_mask = true;
  EXPECT_NE(error_of([&] { view_from_interface(m0, nullptr, no_check()); }).find("version 0 of the interface has no mask"),
            std::string::npos);
  ArrayInterface m1 = desc(1);
  m1.has_mask = true;
  EXPECT_NO_THROW(view_from_interface(m1, nullptr, no_check()));
  // v0/v1 producers may give explicit strides for C-contiguous data; they are accepted as given.
  std::vector<std::int64_t> strides{12, 4};
  ArrayInterface s = desc(1);
  s.strides = strides;
  ArrayView sv = view_from_interface(s, nullptr, no_check());
  EXPECT_TRUE(sv.is_c_contiguous());
  EXPECT_FALSE(sv.strides_implicit());
  EXPECT_EQ(error_of([] { view_from_interface(desc(4), nullptr, no_check()); }),
            "__cuda_array_interface__['version']: 4 is not a version this consumer understands (accepted: 0, 1, 2, 3)");
  EXPECT_NE(error_of([] { view_from_interface(desc(-1), nullptr, no_check()); }).find("-1 is not a version"),
            std::string::npos);
}

TEST(ArrayInterface, TypestrAndShapeErrorsNameTheKey) {
  ArrayInterface d = desc();
  d.typestr = "<f3";
  EXPECT_EQ(error_of([&] { view_from_interface(d, nullptr, no_check()); }),
            "__cuda_array_interface__['typestr']: '<f3' is not a valid typestr (itemsize 3 is not one of "
            "2, 4, 8 for kind 'f')");
  std::vector<std::int64_t> bad{2, -1};
  d = desc();
  d.shape = bad;
  EXPECT_NE(error_of([&] { view_from_interface(d, nullptr, no_check()); }).find("['shape'][1]: -1 is negative"),
            std::string::npos);
}

TEST(ArrayInterface, SwitchesHaveSafeDefaults) {
  EXPECT_TRUE(export_stream_enabled());
  set_consumer_sync_default(false);
  EXPECT_FALSE(consumer_sync_default());
  set_consumer_sync_default(true);
  EXPECT_TRUE(consumer_sync_default());
}

TEST(DLPackExchange, ExportImportRoundTripAndDeleterRunsOnce) {
  auto owner = std::make_shared<int>(1);
  std::weak_ptr<int> weak = owner;
  std::vector<std::int64_t> shape{4, 3};
  std::vector<std::int64_t> strides{4, 16};  // Fortran order, in bytes
  ArrayView::Layout l{reinterpret_cast<void*>(0x1000), parse_typestr("<f4", "t"), shape, std::span<const std::int64_t>(strides), true};
  ArrayView v(l, owner);
  owner.reset();
  CubridgeDLManagedTensorVersioned* mt = to_dlpack_versioned(v, {CUBRIDGE_DL_CUDA, 0});
  v = ArrayView();
  EXPECT_FALSE(weak.expired());
  EXPECT_EQ(mt->version.major, 1u);
  EXPECT_EQ(mt->flags & CUBRIDGE_DLPACK_FLAG_READ_ONLY, CUBRIDGE_DLPACK_FLAG_READ_ONLY);
  EXPECT_EQ(mt->dl_tensor.strides[0], 1);
  EXPECT_EQ(mt->dl_tensor.strides[1], 4);
  EXPECT_EQ(mt->dl_tensor.dtype.code, CUBRIDGE_DL_FLOAT);
  ArrayView back = adopt_dlpack(mt);
  EXPECT_TRUE(back.read_only());
  EXPECT_TRUE(back.is_f_contiguous());
  EXPECT_EQ(back.address(), 0x1000u);
  EXPECT_EQ(back.device(), 0);
  EXPECT_FALSE(weak.expired());
  back = ArrayView();
  EXPECT_TRUE(weak.expired());
}

TEST(DLPackExchange, RefusesWhatDLPackCannotSay) {
  std::vector<std::int64_t> shape{4};
  std::vector<std::int64_t> odd{3};
  ArrayView::Layout big{reinterpret_cast<void*>(0x1000), parse_typestr(">f4", "t"), shape, std::nullopt, false};
  EXPECT_NE(error_of([&] { delete_if(to_dlpack_versioned(ArrayView(big, nullptr), {2, 0})); }).find("'>f4' has no DLPack equivalent"),
            std::string::npos);
  ArrayView::Layout strided{reinterpret_cast<void*>(0x1000), parse_typestr("<i2", "t"), shape, std::span<const std::int64_t>(odd), false};
  EXPECT_THROW(to_dlpack_versioned(ArrayView(strided, nullptr), {2, 0}), ExportError);
  ArrayView::Layout ro{reinterpret_cast<void*>(0x1000), parse_typestr("<i2", "t"), shape, std::nullopt, true};
  EXPECT_NE(error_of([&] { to_dlpack_unversioned(ArrayView(ro, nullptr), {2, 0}); }).find("read-only"), std::string::npos);
  ArrayView masked = ArrayView(ro, nullptr).with_mask(std::make_shared<const ArrayView>(ArrayView(ro, nullptr)));
  EXPECT_THROW(to_dlpack_versioned(masked, {2, 0}), MaskNotSupported);
}

TEST(DLPackExchange, ImportRefusalsStillRunTheDeleter) {
  static int deleted = 0;
  deleted = 0;
  static std::int64_t shape[1] = {3};
  auto* mt = new CubridgeDLManagedTensorVersioned{};
  mt->version = {2, 0};
  mt->deleter = [](CubridgeDLManagedTensorVersioned* self) { ++deleted; delete self; };
  mt->dl_tensor.device = {CUBRIDGE_DL_CUDA, 0};
  mt->dl_tensor.ndim = 1;
  mt->dl_tensor.shape = shape;
  mt->dl_tensor.dtype = {CUBRIDGE_DL_FLOAT, 32, 1};
  EXPECT_NE(error_of([&] { adopt_dlpack(mt); }).find("major version 2 is not supported"), std::string::npos);
  EXPECT_EQ(deleted, 1);
  CubridgeDLTensor cpu{};
  cpu.device = {CUBRIDGE_DL_CPU, 0};
  EXPECT_NE(error_of([&] { view_of_dltensor(cpu, false, nullptr); }).find("device type 1 is not GPU-accessible"),
            std::string::npos);
}

TEST(DLPackExchange, CheckWithAKnownDTypeRunsTheSameChecks) {
  // A caller that kept from_dlpack_dtype's answer passes it: the same dtype comes back, and every check of the
  // tensor's layout still runs, in the same order, naming the same field.
  static std::int64_t shape[2] = {4, 3};
  static std::int64_t strides[2] = {1, 4};
  CubridgeDLTensor t{};
  t.device = {CUBRIDGE_DL_CUDA, 0};
  t.ndim = 2;
  t.shape = shape;
  t.strides = strides;
  t.dtype = {CUBRIDGE_DL_FLOAT, 64, 1};
  const DType f8 = check_dltensor(t, kMaxDLPackNdim, "t");
  EXPECT_EQ(f8, parse_typestr("<f8", "t"));
  EXPECT_EQ(check_dltensor(t, kMaxDLPackNdim, "t", &f8), f8);
  static std::int64_t negative[2] = {4, -1};
  t.shape = negative;
  EXPECT_NE(error_of([&] { check_dltensor(t, kMaxDLPackNdim, "t", &f8); }).find("shape[1] is -1"), std::string::npos);
  t.shape = shape;
  t.device = {CUBRIDGE_DL_CPU, 0};
  EXPECT_NE(error_of([&] { check_dltensor(t, kMaxDLPackNdim, "t", &f8); }).find("device type 1"), std::string::npos);
  t.device = {CUBRIDGE_DL_CUDA, 0};
  static std::int64_t huge[2] = {std::int64_t{1} << 40, std::int64_t{1} << 40};
  t.shape = huge;
  EXPECT_NE(error_of([&] { check_dltensor(t, kMaxDLPackNdim, "t", &f8); }).find("overflows 64 bits"), std::string::npos);
}
