// A stand-in for libcuda.so.1 that serves "device" memory from host memory, for measuring the host-side
// cost of cubridge's Python and C++ paths (what a GPU run cannot separate from the driver) on a machine
// without a GPU, under perf or callgrind. It implements the entry points that allocation, arrays, streams
// and events reach, each as cheaply as possible; every other entry point is absent (cubridge then reports
// CUDA_ERROR_NOT_FOUND naming it). Modules load without being read and a kernel launch returns at once
// (nothing runs), so what a launch from Python costs on the host can be timed and profiled too.
//
// Load it with CUBRIDGE_LIBCUDA=/path/to/host_libcuda.so (see profile.sh). Not for tests of behaviour:
// timings of the real driver calls it replaces are not represented.
#include <cuda.h>
#include <stdlib.h>
#include <string.h>

#define HOST_TOTAL_BYTES (80ull << 30)

struct CUctx_st { int device; };
struct CUstream_st { int unused; };
struct CUevent_st { int unused; };

static struct CUctx_st g_primary = {0};
static __thread CUcontext t_stack[16];
static __thread int t_depth;  // t_stack[t_depth - 1] is current

static CUresult host_cuInit(unsigned flags) { (void)flags; return CUDA_SUCCESS; }
static CUresult host_cuDriverGetVersion(int* v) { *v = 13000; return CUDA_SUCCESS; }
static CUresult host_cuGetErrorName(CUresult r, const char** s) { (void)r; *s = "CUDA_ERROR_HOST_DRIVER"; return CUDA_SUCCESS; }
static CUresult host_cuGetErrorString(CUresult r, const char** s) { (void)r; *s = "host driver stand-in"; return CUDA_SUCCESS; }
static CUresult host_cuDeviceGetCount(int* n) { *n = 1; return CUDA_SUCCESS; }
static CUresult host_cuDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *d = 0;
  return CUDA_SUCCESS;
}
static CUresult host_cuDeviceGetName(char* name, int len, CUdevice d) {
  (void)d;
  strncpy(name, "host driver stand-in", (size_t)len);
  if (len > 0) name[len - 1] = 0;
  return CUDA_SUCCESS;
}
static CUresult host_cuDeviceGetUuid(CUuuid* u, CUdevice d) { (void)d; memset(u, 0x42, sizeof *u); return CUDA_SUCCESS; }
static CUresult host_cuDeviceGetPCIBusId(char* id, int len, CUdevice d) {
  (void)d;
  strncpy(id, "0000:00:00.0", (size_t)len);
  if (len > 0) id[len - 1] = 0;
  return CUDA_SUCCESS;
}
static CUresult host_cuDeviceTotalMem(size_t* b, CUdevice d) { (void)d; *b = HOST_TOTAL_BYTES; return CUDA_SUCCESS; }
static CUresult host_cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice d) {
  (void)d;
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: *v = 1; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
    default: *v = 0; break;
  }
  return CUDA_SUCCESS;
}
static CUresult host_cuDeviceCanAccessPeer(int* can, CUdevice a, CUdevice b) { (void)a; (void)b; *can = 0; return CUDA_SUCCESS; }
static CUresult host_cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) { (void)d; *c = &g_primary; return CUDA_SUCCESS; }
static CUresult host_cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return CUDA_SUCCESS; }
static CUresult host_cuDevicePrimaryCtxReset(CUdevice d) { (void)d; return CUDA_SUCCESS; }
static CUresult host_cuDevicePrimaryCtxGetState(CUdevice d, unsigned* flags, int* active) {
  (void)d;
  *flags = 0;
  *active = 1;
  return CUDA_SUCCESS;
}
static CUresult host_cuCtxGetCurrent(CUcontext* c) { *c = t_depth ? t_stack[t_depth - 1] : NULL; return CUDA_SUCCESS; }
static CUresult host_cuCtxSetCurrent(CUcontext c) {
  if (t_depth == 0) t_depth = 1;
  t_stack[t_depth - 1] = c;
  return CUDA_SUCCESS;
}
static CUresult host_cuCtxPushCurrent(CUcontext c) {
  if (t_depth == 16) return CUDA_ERROR_INVALID_VALUE;
  t_stack[t_depth++] = c;
  return CUDA_SUCCESS;
}
static CUresult host_cuCtxPopCurrent(CUcontext* c) {
  if (t_depth == 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (c) *c = t_stack[t_depth - 1];
  --t_depth;
  return CUDA_SUCCESS;
}
static CUresult host_cuCtxGetDevice(CUdevice* d) { *d = 0; return CUDA_SUCCESS; }
static CUresult host_cuCtxSynchronize(void) { return CUDA_SUCCESS; }
static CUresult host_cuCtxGetStreamPriorityRange(int* lo, int* hi) { *lo = 0; *hi = -5; return CUDA_SUCCESS; }

static CUresult host_cuStreamCreate(CUstream* s, unsigned flags) {
  (void)flags;
  *s = calloc(1, sizeof(struct CUstream_st));
  return CUDA_SUCCESS;
}
static CUresult host_cuStreamCreateWithPriority(CUstream* s, unsigned flags, int prio) {
  (void)prio;
  return host_cuStreamCreate(s, flags);
}
static CUresult host_cuStreamDestroy(CUstream s) { free(s); return CUDA_SUCCESS; }
static CUresult host_cuStreamSynchronize(CUstream s) { (void)s; return CUDA_SUCCESS; }
static CUresult host_cuStreamQuery(CUstream s) { (void)s; return CUDA_SUCCESS; }
static CUresult host_cuStreamWaitEvent(CUstream s, CUevent e, unsigned f) { (void)s; (void)e; (void)f; return CUDA_SUCCESS; }
static CUresult host_cuStreamGetCtx(CUstream s, CUcontext* c) { (void)s; *c = &g_primary; return CUDA_SUCCESS; }
static CUresult host_cuStreamGetFlags(CUstream s, unsigned* f) { (void)s; *f = 0; return CUDA_SUCCESS; }

static CUresult host_cuEventCreate(CUevent* e, unsigned flags) {
  (void)flags;
  *e = calloc(1, sizeof(struct CUevent_st));
  return CUDA_SUCCESS;
}
static CUresult host_cuEventDestroy(CUevent e) { free(e); return CUDA_SUCCESS; }
static CUresult host_cuEventRecord(CUevent e, CUstream s) { (void)e; (void)s; return CUDA_SUCCESS; }
static CUresult host_cuEventQuery(CUevent e) { (void)e; return CUDA_SUCCESS; }
static CUresult host_cuEventSynchronize(CUevent e) { (void)e; return CUDA_SUCCESS; }
static CUresult host_cuEventElapsedTime(float* ms, CUevent a, CUevent b) { (void)a; (void)b; *ms = 0; return CUDA_SUCCESS; }

static CUresult host_cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  void* m = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = (CUdeviceptr)m;
  return CUDA_SUCCESS;
}
static CUresult host_cuMemFree(CUdeviceptr p) { free((void*)p); return CUDA_SUCCESS; }
static CUresult host_cuMemAllocAsync(CUdeviceptr* p, size_t bytes, CUstream s) { (void)s; return host_cuMemAlloc(p, bytes); }
static CUresult host_cuMemFreeAsync(CUdeviceptr p, CUstream s) { (void)s; return host_cuMemFree(p); }
static CUresult host_cuMemGetInfo(size_t* free_bytes, size_t* total) {
  *free_bytes = HOST_TOTAL_BYTES / 2;
  *total = HOST_TOTAL_BYTES;
  return CUDA_SUCCESS;
}
static CUresult host_cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n) { memmove((void*)d, (const void*)s, n); return CUDA_SUCCESS; }
static CUresult host_cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) { (void)st; return host_cuMemcpy(d, s, n); }
static CUresult host_cuMemcpyHtoD(CUdeviceptr d, const void* s, size_t n) { memmove((void*)d, s, n); return CUDA_SUCCESS; }
static CUresult host_cuMemcpyDtoH(void* d, CUdeviceptr s, size_t n) { memmove(d, (const void*)s, n); return CUDA_SUCCESS; }
static CUresult host_cuMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n) { return host_cuMemcpy(d, s, n); }
static CUresult host_cuMemcpyHtoDAsync(CUdeviceptr d, const void* s, size_t n, CUstream st) { (void)st; return host_cuMemcpyHtoD(d, s, n); }
static CUresult host_cuMemcpyDtoHAsync(void* d, CUdeviceptr s, size_t n, CUstream st) { (void)st; return host_cuMemcpyDtoH(d, s, n); }
static CUresult host_cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) { (void)st; return host_cuMemcpy(d, s, n); }
static CUresult host_cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) { memset((void*)d, v, n); return CUDA_SUCCESS; }
static CUresult host_cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream st) { (void)st; return host_cuMemsetD8(d, v, n); }

static CUresult host_cuMemHostAlloc(void** p, size_t bytes, unsigned flags) {
  (void)flags;
  *p = malloc(bytes ? bytes : 1);
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult host_cuMemFreeHost(void* p) { free(p); return CUDA_SUCCESS; }
static CUresult host_cuMemHostRegister(void* p, size_t n, unsigned f) { (void)p; (void)n; (void)f; return CUDA_SUCCESS; }
static CUresult host_cuMemHostUnregister(void* p) { (void)p; return CUDA_SUCCESS; }
static CUresult host_cuMemHostGetDevicePointer(CUdeviceptr* d, void* p, unsigned f) { (void)f; *d = (CUdeviceptr)p; return CUDA_SUCCESS; }

// Stream-ordered pools: one dummy pool; allocations come from the host heap like cuMemAlloc's.
struct CUmemPoolHandle_st { int unused; };
static struct CUmemPoolHandle_st g_pool;
static CUresult host_cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice d) { (void)d; *pool = &g_pool; return CUDA_SUCCESS; }
static CUresult host_cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* props) {
  (void)props;
  *pool = &g_pool;
  return CUDA_SUCCESS;
}
static CUresult host_cuMemPoolDestroy(CUmemoryPool pool) { (void)pool; return CUDA_SUCCESS; }
static CUresult host_cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void* v) { (void)pool; (void)a; (void)v; return CUDA_SUCCESS; }
static CUresult host_cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void* v) {
  (void)pool;
  (void)a;
  *(cuuint64_t*)v = 0;
  return CUDA_SUCCESS;
}
static CUresult host_cuMemPoolTrimTo(CUmemoryPool pool, size_t keep) { (void)pool; (void)keep; return CUDA_SUCCESS; }
static CUresult host_cuMemAllocFromPoolAsync(CUdeviceptr* p, size_t bytes, CUmemoryPool pool, CUstream s) {
  (void)pool;
  (void)s;
  return host_cuMemAlloc(p, bytes);
}

static CUresult host_cuPointerGetAttribute(void* data, CUpointer_attribute a, CUdeviceptr p) {
  (void)p;
  switch (a) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned*)data = CU_MEMORYTYPE_DEVICE; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int*)data = 0; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext*)data = &g_primary; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}
static CUresult host_cuPointerGetAttributes(unsigned n, CUpointer_attribute* as, void** data, CUdeviceptr p) {
  for (unsigned i = 0; i < n; ++i)
    if (host_cuPointerGetAttribute(data[i], as[i], p) != CUDA_SUCCESS) memset(data[i], 0, sizeof(void*));
  return CUDA_SUCCESS;
}

// Modules and launches: any image "loads", every name is found, a launch does nothing. What is timed is
// the caller's work before the driver call, which is what the launch benches cannot separate on a GPU.
struct CUmod_st { int unused; };
struct CUfunc_st { int unused; };
static struct CUmod_st g_module;
static struct CUfunc_st g_function;
static CUresult host_cuModuleLoadDataEx(CUmodule* m, const void* image, unsigned n, CUjit_option* o, void** v) {
  (void)image;
  for (unsigned i = 0; i < n; ++i)  // empty logs, as a successful JIT leaves them
    if (o[i] == CU_JIT_ERROR_LOG_BUFFER || o[i] == CU_JIT_INFO_LOG_BUFFER) *(char*)v[i] = 0;
  *m = &g_module;
  return CUDA_SUCCESS;
}
static CUresult host_cuModuleUnload(CUmodule m) { (void)m; return CUDA_SUCCESS; }
static CUresult host_cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  (void)m;
  (void)name;
  *f = &g_function;
  return CUDA_SUCCESS;
}
static CUresult host_cuModuleGetGlobal(CUdeviceptr* p, size_t* bytes, CUmodule m, const char* name) {
  (void)p;
  (void)bytes;
  (void)m;
  (void)name;
  return CUDA_ERROR_NOT_FOUND;  // no raise record: the kernels timed here are not debug builds
}
static CUresult host_cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction f) {
  (void)f;
  *v = a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ? 49152 : 0;
  return CUDA_SUCCESS;
}
static CUresult host_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                    unsigned bz, unsigned smem, CUstream s, void** params, void** extra) {
  (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)smem; (void)s; (void)params; (void)extra;
  return CUDA_SUCCESS;
}

struct Entry {
  const char* name;
  void* fn;
};
#define E(name) {#name, (void*)host_##name}
static const struct Entry kEntries[] = {
    E(cuInit), E(cuDriverGetVersion), E(cuGetErrorName), E(cuGetErrorString), E(cuDeviceGetCount),
    E(cuDeviceGet), E(cuDeviceGetName), E(cuDeviceGetUuid), E(cuDeviceGetPCIBusId), E(cuDeviceTotalMem),
    E(cuDeviceGetAttribute), E(cuDeviceCanAccessPeer), E(cuDevicePrimaryCtxRetain),
    E(cuDevicePrimaryCtxRelease), E(cuDevicePrimaryCtxReset), E(cuDevicePrimaryCtxGetState),
    E(cuCtxGetCurrent), E(cuCtxSetCurrent), E(cuCtxPushCurrent), E(cuCtxPopCurrent), E(cuCtxGetDevice),
    E(cuCtxSynchronize), E(cuCtxGetStreamPriorityRange), E(cuStreamCreate), E(cuStreamCreateWithPriority),
    E(cuStreamDestroy), E(cuStreamSynchronize), E(cuStreamQuery), E(cuStreamWaitEvent), E(cuStreamGetCtx),
    E(cuStreamGetFlags), E(cuEventCreate), E(cuEventDestroy), E(cuEventRecord), E(cuEventQuery),
    E(cuEventSynchronize), E(cuEventElapsedTime), E(cuMemAlloc), E(cuMemFree), E(cuMemAllocAsync),
    E(cuMemFreeAsync), E(cuMemGetInfo), E(cuMemcpy), E(cuMemcpyAsync), E(cuMemcpyHtoD), E(cuMemcpyDtoH),
    E(cuMemcpyDtoD), E(cuMemcpyHtoDAsync), E(cuMemcpyDtoHAsync), E(cuMemcpyDtoDAsync), E(cuMemsetD8),
    E(cuMemsetD8Async), E(cuPointerGetAttribute), E(cuPointerGetAttributes), E(cuMemHostAlloc),
    E(cuMemFreeHost), E(cuMemHostRegister), E(cuMemHostUnregister), E(cuMemHostGetDevicePointer),
    E(cuDeviceGetDefaultMemPool), E(cuMemPoolCreate), E(cuMemPoolDestroy), E(cuMemPoolSetAttribute),
    E(cuMemPoolGetAttribute), E(cuMemPoolTrimTo), E(cuMemAllocFromPoolAsync), E(cuModuleLoadDataEx),
    E(cuModuleUnload), E(cuModuleGetFunction), E(cuModuleGetGlobal), E(cuFuncGetAttribute), E(cuLaunchKernel),
};
#undef E

CUresult cuGetProcAddress_v2(const char* symbol, void** fn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* status) {
  (void)version;
  (void)flags;
  for (size_t i = 0; i < sizeof kEntries / sizeof kEntries[0]; ++i)
    if (strcmp(kEntries[i].name, symbol) == 0) {
      *fn = kEntries[i].fn;
      if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  *fn = NULL;
  if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
