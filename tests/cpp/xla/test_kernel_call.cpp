// kernel_call's C++ side: the call site's opaque bytes (round trip, every refusal), fingerprints, the
// target reporting failures through its status without touching the GPU, and (GPU) the table loading a
// Numba-ABI kernel and launching it over raw buffers as XLA hands them over.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "cubridge/driver.hpp"
#include "cubridge/kernel.hpp"
#include "cubridge/xla/kernel_call.hpp"
#include "cubridge/xla/opaque.hpp"
#include "driver/driver_api.hpp"
#include "gpu.hpp"

namespace cubridge::xla {
namespace {

std::string message_of_decode(const std::string& bytes) {
  try {
    KernelCallSite::decode(bytes);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no exception";
}

TEST(KernelCallSite, RoundTripsThroughOpaqueBytes) {
  const std::string args("\x01\x02\x03\x04\x05\x06\x07\x08", 8);
  KernelCallSite s;
  s.kernel = 3;
  s.fingerprint = 0xfeedfacecafebeefull;
  s.grid = Extent3::of(std::vector<std::int64_t>{4, 2}, "griddim");
  s.block = Extent3::of(std::vector<std::int64_t>{256}, "blockdim");
  s.shared_mem = 1024;
  s.arguments = args;
  const std::string bytes = s.encode();
  KernelCallSite d = KernelCallSite::decode(bytes);
  EXPECT_EQ(d.kernel, 3);
  EXPECT_EQ(d.fingerprint, 0xfeedfacecafebeefull);
  EXPECT_EQ(d.grid.to_string(), "(4, 2)");
  EXPECT_EQ(d.block.to_string(), "256");
  EXPECT_EQ(d.shared_mem, 1024);
  EXPECT_EQ(d.arguments, args);
  EXPECT_TRUE(d.image.empty());  // a site without its kernel
  // encode()'s order: the fields the launch reads lead, through the end of the arguments
  EXPECT_EQ(d.fixed_size, static_cast<std::size_t>(d.arguments.data() + d.arguments.size() - bytes.data()));
  EXPECT_EQ(d.fixed_size, bytes.size());
  const std::string shuffled = OpaqueWriter()
                                   .add_int("fingerprint", 1)
                                   .add_int("kernel", 3)
                                   .add("grid", std::vector<std::int64_t>{1})
                                   .add("block", std::vector<std::int64_t>{1})
                                   .add_int("shared", 0)
                                   .add_bytes("args", args)
                                   .bytes();
  EXPECT_EQ(KernelCallSite::decode(shuffled).fixed_size, 0u);  // another order: never reused by address

  s.image = "PTX bytes";
  s.entry = "add_f32";
  s.signature = "void(float32[:])";
  const std::string portable = s.encode();
  d = KernelCallSite::decode(portable);
  EXPECT_LT(d.fixed_size, portable.size());  // the carried kernel follows the fixed fields
  EXPECT_EQ(d.image, "PTX bytes");
  EXPECT_EQ(d.entry, "add_f32");
  EXPECT_EQ(d.signature, "void(float32[:])");
  EXPECT_EQ(d.arguments, args);
}

TEST(KernelCallSite, RefusesMissingWrongAndOutOfRangeEntries) {
  auto site = [](OpaqueWriter w) { return w.bytes(); };
  EXPECT_NE(message_of_decode("CBXO").find("opaque"), std::string::npos);
  EXPECT_NE(message_of_decode(site(OpaqueWriter().add_int("kernel", 1))).find("'fingerprint'"), std::string::npos);
  std::string m = message_of_decode(site(OpaqueWriter()
                                             .add_int("kernel", 1)
                                             .add_int("fingerprint", 1)
                                             .add("grid", std::vector<std::int64_t>{1, 1, 1, 1})
                                             .add("block", std::vector<std::int64_t>{1})
                                             .add_int("shared", 0)
                                             .add_bytes("args", "")));
  EXPECT_NE(m.find("kernel_call opaque: 'grid' has 4 values; a launch extent has 1 to 3"), std::string::npos) << m;
  m = message_of_decode(site(OpaqueWriter()
                                 .add_int("kernel", 1)
                                 .add_int("fingerprint", 1)
                                 .add("grid", std::vector<std::int64_t>{1})
                                 .add("block", std::vector<std::int64_t>{1})
                                 .add_int("shared", -1)
                                 .add_bytes("args", "")));
  EXPECT_NE(m.find("'shared' is -1; dynamic shared memory is 0 or more bytes"), std::string::npos) << m;
}

TEST(KernelCallSite, FingerprintsTellImageEntryAndSignatureApart) {
  const std::string image = ".version 8.0\n";
  auto bytes = std::as_bytes(std::span(image.data(), image.size()));
  auto a = KernelSignature::parse("const float32*, float32*");
  auto b = KernelSignature::parse("float32*, float32*");
  EXPECT_EQ(kernel_fingerprint(bytes, "k", a), kernel_fingerprint(bytes, "k", a));
  EXPECT_NE(kernel_fingerprint(bytes, "k", a), kernel_fingerprint(bytes, "k", b));
  EXPECT_NE(kernel_fingerprint(bytes, "k", a), kernel_fingerprint(bytes, "j", a));
  EXPECT_NE(kernel_fingerprint(bytes, "k", a), kernel_fingerprint(bytes.first(4), "k", a));
}

TEST(KernelCallTarget, ReportsABadCallSiteThroughItsStatus) {
  std::string message;
  XlaCustomCallStatus status{CUBRIDGE_XLA_STATUS_MAGIC, CUBRIDGE_XLA_STATUS_VERSION, 0u,
                             [](XlaCustomCallStatus* s, const char* m, std::size_t n) {
                               static_cast<std::string*>(s->owner_data)->assign(m, strnlen(m, n));
                             },
                             &message};
  const char opaque[] = "not opaque bytes";
  cubridge_kernel_call_gpu(nullptr, nullptr, opaque, sizeof(opaque) - 1, &status);
  EXPECT_EQ(status.failed, 1u);
  EXPECT_NE(message.find("opaque"), std::string::npos) << message;
}

std::string test_ptx() {
  const char* root = std::getenv("CUBRIDGE_SOURCE_DIR");
  std::ifstream f(std::string(root ? root : ".") + "/tests/cpp/kernel/numba_abi_kernels.ptx");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(KernelCallTable, RefusesATupleKernelByNameBeforeLoading) {
  // XLA hands a call its buffers and scalars one by one: there is no Python tuple to flatten.
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("void(float32[:], UniTuple(int64 x 2))"));
  const std::string ptx = ".version 8.0\n";
  try {
    KernelCallTable::global().add(std::as_bytes(std::span(ptx.data(), ptx.size())), "k", sig);
    ADD_FAILURE() << "a tuple kernel was registered";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kernel_call: kernel 'k' takes a tuple (void(float32[:], UniTuple(int64 x 2)))"),
              std::string::npos)
        << e.what();
  }
}

TEST(KernelCallGpu, GpuTableLoadsOnEveryDeviceAndLaunchesOverRawBuffers) {
  CUBRIDGE_REQUIRE_GPU();
  auto context = Context::primary(Device(0));
  ScopedContext scope(*context);
  const std::string ptx = test_ptx();
  auto image = std::as_bytes(std::span(ptx.data(), ptx.size()));
  auto sig = std::make_shared<KernelSignature>(KernelSignature::parse("const float32[:], const float32[:], float32[:]"));
  auto& table = KernelCallTable::global();
  const auto r = table.add(image, "add_f32", sig);
  EXPECT_EQ(table.add(image, "add_f32", sig).id, r.id);  // the same kernel, the same id
  const std::int64_t n = 1000;

  // The packed buffer as kernel_call builds it at trace time: shapes and strides, data pointers 0.
  ArgumentPack pack(sig);
  for (std::size_t i = 0; i < 3; ++i) {
    ArrayView::Layout l;
    l.data = nullptr;
    l.dtype = parse_typestr("<f4", "test");
    std::vector<std::int64_t> shape{n};
    l.shape = shape;
    pack.set_array(i, ArrayView(l, nullptr, "placeholder"));
  }
  KernelCallSite site;
  site.kernel = r.id;
  site.fingerprint = r.fingerprint;
  site.grid = Extent3::of(std::vector<std::int64_t>{blocks_for(n, 128)}, "griddim");
  site.block = Extent3::of(std::vector<std::int64_t>{128}, "blockdim");
  const std::string args(reinterpret_cast<const char*>(pack.buffer().data()), pack.buffer().size());
  site.arguments = args;
  const std::string opaque = site.encode();

  CUdeviceptr a = 0, b = 0, out = 0;
  CUBRIDGE_CU(cuMemAlloc, &a, n * 4);
  CUBRIDGE_CU(cuMemAlloc, &b, n * 4);
  CUBRIDGE_CU(cuMemAlloc, &out, n * 4);
  std::vector<float> ha(n), hb(n, 0.5f);
  std::iota(ha.begin(), ha.end(), 0.0f);
  CUBRIDGE_CU(cuMemcpyHtoD, a, ha.data(), n * 4);
  CUBRIDGE_CU(cuMemcpyHtoD, b, hb.data(), n * 4);
  Stream stream(context);
  void* buffers[] = {reinterpret_cast<void*>(a), reinterpret_cast<void*>(b), reinterpret_cast<void*>(out)};
  table.launch(stream.handle(), buffers, opaque);
  stream.ref().synchronize();
  std::vector<float> got(n);
  CUBRIDGE_CU(cuMemcpyDtoH, got.data(), out, n * 4);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[static_cast<std::size_t>(i)], ha[static_cast<std::size_t>(i)] + 0.5f) << i;

  site.fingerprint ^= 1;  // another process's kernel under the same id
  const std::string stale = site.encode();
  try {
    table.launch(stream.handle(), buffers, stale);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not the kernel this call site was compiled for"), std::string::npos)
        << e.what();
  }

  // A site made by another process (jax.export): an id that means another kernel or nothing here.
  auto check_out = [&](const char* what) {
    std::vector<float> again(n);
    CUBRIDGE_CU(cuMemcpyDtoH, again.data(), out, n * 4);
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_EQ(again[static_cast<std::size_t>(i)], ha[static_cast<std::size_t>(i)] + 0.5f) << what << " " << i;
  };
  CUBRIDGE_CU(cuMemsetD8, out, 0, n * 4);
  site.fingerprint = r.fingerprint;
  site.kernel = r.id + 100000;  // found by its fingerprint
  table.launch(stream.handle(), buffers, site.encode());
  stream.ref().synchronize();
  check_out("by fingerprint");

  // A kernel this process never registered, carried by the site: loaded on first use, then found.
  const std::string other = ptx + "\n// another image of the same kernel\n";
  auto other_image = std::as_bytes(std::span(other.data(), other.size()));
  const std::string sig_text = sig->to_string();
  site.fingerprint = kernel_fingerprint(other_image, "add_f32", *sig);
  site.image = other;
  site.entry = "add_f32";
  site.signature = sig_text;
  const std::size_t before = table.size();
  CUBRIDGE_CU(cuMemsetD8, out, 0, n * 4);
  table.launch(stream.handle(), buffers, site.encode());
  stream.ref().synchronize();
  check_out("carried");
  EXPECT_EQ(table.size(), before + 1);
  table.launch(stream.handle(), buffers, site.encode());
  EXPECT_EQ(table.size(), before + 1);

  site.fingerprint ^= 1;  // the carried kernel does not match the site's fingerprint
  try {
    table.launch(stream.handle(), buffers, site.encode());
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("does not match the site's fingerprint"), std::string::npos) << e.what();
  }
  for (CUdeviceptr p : {a, b, out}) CUBRIDGE_CU_RESULT(cuMemFree, p);
}

}  // namespace
}  // namespace cubridge::xla
