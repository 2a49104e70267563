// The classic → typed-FFI adapter, driven with hand-made XLA call frames (no jaxlib, no GPU): the
// metadata call, CPU and GPU argument rebuilding, opaque and layout attributes, failures as errors.
#include <gtest/gtest.h>

#include "cubridge/xla/ffi_adapter.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cubridge/driver.hpp"
#include "cubridge/types/scalar_type.hpp"
#include "cubridge/xla/custom_call.h"
#include "cubridge/xla/opaque.hpp"
#include "cubridge/xla/tuple_layout.hpp"
#include "driver/driver_api.hpp"
#include "gpu.hpp"
#include "xla/xla_ffi_abi.hpp"

using namespace cubridge::xla;
using namespace cubridge::xla::ffi_abi;

namespace {

// Error is opaque to handlers; here it is a std::string holding the message.
Error* fake_error_create(ErrorCreateArgs* args) {
  return reinterpret_cast<Error*>(new std::string(args->message));
}
CUstream_st* const kFakeStream = reinterpret_cast<CUstream_st*>(0x5eed);
CUstream_st* g_stream_to_give = kFakeStream;  // what "XLA" hands out as the call's stream
Error* fake_stream_get(StreamGetArgs* args) {
  args->stream = g_stream_to_give;
  return nullptr;
}
std::string take_message(Error* e) {
  if (e == nullptr) return "";
  std::unique_ptr<std::string> s(reinterpret_cast<std::string*>(e));
  return *s;
}

// A call frame with buffers and attributes that own their storage.
struct Frame {
  Api api{};
  std::vector<std::int64_t> dims;
  std::vector<Buffer> args_buffers, rets_buffers;
  std::vector<ArgType> arg_types;
  std::vector<RetType> ret_types;
  std::vector<void*> arg_ptrs, ret_ptrs;
  std::vector<ByteSpan> names_storage;
  std::vector<ByteSpan*> names;
  std::vector<AttrType> attr_types;
  std::vector<Array> arrays;
  std::vector<void*> attr_ptrs;
  std::vector<std::string> keep;
  std::vector<std::int32_t> layout_codes;
  CallFrame frame{};

  Frame() {
    api.struct_size = sizeof(Api);
    api.error_create = &fake_error_create;
    api.stream_get = &fake_stream_get;
    args_buffers.reserve(64);
    rets_buffers.reserve(64);
    names_storage.reserve(4);
    arrays.reserve(4);
    keep.reserve(4);
  }
  void arg(void* data) {
    args_buffers.push_back({kBufferSize, nullptr, DataType::f32, data, 0, nullptr});
    arg_types.push_back(ArgType::buffer);
  }
  void ret(void* data) {
    rets_buffers.push_back({kBufferSize, nullptr, DataType::f32, data, 0, nullptr});
    ret_types.push_back(RetType::buffer);
  }
  void array_attr(const std::string& name, DataType dtype, const void* data, std::size_t size) {
    keep.push_back(name);
    names_storage.push_back({keep.back().data(), keep.back().size()});
    attr_types.push_back(AttrType::array);
    arrays.push_back({dtype, size, const_cast<void*>(data)});
  }
  void opaque(const std::string& bytes) {
    keep.push_back(bytes);
    const std::string& b = keep.back();
    array_attr(kOpaqueAttribute, DataType::u8, b.data(), b.size());
  }
  void layout(const CallLayout& l) {
    layout_codes = l.encode();
    array_attr(kLayoutAttribute, DataType::s32, layout_codes.data(), layout_codes.size());
  }
  CallFrame* build() {
    for (auto& b : args_buffers) arg_ptrs.push_back(&b);
    for (auto& b : rets_buffers) ret_ptrs.push_back(&b);
    for (auto& n : names_storage) names.push_back(&n);
    for (auto& a : arrays) attr_ptrs.push_back(&a);
    frame.struct_size = kCallFrameSize;
    frame.api = &api;
    frame.stage = ExecutionStage::execute;
    frame.args = {kArgsSize, nullptr, static_cast<int64_t>(arg_ptrs.size()),
                  arg_types.data(), arg_ptrs.data()};
    frame.rets = {kRetsSize, nullptr, static_cast<int64_t>(ret_ptrs.size()),
                  ret_types.data(), ret_ptrs.data()};
    frame.attrs = {kAttrsSize, nullptr, static_cast<int64_t>(attr_ptrs.size()),
                   attr_types.data(), names.data(), attr_ptrs.data()};
    return &frame;
  }
};

Handler* handler(const char* name, Platform platform, int api_version, void (*fn)(void),
                         bool graphs = true) {
  Target t;
  t.name = name;
  t.platform = platform;
  t.api_version = api_version;
  t.function = fn;
  t.command_buffer_compatible = graphs;
  return reinterpret_cast<Handler*>(ffi_handler_for(t));
}
template <class F>
void (*generic(F f))(void) {
  return reinterpret_cast<void (*)(void)>(f);
}

extern "C" void adapter_add_mod(void* out, const void** in, const char* opaque, size_t len,
                                XlaCustomCallStatus* status) {
  try {
    OpaqueReader r({opaque, len});
    auto n = r.get_int("n"), m = r.get_int("m");
    for (std::int64_t i = 0; i < n; ++i) {
      static_cast<float*>(out)[i] = static_cast<const float*>(in[0])[i % m] + static_cast<const float*>(in[1])[i];
    }
  } catch (const std::exception& e) {
    XlaCustomCallStatusSetFailure(status, e.what(), std::strlen(e.what()));
  }
}
extern "C" void adapter_fails(void*, const void**, XlaCustomCallStatus* status) {
  XlaCustomCallStatusSetFailure(status, "x was negative\0and this is not part of it", 100);
}
extern "C" void adapter_fails_then_succeeds(void*, const void**, XlaCustomCallStatus* status) {
  XlaCustomCallStatusSetFailure(status, "first", 5);
  XlaCustomCallStatusSetSuccess(status);
}
extern "C" void adapter_throws(void*, const void**) { throw std::runtime_error("thrown by the target"); }

void** g_seen_buffers = nullptr;
CUstream_st* g_seen_stream = nullptr;
std::string g_seen_opaque;
extern "C" void adapter_gpu(CUstream_st* stream, void** buffers, const char* opaque, size_t len,
                            XlaCustomCallStatus* status) {
  g_seen_stream = stream;
  g_seen_buffers = buffers;
  g_seen_opaque.assign(opaque, len);
  if (len == 4) XlaCustomCallStatusSetFailure(status, "gpu said no", 11);
}
const void* g_tuple_in0 = nullptr;
void* g_tuple_out = nullptr;
extern "C" void adapter_tuple(void* out, const void** in) {
  g_tuple_in0 = in[0];
  g_tuple_out = out;
}

}  // namespace

TEST(FfiAdapter, AnswersTheMetadataCall) {
  auto* h_gpu = handler("adapter_meta_gpu", Platform::cuda, 2, generic(&adapter_gpu));
  auto* h_gpu_off = handler("adapter_meta_gpu_off", Platform::cuda, 2, generic(&adapter_gpu), false);
  auto* h_cpu = handler("adapter_meta_cpu", Platform::host, 2, generic(&adapter_fails));
  const std::uint32_t graphs = kTraitCommandBufferCompatible;
  std::pair<Handler*, std::uint32_t> cases[] = {{h_gpu, graphs}, {h_gpu_off, 0u}, {h_cpu, 0u}};
  for (auto [h, traits] : cases) {
    Frame f;
    Metadata metadata{};
    metadata.struct_size = kMetadataSize;
    // Field by field: jaxlib 0.11 renamed the extension header's type (same layout and field names).
    MetadataExtension ext{};
    ext.extension_base.struct_size = kMetadataExtensionSize;
    ext.extension_base.type = ExtensionType::metadata;
    ext.metadata = &metadata;
    CallFrame* frame = f.build();
    frame->extension_start = reinterpret_cast<decltype(frame->extension_start)>(&ext.extension_base);
    EXPECT_EQ(take_message(h(frame)), "");
    EXPECT_EQ(metadata.api_version.major_version, kApiMajor);
    EXPECT_EQ(metadata.api_version.minor_version, kApiMinor);
    EXPECT_EQ(metadata.traits, traits);
  }
}

// Rule: the handler reports the ABI version it reads (0.3), or the framework's where XLA passes an older
// one in the API table (XLA accepts handlers of its own version or older); no table: its own.
TEST(FfiAdapter, MetadataVersionFollowsAnOlderFramework) {
  auto* h = handler("adapter_meta_version", Platform::host, 2, generic(&adapter_fails));
  for (auto [framework_minor, expected_minor, with_api] :
       {std::tuple{kApiMinor, kApiMinor, true}, std::tuple{1, 1, true}, std::tuple{kApiMinor + 1, kApiMinor, true},
        std::tuple{1, kApiMinor, false}}) {
    Frame f;
    f.api.api_version = {kApiVersionSize, nullptr, kApiMajor, framework_minor};
    Metadata metadata{};
    metadata.struct_size = kMetadataSize;
    MetadataExtension ext{};
    ext.extension_base.struct_size = kMetadataExtensionSize;
    ext.extension_base.type = ExtensionType::metadata;
    ext.metadata = &metadata;
    CallFrame* frame = f.build();
    if (!with_api) frame->api = nullptr;
    frame->extension_start = &ext.extension_base;
    EXPECT_EQ(take_message(h(frame)), "");
    EXPECT_EQ(metadata.api_version.minor_version, expected_minor) << framework_minor << " " << with_api;
  }
}

TEST(FfiAdapter, IsInEveryBuild) {
  EXPECT_TRUE(ffi_adapter_available());
  EXPECT_EQ(std::string(ffi_api_version()), "0.3");
}

TEST(FfiAdapter, SameTargetGetsTheSameHandler) {
  auto* a = handler("adapter_same", Platform::host, 2, generic(&adapter_fails));
  EXPECT_EQ(a, handler("adapter_same", Platform::host, 2, generic(&adapter_fails)));
  EXPECT_NE(a, handler("adapter_same", Platform::cuda, 2, generic(&adapter_gpu)));
  EXPECT_THROW(handler("adapter_same", Platform::host, 1, generic(&adapter_throws)), std::invalid_argument);
}

TEST(FfiAdapter, CpuSeedWithSizesThroughOpaque) {
  auto* h = handler("adapter_add_mod", Platform::host, 3, generic(&adapter_add_mod));
  std::vector<float> b(4), c(10), a(10, -1.0f);
  for (int i = 0; i < 4; ++i) b[i] = float(i);
  for (int i = 0; i < 10; ++i) c[i] = 100.0f * float(i);
  Frame f;
  f.arg(b.data());
  f.arg(c.data());
  f.ret(a.data());
  f.opaque(OpaqueWriter().add_int("n", 10).add_int("m", 4).bytes());
  EXPECT_EQ(take_message(h(f.build())), "");
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a[i], float(i % 4) + 100.0f * float(i));
}

TEST(FfiAdapter, FailureBecomesAnErrorWithTheMessage) {
  auto* h = handler("adapter_fails", Platform::host, 2, generic(&adapter_fails));
  Frame f;
  EXPECT_EQ(take_message(h(f.build())), "custom call 'adapter_fails' (Host) failed: x was negative");
  Frame g;
  auto* h2 = handler("adapter_fails_then_succeeds", Platform::host, 2, generic(&adapter_fails_then_succeeds));
  EXPECT_EQ(take_message(h2(g.build())), "");
  Frame t;
  auto* h3 = handler("adapter_throws", Platform::host, 1, generic(&adapter_throws));
  EXPECT_EQ(take_message(h3(t.build())), "custom call 'adapter_throws' (Host) failed: thrown by the target");
  Frame o;
  o.opaque("garbage");
  auto* h4 = handler("adapter_add_mod", Platform::host, 3, generic(&adapter_add_mod));
  std::string m = take_message(h4(o.build()));
  EXPECT_NE(m.find("failed: opaque: malformed at byte 0"), std::string::npos) << m;
}

TEST(FfiAdapter, GpuGetsStreamFlatBuffersAndOpaque) {
  auto* h = handler("adapter_gpu", Platform::cuda, 2, generic(&adapter_gpu));
  int x[6];
  Frame f;
  for (int i = 0; i < 4; ++i) f.arg(&x[i]);
  f.ret(&x[4]);
  f.ret(&x[5]);
  f.opaque("abc");
  CallLayout l;
  l.operands.push_back(TupleTree::tuple(
      {TupleTree::leaf(), TupleTree::tuple({TupleTree::leaf(), TupleTree::leaf()}), TupleTree::leaf()}));
  l.result = TupleTree::tuple({TupleTree::leaf(), TupleTree::leaf()});
  f.layout(l);
  EXPECT_EQ(take_message(h(f.build())), "");
  EXPECT_EQ(g_seen_stream, kFakeStream);
  EXPECT_EQ(g_seen_opaque, "abc");
  for (int i = 0; i < 6; ++i) EXPECT_EQ(g_seen_buffers[i], &x[i]);
  Frame g;
  g.opaque("fail");
  EXPECT_EQ(take_message(h(g.build())), "custom call 'adapter_gpu' (CUDA) failed: gpu said no");
}

TEST(FfiAdapter, CpuTupleLayoutFromTheAttribute) {
  auto* h = handler("adapter_tuple", Platform::host, 1, generic(&adapter_tuple));
  int x[6];
  Frame f;
  for (int i = 0; i < 4; ++i) f.arg(&x[i]);
  f.ret(&x[4]);
  f.ret(&x[5]);
  CallLayout l;
  l.operands.push_back(TupleTree::tuple(
      {TupleTree::leaf(), TupleTree::tuple({TupleTree::leaf(), TupleTree::leaf()}), TupleTree::leaf()}));
  l.result = TupleTree::tuple({TupleTree::leaf(), TupleTree::leaf()});
  f.layout(l);
  EXPECT_EQ(take_message(h(f.build())), "");
  // The tables live on the adapter's stack, so only their shape can be checked after the call: the
  // pointers differ from the flat buffers because they are tables.
  EXPECT_NE(g_tuple_in0, static_cast<const void*>(&x[0]));
  EXPECT_NE(g_tuple_out, static_cast<void*>(&x[4]));
}

extern "C" void adapter_sum_firsts(void* out, const void** in) {
  float sum = 0;
  for (int i = 0; i < 40; ++i) sum += *static_cast<const float*>(in[i]);
  *static_cast<float*>(out) = sum;
}

TEST(FfiAdapter, ManyBuffersSpillToTheHeap) {
  auto* h = handler("adapter_sum_firsts", Platform::host, 1, generic(&adapter_sum_firsts));
  std::vector<float> values(40);
  float out = 0;
  Frame f;
  for (int i = 0; i < 40; ++i) {
    values[i] = float(i);
    f.arg(&values[i]);
  }
  f.ret(&out);
  EXPECT_EQ(take_message(h(f.build())), "");
  EXPECT_EQ(out, 780.0f);
}

TEST(FfiAdapter, BadAttributesAndLayoutsAreErrors) {
  auto* h = handler("adapter_tuple", Platform::host, 1, generic(&adapter_tuple));
  int x[2];
  Frame f;
  f.arg(&x[0]);
  f.ret(&x[1]);
  std::int32_t junk = 0;
  f.array_attr("n", DataType::s32, &junk, 1);
  EXPECT_EQ(take_message(h(f.build())),
            "custom call 'adapter_tuple' (Host): unexpected attribute 'n': the adapter reads only "
            "'cubridge_opaque' and 'cubridge_layout' (pass attributes to the target inside opaque=)");
  Frame g;
  g.arg(&x[0]);
  g.ret(&x[1]);
  g.layout(CallLayout::flat(2, 1));
  EXPECT_EQ(take_message(h(g.build())),
            "custom call 'adapter_tuple' (Host) failed: tuple layout: it describes 2 operand and 1 result "
            "buffers but the call has 1 and 1");
  Frame o;
  o.array_attr(kOpaqueAttribute, DataType::f32, &junk, 1);
  EXPECT_EQ(take_message(h(o.build())),
            "custom call 'adapter_tuple' (Host): attribute 'cubridge_opaque' must be a uint8 array or a "
            "string (pass opaque= as bytes)");
  Frame old;
  CallFrame* frame = old.build();
  frame->struct_size = 8;
  EXPECT_NE(take_message(h(frame)).find("the call frame is older"), std::string::npos);
}

// A GPU target that fills its result with 1.0f on the stream it is given, n from opaque.
extern "C" void adapter_fill_gpu(CUstream stream, void** buffers, const char* opaque, size_t len,
                                 XlaCustomCallStatus* status) {
  try {
    auto n = static_cast<std::size_t>(OpaqueReader({opaque, len}).get_int("n"));
    CUBRIDGE_CU(cuMemsetD32Async, reinterpret_cast<CUdeviceptr>(buffers[1]), 0x3f800000u, n, stream);
  } catch (const std::exception& e) {
    XlaCustomCallStatusSetFailure(status, e.what(), std::strlen(e.what()));
  }
}

TEST(FfiAdapter, GpuTargetEnqueuesOnTheStreamXlaGives) {
  CUBRIDGE_REQUIRE_GPU();
  using namespace cubridge;
  auto ctx = Context::primary(Device(0));
  ScopedContext scope(*ctx);
  Stream stream(ctx);
  constexpr std::size_t n = 1 << 20;
  CUdeviceptr in = 0, out = 0;
  CUBRIDGE_CU(cuMemAlloc, &in, n * 4);
  CUBRIDGE_CU(cuMemAlloc, &out, n * 4);
  CUBRIDGE_CU(cuMemsetD32Async, out, 0u, n, stream.handle());
  auto* h = handler("adapter_fill_gpu", Platform::cuda, 2, generic(&adapter_fill_gpu));
  Frame f;
  f.arg(reinterpret_cast<void*>(in));
  f.ret(reinterpret_cast<void*>(out));
  f.opaque(OpaqueWriter().add_int("n", static_cast<std::int64_t>(n)).bytes());
  g_stream_to_give = stream.handle();
  std::string message = take_message(h(f.build()));
  g_stream_to_give = kFakeStream;
  EXPECT_EQ(message, "");
  std::vector<float> host(n);
  CUBRIDGE_CU(cuMemcpyDtoHAsync, host.data(), out, n * 4, stream.handle());
  stream.ref().synchronize();
  EXPECT_EQ(host.front(), 1.0f);
  EXPECT_EQ(host.back(), 1.0f);
  // A failure inside the target (here: opaque without "n") comes back as the call's error.
  Frame bad;
  bad.arg(reinterpret_cast<void*>(in));
  bad.ret(reinterpret_cast<void*>(out));
  bad.opaque(OpaqueWriter().add_int("m", 4).bytes());
  g_stream_to_give = stream.handle();
  message = take_message(h(bad.build()));
  g_stream_to_give = kFakeStream;
  EXPECT_EQ(message, "custom call 'adapter_fill_gpu' (CUDA) failed: opaque has no entry 'n' (entries: 'm')");
  stream.ref().synchronize();
  CUBRIDGE_CU(cuMemFree, in);
  CUBRIDGE_CU(cuMemFree, out);
}

// The scalar-type table's xla_primitive column is XLA's own numbering.
