// Kernel layer on a GPU: loading PTX (and the JIT log on failure), attributes, launches of
// Numba-layout kernels with every scalar type, 1-3-d arrays, dynamic shared memory beyond 48 KiB,
// CAI v3 ordering with a producer stream in both directions, and close() invalidating modules.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>
#include <vector>

#include "cubridge/driver.hpp"
#include "cubridge/kernel.hpp"
#include "driver/driver_api.hpp"
#include "gpu.hpp"

namespace cubridge {
namespace {

std::string test_ptx() {
  const char* root = std::getenv("CUBRIDGE_SOURCE_DIR");
  std::ifstream f(std::string(root ? root : ".") + "/tests/cpp/kernel/numba_abi_kernels.ptx");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Device memory for a test, in the context that is current (the primary context of device 0).
struct DeviceBuffer {
  CUdeviceptr ptr = 0;
  std::size_t bytes = 0;
  explicit DeviceBuffer(std::size_t n) : bytes(n) { CUBRIDGE_CU(cuMemAlloc, &ptr, n); }
  ~DeviceBuffer() { CUBRIDGE_CU_RESULT(cuMemFree, ptr); }
  template <class T> void upload(const std::vector<T>& v) { CUBRIDGE_CU(cuMemcpyHtoD, ptr, v.data(), v.size() * sizeof(T)); }
  template <class T> std::vector<T> download(std::size_t n) const {
    std::vector<T> v(n);
    CUBRIDGE_CU(cuMemcpyDtoH, v.data(), ptr, n * sizeof(T));
    return v;
  }
};

ArrayView view(const DeviceBuffer& b, const char* typestr, std::vector<std::int64_t> shape,
               std::optional<std::vector<std::int64_t>> strides = std::nullopt) {
  ArrayView::Layout l;
  l.data = reinterpret_cast<void*>(b.ptr);
  l.dtype = parse_typestr(typestr, "test");
  l.shape = shape;
  if (strides) l.strides = std::span<const std::int64_t>(*strides);
  return ArrayView(l, nullptr, "test");
}

LaunchConfig config(std::vector<std::int64_t> grid, std::vector<std::int64_t> block, std::int64_t smem = 0) {
  LaunchConfig c;
  c.grid = Extent3::of(grid, "griddim");
  c.block = Extent3::of(block, "blockdim");
  c.shared_mem = smem;
  return c;
}

struct KernelGpu : ::testing::Test {
  void SetUp() override {
    CUBRIDGE_REQUIRE_GPU();
    context = Context::primary(Device(0));
    scope.emplace(*context);
    module = Module::load_ptx(context, test_ptx());
  }
  std::shared_ptr<Context> context;
  std::optional<ScopedContext> scope;
  std::shared_ptr<Module> module;
};

TEST_F(KernelGpu, GpuLoadsPtxListsEntriesAndReadsAttributes) {
  EXPECT_EQ(module->format(), ImageFormat::Ptx);
  EXPECT_EQ(module->entry_names().size(), 6u);
  auto k = module->function("add_f32");
  EXPECT_GT(k->attributes().max_threads_per_block, 0);
  EXPECT_GT(k->attributes().num_regs, 0);
  EXPECT_EQ(k->attributes().static_shared, 0);
  EXPECT_GT(k->device_limits().max_shared_optin, 0);
  EXPECT_GT(k->suggested_block_size(), 0);
  try {
    module->function("nope");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'nope' is not in the module (its entries: add_f32, scale_2d"),
              std::string::npos) << e.what();
  }
}

TEST_F(KernelGpu, GpuJitFailureCarriesTheErrorLog) {
  std::string bad = ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry broken()\n{\n  bogus.instruction;\n}\n";
  try {
    Module::load_ptx(context, bad);
    FAIL() << "no exception";
  } catch (const CudaError& e) {
    EXPECT_EQ(e.call(), "cuModuleLoadDataEx");
    EXPECT_NE(std::string(e.what()).find("JIT error log"), std::string::npos) << e.what();
  }
}

TEST_F(KernelGpu, GpuAddsOnANonDefaultStream) {
  const std::size_t n = 1000;
  DeviceBuffer a(n * 4), b(n * 4), out(n * 4);
  std::vector<float> ha(n), hb(n);
  std::iota(ha.begin(), ha.end(), 0.0f);
  std::iota(hb.begin(), hb.end(), 1000.0f);
  a.upload(ha);
  b.upload(hb);
  Stream s(context);
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("const float32[:], const float32[:], float32[:]"));
  ArgumentPack pack(sig);
  pack.set_array(0, view(a, "<f4", {static_cast<std::int64_t>(n)}));
  pack.set_array(1, view(b, "<f4", {static_cast<std::int64_t>(n)}));
  pack.set_array(2, view(out, "<f4", {static_cast<std::int64_t>(n)}));
  auto k = module->function("add_f32");
  LaunchConfig c = config({blocks_for(n, 128)}, {128});
  c.stream = s.ref();
  EXPECT_EQ(launch(*k, c, pack), s.ref());
  s.ref().synchronize();
  auto r = out.download<float>(n);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(r[i], ha[i] + hb[i]) << i;
}

TEST_F(KernelGpu, GpuPassesEveryScalarTypeBitExactly) {
  DeviceBuffer out(16 * 8);
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse(
      "uint64[:], bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64, "
      "complex64, complex128"));
  ArgumentPack pack(sig);
  pack.set_array(0, view(out, "<u8", {16}));
  std::size_t i = 1;
  for (Scalar v : {Scalar(true), Scalar(std::int64_t{-7}), Scalar(std::int64_t{-3000}), Scalar(std::int64_t{-100000}),
                   Scalar(std::int64_t{-(std::int64_t{1} << 50)}), Scalar(std::int64_t{200}), Scalar(std::int64_t{60000}),
                   Scalar(std::int64_t{4000000000}), Scalar(std::uint64_t{1} << 63), Scalar(-1.5), Scalar(0.1),
                   Scalar(1e100), Scalar(std::complex<double>(1.25, -3.5)), Scalar(std::complex<double>(1e-300, 2e300))})
    pack.set_scalar(i++, v);
  launch(*module->function("scalars"), config({1}, {1}), pack);
  context->synchronize();
  auto r = out.download<std::uint64_t>(16);
  auto fbits = [](float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return std::uint64_t{u}; };
  auto dbits = [](double d) { std::uint64_t u; std::memcpy(&u, &d, 8); return u; };
  std::vector<std::uint64_t> want = {1, static_cast<std::uint64_t>(-7), static_cast<std::uint64_t>(-3000),
                                     static_cast<std::uint64_t>(-100000), static_cast<std::uint64_t>(-(std::int64_t{1} << 50)),
                                     200, 60000, 4000000000u, std::uint64_t{1} << 63, float16_bits(-1.5),
                                     fbits(0.1f), dbits(1e100), fbits(1.25f), fbits(-3.5f), dbits(1e-300), dbits(2e300)};
  EXPECT_EQ(r, want);
}

TEST_F(KernelGpu, GpuScalesA2dSlicedArrayAndFillsA3dOneWithA3dGrid) {
  // 2-d: every other column of a 4 x 6 float64 array (strides 48, 16 bytes).
  DeviceBuffer x(4 * 6 * 8);
  std::vector<double> hx(24);
  std::iota(hx.begin(), hx.end(), 0.0);
  x.upload(hx);
  auto sig2 = std::make_shared<KernelSignature>(KernelSignature::parse("float64[:, :], float64"));
  ArgumentPack p2(sig2);
  p2.set_array(0, view(x, "<f8", {4, 3}, std::vector<std::int64_t>{48, 16}));
  p2.set_scalar(1, 2.0);
  launch(*module->function("scale_2d"), config({1, 1}, {8, 8}), p2);
  // 3-d: int32 (3, 4, 5) C-contiguous.
  DeviceBuffer y(60 * 4), info(3 * 8);
  auto sig3 = std::make_shared<KernelSignature>(KernelSignature::parse("int32[:, :, ::1], int64[:]"));
  ArgumentPack p3(sig3);
  p3.set_array(0, view(y, "<i4", {3, 4, 5}));
  p3.set_array(1, view(info, "<i8", {3}));
  launch(*module->function("fill_3d"), config({1, 2, 3}, {5, 2, 1}), p3);
  context->synchronize();
  auto rx = x.download<double>(24);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(rx[i], (i % 2 == 0) ? 2.0 * i : 1.0 * i) << i;
  auto ry = y.download<int>(60);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k) EXPECT_EQ(ry[i * 20 + j * 5 + k], 100 * i + 10 * j + k);
  EXPECT_EQ(info.download<std::int64_t>(3), (std::vector<std::int64_t>{60, 4, 0}));
}

TEST_F(KernelGpu, GpuOptsInToDynamicSharedMemoryBeyond48KiB) {
  const int n = 2048, block = 1024;
  DeviceBuffer x(n * 4), out(n * 4);
  std::vector<float> hx(n);
  std::iota(hx.begin(), hx.end(), 0.0f);
  x.upload(hx);
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("float32[:], float32[:]"));
  ArgumentPack pack(sig);
  pack.set_array(0, view(x, "<f4", {n}));
  pack.set_array(1, view(out, "<f4", {n}));
  auto k = module->function("reverse_block");
  const std::int64_t smem = 64 * 1024;
  if (k->device_limits().max_shared_optin < smem) GTEST_SKIP() << "device opt-in maximum below 64 KiB";
  launch(*k, config({n / block}, {block}, smem), pack);
  EXPECT_GE(k->attributes().max_dynamic_shared, smem);
  context->synchronize();
  auto r = out.download<float>(n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(r[i], hx[(i / block) * block + block - 1 - i % block]) << i;
  try {
    launch(*k, config({1}, {32}, k->device_limits().max_shared_optin + 1), pack);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("exceed the device's maximum"), std::string::npos) << e.what();
  }
}

// The producer fills `x` slowly on stream P; the launch on stream L must see the fill (L waits for P),
// and a copy enqueued on P after the launch must see the launch's output (P waits for L). Only the
// producer stream is synchronized: a missing wait in either direction shows as wrong values.
TEST_F(KernelGpu, GpuOrdersProducerAndLaunchStreamsBothWays) {
  const int n = 256;
  DeviceBuffer x(n * 4), zero(n * 4), out(n * 4);
  CUBRIDGE_CU(cuMemsetD8, x.ptr, 0, n * 4);
  CUBRIDGE_CU(cuMemsetD8, zero.ptr, 0, n * 4);
  CUBRIDGE_CU(cuMemsetD8, out.ptr, 0, n * 4);
  Stream producer(context), launcher(context);
  auto fill_sig = std::make_shared<KernelSignature>(KernelSignature::parse("float32[:], float32, int64"));
  ArgumentPack fill(fill_sig);
  fill.set_array(0, view(x, "<f4", {n}));
  fill.set_scalar(1, 7.0);
  fill.set_scalar(2, std::int64_t{200'000'000});  // ~0.1 s of spinning
  LaunchConfig fc = config({1}, {n});
  fc.stream = producer.ref();
  launch(*module->function("slow_fill"), fc, fill);

  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("const float32[:], const float32[:], float32[:]"));
  ArgumentPack pack(sig);
  pack.set_array(0, view(x, "<f4", {n}).with_stream(producer.ref()));
  pack.set_array(1, view(zero, "<f4", {n}).with_stream(producer.ref()));
  pack.set_array(2, view(out, "<f4", {n}).with_stream(producer.ref()));
  LaunchConfig c = config({1}, {n});
  c.stream = launcher.ref();
  launch(*module->function("add_f32"), c, pack);

  std::vector<float> host(n, -1.0f);
  CUBRIDGE_CU(cuMemcpyDtoHAsync, host.data(), out.ptr, n * 4, producer.handle());
  producer.ref().synchronize();
  for (int i = 0; i < n; ++i) ASSERT_EQ(host[i], 7.0f) << i;
}

TEST_F(KernelGpu, GpuUsesTheArraysStreamWhenNoneIsGiven) {
  Stream s(context);
  DeviceBuffer a(64 * 4), out(64 * 4);
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("float32[:], float32[:], float32[:]"));
  ArgumentPack pack(sig);
  pack.set_array(0, view(a, "<f4", {64}).with_stream(s.ref()));
  pack.set_array(1, view(a, "<f4", {64}).with_stream(s.ref()));
  pack.set_array(2, view(out, "<f4", {64}).with_stream(s.ref()));
  EXPECT_EQ(launch(*module->function("add_f32"), config({1}, {64}), pack), s.ref());
  s.ref().synchronize();
}

TEST_F(KernelGpu, GpuModuleCacheReusesPerContextAndCloseInvalidates) {
  std::string ptx = test_ptx();
  auto bytes = std::as_bytes(std::span(ptx.data(), ptx.size()));
  clear_module_cache();
  auto m1 = Module::cached(context, bytes);
  auto m2 = Module::cached(context, bytes);
  EXPECT_EQ(m1, m2);
  EXPECT_EQ(module_cache_size(), 1u);
  auto k = m1->function("add_f32");
  scope.reset();
  module.reset();
  Context::close_all();
  EXPECT_FALSE(m1->valid());
  try {
    m1->handle();
    FAIL() << "no exception";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("cubridge.close() destroyed"), std::string::npos) << e.what();
  }
  EXPECT_THROW(k->handle(), CudaError);
  auto fresh = Context::primary(Device(0));
  auto m3 = Module::cached(fresh, bytes);
  EXPECT_NE(m3, m1);
  EXPECT_TRUE(m3->valid());
  EXPECT_EQ(module_cache_size(), 1u);
  clear_module_cache();
}

}  // namespace
}  // namespace cubridge
