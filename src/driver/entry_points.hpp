// Internal: the CUDA driver entry points cubridge uses, as an X-macro list. Each is resolved with
// cuGetProcAddress at the 12.0 ABI (the signatures cuda.h declares under the plain names; see loader.cpp) and typed as decltype(&::cuX),
// so no prototype is written out by hand. Add an entry here before calling a new driver function.
// CUBRIDGE_DRIVER_LATER_ENTRY_POINTS lists the entries newer than 12.0, each with the version it came in (asked at
// that version); on an older driver they stay null, and their callers go without them.
#pragma once

#define CUBRIDGE_DRIVER_ENTRY_POINTS(X)                                                             \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)                             \
  X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetUuid) X(cuDeviceGetPCIBusId)   \
  X(cuDeviceTotalMem) X(cuDeviceGetAttribute) X(cuDeviceCanAccessPeer)                              \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuDevicePrimaryCtxReset)               \
  X(cuDevicePrimaryCtxGetState)                                                                     \
  X(cuCtxGetCurrent) X(cuCtxSetCurrent) X(cuCtxPushCurrent) X(cuCtxPopCurrent) X(cuCtxGetDevice)    \
  X(cuCtxSynchronize) X(cuCtxGetStreamPriorityRange)                                                \
  X(cuStreamCreate) X(cuStreamCreateWithPriority) X(cuStreamDestroy) X(cuStreamSynchronize)        \
  X(cuStreamQuery) X(cuStreamWaitEvent) X(cuStreamGetCtx) X(cuStreamGetFlags) X(cuLaunchHostFunc)   \
  X(cuStreamIsCapturing) X(cuThreadExchangeStreamCaptureMode)                                      \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventQuery) X(cuEventSynchronize)         \
  X(cuEventElapsedTime)                                                                             \
  X(cuMemAlloc) X(cuMemFree) X(cuMemAllocAsync) X(cuMemFreeAsync) X(cuMemGetInfo)                  \
  X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemHostRegister) X(cuMemHostUnregister)                    \
  X(cuMemHostGetDevicePointer) X(cuMemGetAddressRange)                                              \
  X(cuMemPoolCreate) X(cuMemPoolDestroy) X(cuMemPoolSetAttribute) X(cuMemPoolGetAttribute)          \
  X(cuMemAllocFromPoolAsync) X(cuDeviceGetDefaultMemPool) X(cuMemPoolTrimTo)                        \
  X(cuMemcpy) X(cuMemcpyAsync) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD)                      \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemcpyPeerAsync)               \
  X(cuMemcpy2DAsync) X(cuMemsetD8) X(cuMemsetD8Async) X(cuMemsetD32Async)                           \
  X(cuPointerGetAttribute) X(cuPointerGetAttributes)                                                \
  X(cuIpcGetMemHandle) X(cuIpcOpenMemHandle) X(cuIpcCloseMemHandle)                                 \
  X(cuModuleLoadData) X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction)                \
  X(cuModuleGetGlobal) X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuFuncGetAttribute)                  \
  X(cuFuncSetAttribute) X(cuOccupancyMaxPotentialBlockSize) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)

#define CUBRIDGE_DRIVER_LATER_ENTRY_POINTS(X) \
  X(cuFuncGetParamInfo, 12040)
