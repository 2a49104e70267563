// A stand-in for libcuda.so.1 that serves "device" memory from host memory, for measuring the host-side
// cost of cubridge's Python and C++ paths (what a GPU run cannot separate from the driver) on a machine
// without a GPU, under perf or callgrind. It implements the entry points that allocation, arrays, streams
// and events reach, each as cheaply as possible; every other entry point is absent (cubridge then reports
// CUDA_ERROR_NOT_FOUND naming it). Modules load without being read and a kernel launch returns at once
// (nothing runs), so what a launch from Python costs on the host can be timed and profiled too.
//
// Stream capture: a test marks one of its streams as capturing with host_libcuda_set_capturing (through
// ctypes; the driver cubridge loaded is this library). While any stream captures, a thread not in relaxed
// capture mode (cuThreadExchangeStreamCaptureMode) cannot load modules, look kernels up, allocate or
// synchronise (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, NVIDIA's answer under a global capture), and a launch
// on the legacy default stream fails with CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: the rules cubridge's launch
// path must follow, checked without a GPU.
//
// Load it with CUBRIDGE_LIBCUDA=/path/to/host_libcuda.so (see profile.sh). Not for tests of behaviour:
// timings of the real driver calls it replaces are not represented.
//
// Several devices: CUBRIDGE_HOST_DEVICES=N (1..8, default 1) models N devices, each with its own primary
// context, UUID and stream-ordered pool, for the tests of which context each driver call runs in. Then the
// stand-in keeps a table of allocations and answers as NVIDIA's driver does where cubridge has been wrong:
// cuMemAlloc needs a current context and allocates on its device; cuMemGetAddressRange finds only
// allocations of the current context (CUDA_ERROR_NOT_FOUND for another device's); a pointer's
// CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL is its own device's, and memory of a stream-ordered pool reports no
// context (CU_POINTER_ATTRIBUTE_CONTEXT is NULL). With one device none of this is kept (the timings stay
// those of the lightest stand-in); every pointer is then device 0's.
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HOST_TOTAL_BYTES (80ull << 30)
#define HOST_MAX_DEVICES 8

struct CUctx_st { int device; };
struct CUstream_st { CUcontext context; int capturing; };

static int g_capturing_streams;  // how many streams host_libcuda_set_capturing marked
static _Thread_local CUstreamCaptureMode t_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
static int capture_forbids(void) { return g_capturing_streams > 0 && t_capture_mode != CU_STREAM_CAPTURE_MODE_RELAXED; }

/// Marks `s` (a stream of cuStreamCreate) as capturing (`on` 1) or not (0); returns 0, or -1 for a default stream.
int host_libcuda_set_capturing(CUstream s, int on) {
  if ((uintptr_t)s <= 2) return -1;
  if (s->capturing != (on != 0)) g_capturing_streams += on ? 1 : -1;
  s->capturing = on != 0;
  return 0;
}
struct CUevent_st { int unused; };

static struct CUctx_st g_primary[HOST_MAX_DEVICES] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
static __thread CUcontext t_stack[16];
static __thread int t_depth;  // t_stack[t_depth - 1] is current

// CUBRIDGE_HOST_DEVICES, read once; a value outside 1..8 counts as 1.
static int device_count(void) {
  static int n = 0;
  if (n == 0) {
    const char* v = getenv("CUBRIDGE_HOST_DEVICES");
    int k = v ? atoi(v) : 1;
    n = (k >= 1 && k <= HOST_MAX_DEVICES) ? k : 1;
  }
  return n;
}
static CUcontext current_context(void) { return t_depth ? t_stack[t_depth - 1] : NULL; }

// The allocation table of the several-device model: a fixed array under one lock (tests allocate little).
#define HOST_MAX_ALLOCATIONS 65536
struct Allocation {
  CUdeviceptr start;
  size_t size;
  int device;
  int pooled;  // from a stream-ordered pool: no context owns it
};
static struct Allocation g_allocations[HOST_MAX_ALLOCATIONS];
static int g_allocation_count;
static pthread_mutex_t g_allocations_lock = PTHREAD_MUTEX_INITIALIZER;

static int track(CUdeviceptr start, size_t size, int device, int pooled) {
  pthread_mutex_lock(&g_allocations_lock);
  int ok = g_allocation_count < HOST_MAX_ALLOCATIONS;
  if (ok) g_allocations[g_allocation_count++] = (struct Allocation){start, size ? size : 1, device, pooled};
  pthread_mutex_unlock(&g_allocations_lock);
  return ok;
}
static void untrack(CUdeviceptr start) {
  pthread_mutex_lock(&g_allocations_lock);
  for (int i = 0; i < g_allocation_count; ++i)
    if (g_allocations[i].start == start) {
      g_allocations[i] = g_allocations[--g_allocation_count];
      break;
    }
  pthread_mutex_unlock(&g_allocations_lock);
}
// The allocation holding p, copied out; 0 when none does.
static int find(CUdeviceptr p, struct Allocation* out) {
  int found = 0;
  pthread_mutex_lock(&g_allocations_lock);
  for (int i = 0; i < g_allocation_count && !found; ++i)
    if (p >= g_allocations[i].start && p - g_allocations[i].start < g_allocations[i].size) {
      *out = g_allocations[i];
      found = 1;
    }
  pthread_mutex_unlock(&g_allocations_lock);
  return found;
}

static CUresult host_cuInit(unsigned flags) { (void)flags; return CUDA_SUCCESS; }
static CUresult host_cuDriverGetVersion(int* v) { *v = 13000; return CUDA_SUCCESS; }
static CUresult host_cuGetErrorName(CUresult r, const char** s) { (void)r; *s = "CUDA_ERROR_HOST_DRIVER"; return CUDA_SUCCESS; }
static CUresult host_cuGetErrorString(CUresult r, const char** s) { (void)r; *s = "host driver stand-in"; return CUDA_SUCCESS; }
static CUresult host_cuDeviceGetCount(int* n) { *n = device_count(); return CUDA_SUCCESS; }
static CUresult host_cuDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal < 0 || ordinal >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
static CUresult host_cuDeviceGetName(char* name, int len, CUdevice d) {
  (void)d;
  strncpy(name, "host driver stand-in", (size_t)len);
  if (len > 0) name[len - 1] = 0;
  return CUDA_SUCCESS;
}
static CUresult host_cuDeviceGetUuid(CUuuid* u, CUdevice d) {
  memset(u, 0x42, sizeof *u);
  u->bytes[15] = (char)(0x42 + d);  // device 0 keeps the one-device stand-in's UUID
  return CUDA_SUCCESS;
}
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
static CUresult host_cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  if (d < 0 || d >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *c = &g_primary[d];
  return CUDA_SUCCESS;
}
static CUresult host_cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return CUDA_SUCCESS; }
static CUresult host_cuDevicePrimaryCtxReset(CUdevice d) { (void)d; return CUDA_SUCCESS; }
static CUresult host_cuDevicePrimaryCtxGetState(CUdevice d, unsigned* flags, int* active) {
  (void)d;
  *flags = 0;
  *active = 1;
  return CUDA_SUCCESS;
}
static CUresult host_cuCtxGetCurrent(CUcontext* c) { *c = current_context(); return CUDA_SUCCESS; }
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
static CUresult host_cuCtxGetDevice(CUdevice* d) {
  CUcontext c = current_context();
  if (c == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  *d = c->device;
  return CUDA_SUCCESS;
}
static CUresult host_cuCtxSynchronize(void) { return CUDA_SUCCESS; }
static CUresult host_cuCtxGetStreamPriorityRange(int* lo, int* hi) { *lo = 0; *hi = -5; return CUDA_SUCCESS; }

static CUresult host_cuStreamCreate(CUstream* s, unsigned flags) {
  (void)flags;
  if (device_count() > 1 && current_context() == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  *s = calloc(1, sizeof(struct CUstream_st));
  if (*s == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  (*s)->context = current_context() ? current_context() : &g_primary[0];
  return CUDA_SUCCESS;
}
static CUresult host_cuStreamCreateWithPriority(CUstream* s, unsigned flags, int prio) {
  (void)prio;
  return host_cuStreamCreate(s, flags);
}
static CUresult host_cuStreamDestroy(CUstream s) { free(s); return CUDA_SUCCESS; }
static CUresult host_cuStreamSynchronize(CUstream s) { (void)s; return capture_forbids() ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS; }
static CUresult host_cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus* status) {
  *status = (uintptr_t)s > 2 && s->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
static CUresult host_cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* mode) {
  CUstreamCaptureMode previous = t_capture_mode;
  t_capture_mode = *mode;
  *mode = previous;
  return CUDA_SUCCESS;
}
static CUresult host_cuStreamQuery(CUstream s) { (void)s; return CUDA_SUCCESS; }
static CUresult host_cuStreamWaitEvent(CUstream s, CUevent e, unsigned f) { (void)s; (void)e; (void)f; return CUDA_SUCCESS; }
static CUresult host_cuStreamGetCtx(CUstream s, CUcontext* c) {
  // The legacy and per-thread default streams (handles 0, 1, 2) are the current context's.
  if ((uintptr_t)s <= 2) {
    *c = current_context();
    return *c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
  }
  *c = s->context;
  return CUDA_SUCCESS;
}
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

static CUresult allocate(CUdeviceptr* p, size_t bytes, int device, int pooled) {
  void* m = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  if (device_count() > 1 && !track((CUdeviceptr)m, bytes, device, pooled)) {
    free(m);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *p = (CUdeviceptr)m;
  return CUDA_SUCCESS;
}
static CUresult host_cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  if (capture_forbids()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (device_count() == 1) return allocate(p, bytes, 0, 0);
  CUcontext c = current_context();
  if (c == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  return allocate(p, bytes, c->device, 0);
}
static CUresult host_cuMemFree(CUdeviceptr p) {
  if (device_count() > 1) untrack(p);
  free((void*)p);
  return CUDA_SUCCESS;
}
static CUresult host_cuMemGetAddressRange(CUdeviceptr* base, size_t* size, CUdeviceptr p) {
  CUcontext c = current_context();
  if (c == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  struct Allocation a;
  if (device_count() == 1) return CUDA_ERROR_NOT_SUPPORTED;  // no table is kept for one device
  if (!find(p, &a) || a.pooled || a.device != c->device) return CUDA_ERROR_NOT_FOUND;
  if (base) *base = a.start;
  if (size) *size = a.size;
  return CUDA_SUCCESS;
}
static CUresult host_cuMemAllocAsync(CUdeviceptr* p, size_t bytes, CUstream s) {
  (void)s;
  if (device_count() == 1) return allocate(p, bytes, 0, 1);
  CUcontext c = current_context();
  if (c == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  return allocate(p, bytes, c->device, 1);  // from the device's default pool: no context owns it
}
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

// Stream-ordered pools: one dummy pool per device; allocations come from the host heap like cuMemAlloc's.
struct CUmemPoolHandle_st { int device; };
static struct CUmemPoolHandle_st g_pool[HOST_MAX_DEVICES] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
static CUresult host_cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice d) {
  if (d < 0 || d >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *pool = &g_pool[d];
  return CUDA_SUCCESS;
}
static CUresult host_cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* props) {
  if (props->location.type != CU_MEM_LOCATION_TYPE_DEVICE || props->location.id < 0 ||
      props->location.id >= device_count())
    return CUDA_ERROR_INVALID_VALUE;
  *pool = &g_pool[props->location.id];
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
  (void)s;
  return allocate(p, bytes, pool->device, 1);
}

// Every address counts as device memory (host memory stands in for it); with several devices, one the
// table holds is its device's, and one of a pool has no context, as NVIDIA's driver answers.
static CUresult host_cuPointerGetAttribute(void* data, CUpointer_attribute a, CUdeviceptr p) {
  struct Allocation found = {0, 0, 0, 0};
  if (device_count() > 1) find(p, &found);
  switch (a) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned*)data = CU_MEMORYTYPE_DEVICE; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int*)data = found.device; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      *(CUcontext*)data = found.pooled ? NULL : &g_primary[found.device];
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      if (found.size == 0) return CUDA_ERROR_INVALID_VALUE;
      *(CUdeviceptr*)data = found.start;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      if (found.size == 0) return CUDA_ERROR_INVALID_VALUE;
      *(size_t*)data = found.size;
      return CUDA_SUCCESS;
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
  if (capture_forbids()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  for (unsigned i = 0; i < n; ++i)  // empty logs, as a successful JIT leaves them
    if (o[i] == CU_JIT_ERROR_LOG_BUFFER || o[i] == CU_JIT_INFO_LOG_BUFFER) *(char*)v[i] = 0;
  *m = &g_module;
  return CUDA_SUCCESS;
}
static CUresult host_cuModuleUnload(CUmodule m) { (void)m; return CUDA_SUCCESS; }
static CUresult host_cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  (void)m;
  (void)name;
  if (capture_forbids()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
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
  (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)smem; (void)params; (void)extra;
  return (uintptr_t)s <= 1 && g_capturing_streams > 0 ? CUDA_ERROR_STREAM_CAPTURE_IMPLICIT : CUDA_SUCCESS;
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
    E(cuStreamGetFlags), E(cuStreamIsCapturing), E(cuThreadExchangeStreamCaptureMode), E(cuEventCreate), E(cuEventDestroy), E(cuEventRecord), E(cuEventQuery),
    E(cuEventSynchronize), E(cuEventElapsedTime), E(cuMemAlloc), E(cuMemFree), E(cuMemAllocAsync),
    E(cuMemFreeAsync), E(cuMemGetInfo), E(cuMemcpy), E(cuMemcpyAsync), E(cuMemcpyHtoD), E(cuMemcpyDtoH),
    E(cuMemcpyDtoD), E(cuMemcpyHtoDAsync), E(cuMemcpyDtoHAsync), E(cuMemcpyDtoDAsync), E(cuMemsetD8),
    E(cuMemsetD8Async), E(cuPointerGetAttribute), E(cuPointerGetAttributes), E(cuMemHostAlloc),
    E(cuMemFreeHost), E(cuMemGetAddressRange), E(cuMemHostRegister), E(cuMemHostUnregister), E(cuMemHostGetDevicePointer),
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
