// Probe (issue 22): what cuLaunchKernel costs host-side per kernel parameter, when the parameters are given
// one pointer each (kernelParams, what cubridge and numba-cuda pass) or as one packed buffer
// (CU_LAUNCH_PARAM_BUFFER_POINTER in `extra`). Numba's ABI flattens a 1-d array into 7 parameters, so a launch
// on 16 arrays hands the driver 112. Also checks that a buffer packed at natural alignment is what the kernel
// reads, against cuFuncGetParamInfo's offsets and the values a kernel writes back.
// Build and run on the GPU machine: cc -O2 bench/probe_param_passing.c -I$CUDA/include -lcuda -o /tmp/p && /tmp/p
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                           \
  do {                                                                        \
    CUresult r_ = (call);                                                     \
    if (r_ != CUDA_SUCCESS) {                                                 \
      const char* s_ = "?";                                                   \
      cuGetErrorName(r_, &s_);                                                \
      fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call, s_);    \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

// An empty kernel of n .u64 parameters.
static CUfunction empty_kernel(int n) {
  static char ptx[1 << 16];
  int len = sprintf(ptx, ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(");
  for (int i = 0; i < n; ++i) len += sprintf(ptx + len, "%s.param .u64 p%d", i ? ", " : "", i);
  sprintf(ptx + len, ")\n{\nret;\n}\n");
  CUmodule m;
  CHECK(cuModuleLoadData(&m, ptx));
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, m, "k"));
  return f;
}

static double median_launch_ns(CUfunction f, void** params, void** extra, int batches, int per_batch) {
  double runs[64];
  for (int b = 0; b < batches; ++b) {
    CHECK(cuCtxSynchronize());
    double t0 = now_ns();
    for (int i = 0; i < per_batch; ++i) CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, params, extra));
    runs[b] = (now_ns() - t0) / per_batch;
  }
  qsort(runs, batches, sizeof(double), cmp);
  return runs[batches / 2];
}

// Mixed sizes at natural alignment: u64 out, u32, u64, u16, u8, f32, u8, f64 -> written back to out[0..6].
static int check_layout(void) {
  const char* ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry mixed(.param .u64 out, .param .u32 a, .param .u64 b, .param .u16 c, .param .u8 d,"
      " .param .f32 e, .param .u8 g, .param .f64 h)\n{\n"
      ".reg .u64 %o; .reg .u32 %a; .reg .u64 %b; .reg .u16 %c; .reg .u16 %d; .reg .f32 %e; .reg .u16 %g; .reg .f64 %h;\n"
      ".reg .u64 %x;\n"
      "ld.param.u64 %o, [out]; cvta.to.global.u64 %o, %o;\n"
      "ld.param.u32 %a, [a]; cvt.u64.u32 %x, %a; st.global.u64 [%o], %x;\n"
      "ld.param.u64 %b, [b]; st.global.u64 [%o+8], %b;\n"
      "ld.param.u16 %c, [c]; cvt.u64.u16 %x, %c; st.global.u64 [%o+16], %x;\n"
      "ld.param.u8 %d, [d]; cvt.u64.u16 %x, %d; st.global.u64 [%o+24], %x;\n"
      "ld.param.f32 %e, [e]; cvt.f64.f32 %h, %e; st.global.f64 [%o+32], %h;\n"
      "ld.param.u8 %g, [g]; cvt.u64.u16 %x, %g; st.global.u64 [%o+40], %x;\n"
      "ld.param.f64 %h, [h]; st.global.f64 [%o+48], %h;\n"
      "ret;\n}\n";
  CUmodule m;
  CHECK(cuModuleLoadData(&m, ptx));
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, m, "mixed"));
  const size_t sizes[8] = {8, 4, 8, 2, 1, 4, 1, 8};
  size_t offsets[8], off = 0;
  int ok = 1;
  for (int i = 0; i < 8; ++i) {
    off = (off + sizes[i] - 1) / sizes[i] * sizes[i];
    offsets[i] = off;
    off += sizes[i];
    size_t o = 0, s = 0;
    CUresult r = cuFuncGetParamInfo(f, i, &o, &s);
    printf("param %d: natural offset %zu size %zu; cuFuncGetParamInfo %s offset %zu size %zu\n", i, offsets[i],
           sizes[i], r == CUDA_SUCCESS ? "ok" : "failed", o, s);
    if (r == CUDA_SUCCESS && (o != offsets[i] || s != sizes[i])) ok = 0;
  }
  size_t total = (off + 7) / 8 * 8;
  CUdeviceptr out;
  CHECK(cuMemAlloc(&out, 64));
  CHECK(cuMemsetD8(out, 0, 64));
  unsigned char buf[64] __attribute__((aligned(16)));
  memset(buf, 0, sizeof buf);
  uint32_t a = 0xdeadbeef;
  uint64_t b = 0x0123456789abcdefull;
  uint16_t c = 0xbeef;
  uint8_t d = 0x5a;
  float e = 1.5f;
  uint8_t g = 0xa5;
  double h = -2.25;
  const void* vals[8] = {&out, &a, &b, &c, &d, &e, &g, &h};
  for (int i = 0; i < 8; ++i) memcpy(buf + offsets[i], vals[i], sizes[i]);
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &total, CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, NULL, extra));
  uint64_t got[7];
  CHECK(cuMemcpyDtoH(got, out, sizeof got));
  double ge, gh;
  memcpy(&ge, &got[4], 8);
  memcpy(&gh, &got[6], 8);
  if (got[0] != a || got[1] != b || got[2] != c || got[3] != d || ge != 1.5 || got[5] != g || gh != h) ok = 0;
  printf("packed buffer read back: %s (a %llx b %llx c %llx d %llx e %g g %llx h %g)\n", ok ? "equal" : "DIFFERENT",
         (unsigned long long)got[0], (unsigned long long)got[1], (unsigned long long)got[2],
         (unsigned long long)got[3], ge, (unsigned long long)got[5], gh);
  // A buffer size other than the kernel's (`total` is the exact end of its last parameter here): what the driver says.
  size_t shorter = total - 8, longer = total + 8;
  void* extra_short[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &shorter, CU_LAUNCH_PARAM_END};
  void* extra_long[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &longer, CU_LAUNCH_PARAM_END};
  const char* name = "";
  CUresult rs = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, NULL, extra_short);
  cuGetErrorName(rs, &name);
  printf("buffer 8 bytes short of the kernel's parameters: %s\n", name);
  CUresult rl = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, NULL, extra_long);
  cuGetErrorName(rl, &name);
  printf("buffer 8 bytes past the kernel's parameters: %s\n", name);
  CHECK(cuCtxSynchronize());
  cuMemFree(out);
  return ok;
}

int main(int argc, char** argv) {
  int batches = argc > 1 ? atoi(argv[1]) : 15, per_batch = argc > 2 ? atoi(argv[2]) : 2000;
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  int ok = check_layout();
  static uint64_t values[512];
  static void* pointers[512];
  for (int i = 0; i < 512; ++i) {
    values[i] = i;
    pointers[i] = &values[i];
  }
  const int counts[] = {1, 4, 7, 14, 39, 112, 263};
  printf("| parameters (u64) | kernelParams ns | packed buffer ns | difference per parameter ns |\n| ---: | ---: | ---: | ---: |\n");
  for (int r = 0; r < 2; ++r)
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
      int n = counts[c];
      CUfunction f = empty_kernel(n);
      size_t size = (size_t)n * 8;
      void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, values, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
      median_launch_ns(f, pointers, NULL, 2, 200);  // warm both ways
      median_launch_ns(f, NULL, extra, 2, 200);
      double each = median_launch_ns(f, pointers, NULL, batches, per_batch);
      double packed = median_launch_ns(f, NULL, extra, batches, per_batch);
      printf("| %d | %.0f | %.0f | %.1f |\n", n, each, packed, (each - packed) / n);
    }
  return ok ? 0 : 1;
}
