// The XLA documentation's GPU custom calls in the classic signature: the callback runs on the host and
// enqueues a kernel on XLA's stream. The kernels are PTX text, loaded once per CUDA context through
// cubridge's driver layer (no nvcc at build time; one context per device under jax.shard_map).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cubridge/xla/custom_call.h"
#include "cubridge/xla/opaque.hpp"
#include "driver/driver_api.hpp"

namespace {

// add_mod: out[i] = b[i % m] + c[i] for i < n (u64 n, m; the modulo is 32-bit when n and m fit, since a
// 64-bit one is emulated and would make the kernel compute-bound). add_mod4: the same for four consecutive elements per
// thread, C read and A written 16 bytes at a time (one 128-bit access where add_mod makes four 32-bit ones,
// which kept it at ~89% of a JAX elementwise op's bandwidth); one 32-bit modulo per four elements, the next
// three indices stepped with a wrap. Used when n is a multiple of 4, n and m fit 32 bits and A, C are
// 16-byte aligned (XLA's buffers are); add_mod otherwise. tuple: the documentation's six-buffer example
// (see seed_cpu.cpp for the formula); one thread per out0 element, each owning scratch[i], scratch[i+512].
// .rn on every operation keeps ptxas from contracting into FMAs, so results match the CPU bit for bit.
constexpr const char* kPtx = R"PTX(
.version 7.0
.target sm_75
.address_size 64

.visible .entry cubridge_add_mod(
  .param .u64 p_out, .param .u64 p_b, .param .u64 p_c, .param .u64 p_n, .param .u64 p_m)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [p_out];
  ld.param.u64 %rd2, [p_b];
  ld.param.u64 %rd3, [p_c];
  ld.param.u64 %rd4, [p_n];
  ld.param.u64 %rd5, [p_m];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd6, %r1, %r2;
  cvt.u64.u32 %rd7, %r3;
  add.u64 %rd8, %rd6, %rd7;
  setp.ge.u64 %p1, %rd8, %rd4;
  @%p1 bra ADD_MOD_DONE;
  or.b64 %rd15, %rd4, %rd5;
  setp.gt.u64 %p2, %rd15, 4294967295;
  @%p2 bra ADD_MOD_WIDE;
  cvt.u32.u64 %r4, %rd8;
  cvt.u32.u64 %r5, %rd5;
  rem.u32 %r6, %r4, %r5;
  cvt.u64.u32 %rd9, %r6;
  bra.uni ADD_MOD_INDEXED;
ADD_MOD_WIDE:
  rem.u64 %rd9, %rd8, %rd5;
ADD_MOD_INDEXED:
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  shl.b64 %rd10, %rd9, 2;
  add.u64 %rd11, %rd2, %rd10;
  ld.global.f32 %f1, [%rd11];
  shl.b64 %rd12, %rd8, 2;
  add.u64 %rd13, %rd3, %rd12;
  ld.global.f32 %f2, [%rd13];
  add.rn.f32 %f3, %f1, %f2;
  add.u64 %rd14, %rd1, %rd12;
  st.global.f32 [%rd14], %f3;
ADD_MOD_DONE:
  ret;
}

.visible .entry cubridge_add_mod4(
  .param .u64 p_out, .param .u64 p_b, .param .u64 p_c, .param .u64 p_groups, .param .u64 p_m)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<13>;
  ld.param.u64 %rd1, [p_out];
  ld.param.u64 %rd2, [p_b];
  ld.param.u64 %rd3, [p_c];
  ld.param.u64 %rd4, [p_groups];
  ld.param.u64 %rd5, [p_m];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd6, %r1, %r2;
  cvt.u64.u32 %rd7, %r3;
  add.u64 %rd8, %rd6, %rd7;
  setp.ge.u64 %p1, %rd8, %rd4;
  @%p1 bra ADD_MOD4_DONE;
  cvt.u32.u64 %r4, %rd8;
  shl.b32 %r5, %r4, 2;
  cvt.u32.u64 %r6, %rd5;
  rem.u32 %r7, %r5, %r6;
  add.u32 %r8, %r7, 1;
  setp.eq.u32 %p2, %r8, %r6;
  selp.b32 %r8, 0, %r8, %p2;
  add.u32 %r9, %r8, 1;
  setp.eq.u32 %p2, %r9, %r6;
  selp.b32 %r9, 0, %r9, %p2;
  add.u32 %r10, %r9, 1;
  setp.eq.u32 %p2, %r10, %r6;
  selp.b32 %r10, 0, %r10, %p2;
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mul.wide.u32 %rd9, %r7, 4;
  add.u64 %rd9, %rd2, %rd9;
  ld.global.f32 %f1, [%rd9];
  mul.wide.u32 %rd10, %r8, 4;
  add.u64 %rd10, %rd2, %rd10;
  ld.global.f32 %f2, [%rd10];
  mul.wide.u32 %rd11, %r9, 4;
  add.u64 %rd11, %rd2, %rd11;
  ld.global.f32 %f3, [%rd11];
  mul.wide.u32 %rd12, %r10, 4;
  add.u64 %rd12, %rd2, %rd12;
  ld.global.f32 %f4, [%rd12];
  shl.b64 %rd13, %rd8, 4;
  add.u64 %rd14, %rd3, %rd13;
  ld.global.v4.f32 {%f5, %f6, %f7, %f8}, [%rd14];
  add.rn.f32 %f9, %f1, %f5;
  add.rn.f32 %f10, %f2, %f6;
  add.rn.f32 %f11, %f3, %f7;
  add.rn.f32 %f12, %f4, %f8;
  add.u64 %rd15, %rd1, %rd13;
  st.global.v4.f32 [%rd15], {%f9, %f10, %f11, %f12};
ADD_MOD4_DONE:
  ret;
}

.visible .entry cubridge_tuple(
  .param .u64 p_a, .param .u64 p_b, .param .u64 p_c, .param .u64 p_d, .param .u64 p_out0,
  .param .u64 p_scratch)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<24>;
  .reg .f32 %f<12>;
  ld.param.u64 %rd1, [p_a];
  ld.param.u64 %rd2, [p_b];
  ld.param.u64 %rd3, [p_c];
  ld.param.u64 %rd4, [p_d];
  ld.param.u64 %rd5, [p_out0];
  ld.param.u64 %rd6, [p_scratch];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  cvta.to.global.u64 %rd4, %rd4;
  cvta.to.global.u64 %rd5, %rd5;
  cvta.to.global.u64 %rd6, %rd6;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  setp.ge.u32 %p1, %r4, 512;
  @%p1 bra TUPLE_DONE;
  add.u32 %r5, %r4, 512;
  and.b32 %r6, %r4, 63;
  mul.wide.u32 %rd7, %r6, 4;
  add.u64 %rd8, %rd2, %rd7;
  ld.global.f32 %f1, [%rd8];
  and.b32 %r7, %r4, 127;
  mul.wide.u32 %rd9, %r7, 4;
  add.u64 %rd10, %rd3, %rd9;
  ld.global.f32 %f2, [%rd10];
  mul.rn.f32 %f3, %f1, %f2;
  and.b32 %r8, %r5, 63;
  mul.wide.u32 %rd11, %r8, 4;
  add.u64 %rd12, %rd2, %rd11;
  ld.global.f32 %f4, [%rd12];
  and.b32 %r9, %r5, 127;
  mul.wide.u32 %rd13, %r9, 4;
  add.u64 %rd14, %rd3, %rd13;
  ld.global.f32 %f5, [%rd14];
  mul.rn.f32 %f6, %f4, %f5;
  mul.wide.u32 %rd15, %r4, 4;
  add.u64 %rd16, %rd6, %rd15;
  st.global.f32 [%rd16], %f3;
  mul.wide.u32 %rd17, %r5, 4;
  add.u64 %rd18, %rd6, %rd17;
  st.global.f32 [%rd18], %f6;
  and.b32 %r10, %r4, 31;
  mul.wide.u32 %rd19, %r10, 4;
  add.u64 %rd20, %rd1, %rd19;
  ld.global.f32 %f7, [%rd20];
  and.b32 %r11, %r4, 255;
  mul.wide.u32 %rd21, %r11, 4;
  add.u64 %rd22, %rd4, %rd21;
  ld.global.f32 %f8, [%rd22];
  add.rn.f32 %f9, %f7, %f8;
  add.rn.f32 %f10, %f9, %f3;
  add.rn.f32 %f11, %f10, %f6;
  add.u64 %rd23, %rd5, %rd15;
  st.global.f32 [%rd23], %f11;
TUPLE_DONE:
  ret;
}
)PTX";

struct Kernels {
  CUfunction add_mod = nullptr;
  CUfunction add_mod4 = nullptr;
  CUfunction tuple = nullptr;
};

// Modules are per context; they stay loaded for the life of the process (XLA may replay captured
// launches of these functions at any time, so they must never be unloaded under it).
Kernels kernels_for(CUstream stream) {
  static std::mutex mutex;
  static std::vector<std::pair<CUcontext, Kernels>> cache;
  CUcontext ctx = nullptr;
  CUBRIDGE_CU(cuStreamGetCtx, stream, &ctx);
  std::lock_guard lock(mutex);
  for (const auto& [c, k] : cache) {
    if (c == ctx) return k;
  }
  CUcontext current = nullptr;
  CUBRIDGE_CU(cuCtxGetCurrent, &current);
  bool push = current != ctx;
  if (push) CUBRIDGE_CU(cuCtxPushCurrent, ctx);
  Kernels k;
  try {
    CUmodule module = nullptr;
    CUBRIDGE_CU(cuModuleLoadData, &module, static_cast<const void*>(kPtx));
    CUBRIDGE_CU(cuModuleGetFunction, &k.add_mod, module, "cubridge_add_mod");
    CUBRIDGE_CU(cuModuleGetFunction, &k.add_mod4, module, "cubridge_add_mod4");
    CUBRIDGE_CU(cuModuleGetFunction, &k.tuple, module, "cubridge_tuple");
  } catch (...) {
    if (push) CUBRIDGE_CU_RESULT(cuCtxPopCurrent, &current);
    throw;
  }
  if (push) CUBRIDGE_CU(cuCtxPopCurrent, &current);
  cache.emplace_back(ctx, k);
  return k;
}

void fail(XlaCustomCallStatus* status, const std::string& message) {
  XlaCustomCallStatusSetFailure(status, message.c_str(), message.size());
}

CUdeviceptr device_ptr(void* p) { return reinterpret_cast<CUdeviceptr>(p); }

}  // namespace

// Shared with the hand-written typed handler in typed_handlers.cpp (the bench's reference).
void cubridge_example_launch_add_mod(CUstream stream, void* a, const void* b, const void* c,
                                     std::uint64_t n, std::uint64_t m) {
  if (n == 0) return;
  CUdeviceptr pa = reinterpret_cast<CUdeviceptr>(a), pb = reinterpret_cast<CUdeviceptr>(b),
              pc = reinterpret_cast<CUdeviceptr>(c);
  const unsigned block = 256;
  const bool by_four = n % 4 == 0 && (n | m) <= 0xffffffffull && ((pa | pc) & 15) == 0;
  std::uint64_t items = by_four ? n / 4 : n;  // add_mod4's first size parameter counts groups of four
  void* params[] = {&pa, &pb, &pc, &items, &m};
  const unsigned grid = static_cast<unsigned>((items + block - 1) / block);
  Kernels k = kernels_for(stream);
  CUBRIDGE_CU(cuLaunchKernel, by_four ? k.add_mod4 : k.add_mod, grid, 1u, 1u, block, 1u, 1u, 0u, stream, params,
              nullptr);
}

// The seed on the GPU: A[i] = B[i % m] + C[i], sizes through opaque (int64 "n", "m"); buffers are
// {B, C, A}: operands first, then the result.
extern "C" void cubridge_example_add_mod_gpu(CUstream stream, void** buffers, const char* opaque,
                                             std::size_t opaque_len, XlaCustomCallStatus* status) {
  try {
    cubridge::xla::OpaqueReader attrs({opaque, opaque_len});
    std::int64_t n = attrs.get_int("n");
    std::int64_t m = attrs.get_int("m");
    if (n < 0 || m <= 0) {
      fail(status, "add_mod_gpu: n=" + std::to_string(n) + " must be >= 0 and m=" + std::to_string(m) +
                       " > 0");
      return;
    }
    cubridge_example_launch_add_mod(stream, buffers[2], buffers[0], buffers[1],
                                    static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(m));
  } catch (const std::exception& e) {
    fail(status, e.what());
  }
}
CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(cubridge_example_add_mod_gpu, "CUDA");

// The six-buffer example: buffers = {a, b, c, d, out0, scratch} (p0's leaves in pre-order, then the
// result tuple's).
extern "C" void cubridge_example_tuple_gpu(CUstream stream, void** buffers, const char* opaque,
                                           std::size_t opaque_len, XlaCustomCallStatus* status) {
  (void)opaque;
  (void)opaque_len;
  try {
    CUdeviceptr p[6];
    for (int i = 0; i < 6; ++i) p[i] = device_ptr(buffers[i]);
    void* params[] = {&p[0], &p[1], &p[2], &p[3], &p[4], &p[5]};
    CUBRIDGE_CU(cuLaunchKernel, kernels_for(stream).tuple, 2u, 1u, 1u, 256u, 1u, 1u, 0u, stream, params,
                nullptr);
  } catch (const std::exception& e) {
    fail(status, e.what());
  }
}
CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(cubridge_example_tuple_gpu, "CUDA");

// Loads the kernels into every device's primary context (the contexts XLA runs in) ahead of time, so
// the first call never loads a module while XLA is capturing a CUDA graph. Returns 0, or -1 with the
// reason in `error`. Optional: without it the kernels load on first use.
extern "C" int cubridge_example_gpu_prepare(char* error, std::size_t error_len) {
  try {
    int count = 0;
    CUBRIDGE_CU(cuDeviceGetCount, &count);
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      CUdevice device = 0;
      CUBRIDGE_CU(cuDeviceGet, &device, ordinal);
      CUcontext ctx = nullptr;
      // Retained for the life of the process: the cached functions belong to this context.
      CUBRIDGE_CU(cuDevicePrimaryCtxRetain, &ctx, device);
      CUBRIDGE_CU(cuCtxPushCurrent, ctx);
      try {
        kernels_for(CU_STREAM_LEGACY);
      } catch (...) {
        CUcontext popped = nullptr;
        CUBRIDGE_CU_RESULT(cuCtxPopCurrent, &popped);
        throw;
      }
      CUcontext popped = nullptr;
      CUBRIDGE_CU(cuCtxPopCurrent, &popped);
    }
    return 0;
  } catch (const std::exception& e) {
    if (error != nullptr && error_len > 0) {
      std::size_t n = std::min(error_len - 1, std::strlen(e.what()));
      std::memcpy(error, e.what(), n);
      error[n] = '\0';
    }
    return -1;
  }
}

// The PTX of the kernels above, so tests can assemble it with ptxas on a machine without a GPU.
extern "C" const char* cubridge_example_gpu_ptx() { return kPtx; }
