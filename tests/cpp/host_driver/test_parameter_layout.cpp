// The kernel's parameter layout (parameter_layout.hpp) on the host driver stand-in, with the driver's
// cuFuncGetParamInfo and cuLaunchKernel interposed: a signature laid out as the kernel's is launched as one packed
// buffer of the values set, exactly the kernel's bytes long; one laid out otherwise is refused by name, before
// anything is launched; a driver that cannot say (before CUDA 12.4) gets one pointer per parameter, as before.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <utility>
#include <vector>

#include "cubridge/driver.hpp"
#include "cubridge/error.hpp"
#include "cubridge/kernel.hpp"
#include "cubridge/xla/kernel_call.hpp"
#include "driver/driver_api.hpp"

using namespace cubridge;

namespace {

// What the interposed driver reports, and what it was handed.
std::vector<ParamSlot> g_layout;
CUresult g_info_failure = CUDA_SUCCESS;  // returned for every index where not CUDA_SUCCESS
struct Launched {
  int count = 0;
  bool had_params = false;
  std::vector<std::byte> packed;
  std::size_t packed_size = 0;
} g_launched;

CUresult fake_param_info(CUfunction, std::size_t index, std::size_t* offset, std::size_t* size) {
  if (g_info_failure != CUDA_SUCCESS) return g_info_failure;
  if (index >= g_layout.size()) return CUDA_ERROR_INVALID_VALUE;
  *offset = g_layout[index].offset;
  if (size != nullptr) *size = g_layout[index].size;
  return CUDA_SUCCESS;
}

CUresult fake_launch(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                     void** params, void** extra) {
  ++g_launched.count;
  g_launched.had_params = params != nullptr;
  g_launched.packed.clear();
  g_launched.packed_size = 0;
  for (void** e = extra; e != nullptr && *e != CU_LAUNCH_PARAM_END; e += 2) {
    if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) g_launched.packed_size = *static_cast<std::size_t*>(e[1]);
  }
  for (void** e = extra; e != nullptr && *e != CU_LAUNCH_PARAM_END; e += 2) {
    if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
      const auto* p = static_cast<const std::byte*>(e[1]);
      g_launched.packed.assign(p, p + g_launched.packed_size);
    }
  }
  return CUDA_SUCCESS;
}

std::shared_ptr<KernelSignature> signature(const char* text) {
  return std::make_shared<KernelSignature>(KernelSignature::parse(text));
}

// The value of type T the last launch's packed buffer holds at `offset`.
template <class T>
T launched_at(std::size_t offset) {
  T v{};
  std::memcpy(&v, g_launched.packed.data() + offset, sizeof v);
  return v;
}

// check_parameter_layout's refusal, or "no refusal".
std::string refusal(const Kernel& kernel, const KernelSignature& signature) {
  try {
    check_parameter_layout(kernel, signature);
  } catch (const cubridge::InvalidArgument& e) {
    return e.what();
  }
  return "no refusal";
}

struct ParameterLayout : ::testing::Test {
  void SetUp() override {
    auto& api = driver::mutable_api_for_testing();
    saved_info = api.cuFuncGetParamInfo;
    saved_launch = api.cuLaunchKernel;
    api.cuFuncGetParamInfo = &fake_param_info;
    api.cuLaunchKernel = &fake_launch;
    g_layout.clear();
    g_info_failure = CUDA_SUCCESS;
    g_launched = {};
    context = Context::primary(Device(0));
    scope.emplace(*context);
    module = Module::load_ptx(context, ".version 8.0\n.target sm_90\n.address_size 64\n");
  }
  void TearDown() override {
    scope.reset();
    auto& api = driver::mutable_api_for_testing();
    api.cuFuncGetParamInfo = saved_info;
    api.cuLaunchKernel = saved_launch;
  }
  // A kernel made now reads the layout the interposed driver reports now.
  std::shared_ptr<Kernel> kernel() { return std::make_shared<Kernel>(module, "k"); }
  // The refusal of signature `text` for a kernel the driver lays out as `layout`.
  std::string refusal_of(const char* text, std::vector<ParamSlot> layout) {
    g_layout = std::move(layout);
    return refusal(*kernel(), *signature(text));
  }
  static LaunchConfig one_block() {
    LaunchConfig c;
    c.grid = Extent3::of(std::vector<std::int64_t>{1}, "griddim");
    c.block = Extent3::of(std::vector<std::int64_t>{32}, "blockdim");
    return c;
  }

  decltype(driver::DriverApi::cuFuncGetParamInfo) saved_info = nullptr;
  decltype(driver::DriverApi::cuLaunchKernel) saved_launch = nullptr;
  std::shared_ptr<Context> context;
  std::optional<ScopedContext> scope;
  std::shared_ptr<Module> module;
};

TEST_F(ParameterLayout, AMatchingLayoutLaunchesThePackedBufferExactlyTheKernelsBytesLong) {
  // int8, int16, float32, int64, int32: natural alignment, ending at 20 (the packed buffer has 24 bytes).
  auto sig = signature("int8, int16, float32, int64, int32");
  g_layout = sig->slots();
  ASSERT_EQ(sig->parameter_bytes(), 20u);
  ASSERT_EQ(sig->buffer_size(), 24u);
  auto k = kernel();
  ASSERT_NE(k->parameter_layout(), nullptr);
  EXPECT_TRUE(check_parameter_layout(*k, *sig));
  ArgumentPack pack(sig);
  pack.set_scalar(0, std::int64_t{-7});
  pack.set_scalar(1, std::int64_t{30000});
  pack.set_scalar(2, 1.5);
  pack.set_scalar(3, std::int64_t{-1234567890123});
  pack.set_scalar(4, std::int64_t{-2});
  launch(*k, one_block(), pack);
  ASSERT_EQ(g_launched.count, 1);
  EXPECT_FALSE(g_launched.had_params);
  ASSERT_EQ(g_launched.packed_size, 20u);
  ASSERT_EQ(g_launched.packed.size(), 20u);
  EXPECT_EQ(launched_at<std::int8_t>(0), -7);
  EXPECT_EQ(launched_at<std::int16_t>(2), 30000);
  EXPECT_EQ(launched_at<float>(4), 1.5f);
  EXPECT_EQ(launched_at<std::int64_t>(8), -1234567890123);
  EXPECT_EQ(launched_at<std::int32_t>(16), -2);
}

TEST_F(ParameterLayout, AnArrayIsNumbasSevenWordsInThePackedBuffer) {
  auto sig = signature("float32[::1], int64");
  g_layout = sig->slots();
  auto k = kernel();
  const std::vector<std::int64_t> shape{12};
  ArrayView::Layout l;
  l.data = reinterpret_cast<void*>(std::uintptr_t{0x100000});
  l.dtype = parse_typestr("<f4", "test");
  l.shape = shape;
  ArrayView v(l, nullptr, "test");
  ArgumentPack pack(sig);
  pack.set_array_borrowed(0, v);
  pack.set_scalar(1, std::int64_t{5});
  ASSERT_EQ(pack.packed_for(*k).size(), 64u);
  std::vector<std::int64_t> words(8);
  std::memcpy(words.data(), pack.packed_for(*k).data(), 64);
  // meminfo, parent, nitems, itemsize, data, shape, strides, then the int64
  EXPECT_EQ(words, (std::vector<std::int64_t>{0, 0, 12, 4, 0x100000, 12, 4, 5}));
  pack.clear();
}

TEST_F(ParameterLayout, AWiderScalarThanTheKernelsIsRefusedByNameBeforeAnyLaunch) {
  auto sig = signature("float32*, int64");
  g_layout = {{0, 8}, {8, 4}};  // a C kernel (float* p, int n)
  auto k = kernel();
  const std::string m = refusal(*k, *sig);
  EXPECT_NE(m.find("kernel 'k' takes 2 parameters, 12 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("passes 2 parameters, 16 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("argument 1 (int64) is 8 bytes at offset 8, the kernel's parameter 1 is 4 bytes at offset 8"),
            std::string::npos) << m;
  EXPECT_NE(m.find("int32 for a C int"), std::string::npos) << m;
  ArgumentPack pack(sig);
  pack.set_address(0, 0x1000);
  pack.set_scalar(1, std::int64_t{3});
  EXPECT_THROW(launch(*k, one_block(), pack), cubridge::InvalidArgument);
  EXPECT_THROW(launch(*k, one_block(), pack), cubridge::InvalidArgument);  // refused every time, not once
  EXPECT_EQ(g_launched.count, 0);
  pack.clear();
}

TEST_F(ParameterLayout, AnArrayGivenToAPointerKernelNamesItsPartAndTheKernelsEnd) {
  const std::string m = refusal_of("float32[:]", {{0, 8}});  // a C kernel (float* p)
  EXPECT_NE(m.find("takes 1 parameter, 8 bytes, but its signature void(float32[:]) passes 7 parameters, 56 bytes"),
            std::string::npos) << m;
  EXPECT_NE(m.find("argument 0 (float32[:], its part 1) is 8 bytes at offset 8, past the kernel's last parameter"),
            std::string::npos) << m;
}

TEST_F(ParameterLayout, AKernelParameterTheSignatureLacksIsNamed) {
  const std::string m = refusal_of("float32*", {{0, 8}, {8, 4}});
  EXPECT_NE(m.find("the kernel's parameter 1 (4 bytes at offset 8) is given nothing. Add the kernel's remaining "
                   "parameters to the signature"),
            std::string::npos) << m;
}

TEST_F(ParameterLayout, AComplexFillsOneCParameterOfItsSizeWhole) {
  // (cuFloatComplex z, int n): numba's ABI passes the complex as two float parameters, the C kernel takes one of 8
  // bytes; the packed buffer holds the same bytes either way.
  auto sig = signature("complex64, int32");
  g_layout = {{0, 8}, {8, 4}};
  auto k = kernel();
  EXPECT_TRUE(check_parameter_layout(*k, *sig));
  ArgumentPack pack(sig);
  pack.set_scalar(0, std::complex<double>(1.5, -2.0));
  pack.set_scalar(1, std::int64_t{7});
  launch(*k, one_block(), pack);
  ASSERT_EQ(g_launched.packed.size(), 12u);
  EXPECT_EQ(launched_at<float>(0), 1.5f);
  EXPECT_EQ(launched_at<float>(4), -2.0f);
  EXPECT_EQ(launched_at<std::int32_t>(8), 7);
  pack.clear();

  // (int n, cuDoubleComplex z): the C kernel's complex is 16-byte aligned, at 16; numba's halves are at 8 and 16.
  const std::string m = refusal_of("int32, complex128", {{0, 4}, {16, 16}});
  EXPECT_NE(m.find("the signature's argument 1 (complex128, its part 0) is 8 bytes at offset 8, the kernel's "
                   "parameter 1 is 16 bytes at offset 16"),
            std::string::npos) << m;
  // Two int32 arguments never fill one 8-byte parameter: only a complex's halves do.
  EXPECT_NE(refusal_of("int32, int32", {{0, 8}}).find("argument 0 (int32) is 4 bytes at offset 0"), std::string::npos);
}

TEST_F(ParameterLayout, ADriverThatCannotSayGetsOnePointerPerParameter) {
  auto sig = signature("float32*, int32");
  auto& api = driver::mutable_api_for_testing();
  api.cuFuncGetParamInfo = nullptr;  // a driver older than 12.4
  auto k = kernel();
  EXPECT_EQ(k->parameter_layout(), nullptr);
  EXPECT_FALSE(check_parameter_layout(*k, *sig));
  ArgumentPack pack(sig);
  pack.set_address(0, 0x1000);
  pack.set_scalar(1, std::int64_t{3});
  launch(*k, one_block(), pack);
  EXPECT_EQ(g_launched.count, 1);
  EXPECT_TRUE(g_launched.had_params);
  EXPECT_TRUE(g_launched.packed.empty());
  pack.clear();

  api.cuFuncGetParamInfo = &fake_param_info;
  g_info_failure = CUDA_ERROR_NOT_SUPPORTED;  // a driver that declines for this function
  EXPECT_EQ(kernel()->parameter_layout(), nullptr);
  // No parameter at all reported (the driver's CUDA_ERROR_INVALID_VALUE at index 0, which is also its generic
  // error) for a signature with some: the driver is not taken at its word, the launch passes pointers.
  g_info_failure = CUDA_SUCCESS;
  g_layout.clear();
  auto empty = kernel();
  ASSERT_NE(empty->parameter_layout(), nullptr);
  EXPECT_FALSE(check_parameter_layout(*empty, *sig));
}

TEST_F(ParameterLayout, AKernelWithoutParametersLaunchesWithNeither) {
  auto sig = signature("");
  auto k = kernel();
  ASSERT_NE(k->parameter_layout(), nullptr);
  EXPECT_TRUE(k->parameter_layout()->empty());
  EXPECT_TRUE(check_parameter_layout(*k, *sig));
  ArgumentPack pack(sig);
  launch(*k, one_block(), pack);
  EXPECT_EQ(g_launched.count, 1);
  EXPECT_FALSE(g_launched.had_params);
  EXPECT_TRUE(g_launched.packed.empty());
  EXPECT_EQ(g_launched.packed_size, 0u);
}

TEST_F(ParameterLayout, APackChecksEachKernelItLaunches) {
  auto sig = signature("int32");
  g_layout = sig->slots();
  auto good = kernel();
  g_layout = {{0, 8}};
  auto bad = kernel();
  ArgumentPack pack(sig);
  pack.set_scalar(0, std::int64_t{1});
  launch(*good, one_block(), pack);
  EXPECT_THROW(launch(*bad, one_block(), pack), cubridge::InvalidArgument);
  launch(*good, one_block(), pack);
  EXPECT_EQ(g_launched.count, 2);
}

TEST_F(ParameterLayout, KernelCallRefusesAMismatchAtRegistrationAndLaunchesThePackedBuffer) {
  // kernel_call registers a kernel on every device: a layout the signature does not match is refused there, naming
  // the device; a matching one launches the site's arguments with XLA's buffer written in, as one buffer.
  auto sig = signature("const float32*, int64");
  const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n// kernel_call layout test\n";
  const auto image = std::as_bytes(std::span(ptx.data(), ptx.size()));
  auto& table = xla::KernelCallTable::global();
  g_layout = {{0, 8}, {8, 4}};  // (const float* x, int n)
  try {
    table.add(image, "xk", sig);
    ADD_FAILURE() << "no exception";
  } catch (const cubridge::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("kernel_call: loading kernel 'xk' on device 0: kernel 'xk' takes 2 "
                                         "parameters, 12 bytes"),
              std::string::npos) << e.what();
  }
  g_layout = sig->slots();  // (const float* x, long long n)
  const auto r = table.add(image, "xk", sig);
  xla::KernelCallSite site;
  site.kernel = r.id;
  site.fingerprint = r.fingerprint;
  site.grid = Extent3::of(std::vector<std::int64_t>{1}, "griddim");
  site.block = Extent3::of(std::vector<std::int64_t>{32}, "blockdim");
  std::string args(16, '\0');
  const std::int64_t n = 5;
  std::memcpy(args.data() + 8, &n, 8);  // the static scalar; the pointer is XLA's buffer
  site.arguments = args;
  Stream stream(context);
  void* buffers[] = {reinterpret_cast<void*>(std::uintptr_t{0xabc000})};
  table.launch(stream.handle(), buffers, site.encode());
  ASSERT_EQ(g_launched.count, 1);
  EXPECT_FALSE(g_launched.had_params);
  ASSERT_EQ(g_launched.packed.size(), 16u);
  EXPECT_EQ(launched_at<std::uint64_t>(0), 0xabc000u);
  EXPECT_EQ(launched_at<std::int64_t>(8), 5);
}

}  // namespace
