/* The C ABI a classic XLA custom-call target is written against: the status object, the callback
 * signatures, and the descriptor a library exports so cubridge can register its targets by name.
 * Implements: XLA "Custom calls" (classic API): XlaCustomCallStatus with SetSuccess / SetFailure, the
 * CPU `void(void* out, const void** in[, ...])` and GPU `void(CUstream, void** buffers, const char*
 * opaque, size_t opaque_len[, status])` signatures of custom-call API versions 1, 2 and 3.
 *
 * The status functions are `static inline` and call through a pointer stored in the status object, so a
 * target library needs no link-time dependency on cubridge. They check the object's magic word first:
 * XLA's own status object (the classic api_version=0 path) does not carry it, and there they do nothing,
 * because jaxlib does not export its own XlaCustomCallStatusSetFailure (a failure cannot be reported on
 * that path at all; use the typed-FFI adapter, cubridge's default). Nothing here throws or allocates. */
#ifndef CUBRIDGE_C_XLA_CUSTOM_CALL_H_
#define CUBRIDGE_C_XLA_CUSTOM_CALL_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct CUstream_st; /* cuda.h's CUstream is a pointer to it; declared here so cuda.h is not needed */

/* "cubrxla1" in ASCII: tells a cubridge status object from any other pointer passed as a status. */
#define CUBRIDGE_XLA_STATUS_MAGIC UINT64_C(0x63756272786c6131)
/* Layout version of XlaCustomCallStatus_ below; fields may only be appended. */
#define CUBRIDGE_XLA_STATUS_VERSION 1u

/* The status a target receives as its last argument (API versions 2 and 3). Success is the default.
 * The object is created and owned by the caller (the cubridge adapter) and lives only during the call:
 * a target must not keep the pointer. */
struct XlaCustomCallStatus_ {
  uint64_t magic;       /* CUBRIDGE_XLA_STATUS_MAGIC */
  uint32_t version;     /* CUBRIDGE_XLA_STATUS_VERSION */
  uint32_t failed;      /* 0 = success (the default), 1 = failed; the last Set* call wins */
  /* Stores a copy of the message (the caller's memory is not kept); set by the owner. */
  void (*store_message)(struct XlaCustomCallStatus_* status, const char* message, size_t length);
  void* owner_data; /* the owner's message storage; opaque to targets */
};
typedef struct XlaCustomCallStatus_ XlaCustomCallStatus;

/* Marks the call as successful (the default; undoes an earlier SetFailure). */
static inline void XlaCustomCallStatusSetSuccess(XlaCustomCallStatus* status) {
  if (status != NULL && status->magic == CUBRIDGE_XLA_STATUS_MAGIC) status->failed = 0u;
}

/* Marks the call as failed: the outputs are not used and the computation stops with `message`. The
 * message is copied up to `length` bytes or its first NUL, whichever comes first. */
static inline void XlaCustomCallStatusSetFailure(XlaCustomCallStatus* status, const char* message,
                                                 size_t length) {
  if (status == NULL || status->magic != CUBRIDGE_XLA_STATUS_MAGIC) return;
  status->failed = 1u;
  if (status->store_message != NULL) status->store_message(status, message, length);
}

/* The callback signatures, named by XLA's custom-call API version (the `api_version` of a target).
 * Buffers: operands first, then results. On the CPU `out` is the result buffer itself, or for a tuple
 * result an array of pointers; `in[i]` is operand i, or for a tuple operand an array of pointers (nested
 * tuples nested). On the GPU `buffers` holds every leaf buffer, operands then results, in pre-order. */
typedef void (*CubridgeXlaCpuTargetV1)(void* out, const void** in);
typedef void (*CubridgeXlaCpuTargetV2)(void* out, const void** in, XlaCustomCallStatus* status);
typedef void (*CubridgeXlaCpuTargetV3)(void* out, const void** in, const char* opaque,
                                       size_t opaque_len, XlaCustomCallStatus* status);
typedef void (*CubridgeXlaGpuTargetV1)(struct CUstream_st* stream, void** buffers, const char* opaque,
                                       size_t opaque_len);
typedef void (*CubridgeXlaGpuTargetV2)(struct CUstream_st* stream, void** buffers, const char* opaque,
                                       size_t opaque_len, XlaCustomCallStatus* status);

typedef enum CubridgeXlaPlatform {
  CUBRIDGE_XLA_PLATFORM_HOST = 1, /* XLA's "Host" (jax platform "cpu") */
  CUBRIDGE_XLA_PLATFORM_CUDA = 2  /* XLA's "CUDA" (jax platform "cuda") */
} CubridgeXlaPlatform;

/* Flags of a target descriptor. */
#define CUBRIDGE_XLA_TARGET_NOT_COMMAND_BUFFER_COMPATIBLE 1u /* GPU: never capture in a CUDA graph */

#define CUBRIDGE_XLA_TARGET_DESCRIPTOR_VERSION 1u

/* What cubridge needs to serve a classic target. A library exports one per target under the symbol
 * `cubridge_xla_target_<name>` (CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET does it), which
 * cubridge.xla.register(library, name, platform) looks up. All pointers are borrowed and must outlive
 * the process's use of the target (static storage). */
typedef struct CubridgeXlaTargetDescriptor {
  uint32_t version;     /* CUBRIDGE_XLA_TARGET_DESCRIPTOR_VERSION */
  uint32_t flags;       /* CUBRIDGE_XLA_TARGET_* bits */
  const char* name;     /* NUL-terminated target name */
  int32_t platform;     /* a CubridgeXlaPlatform */
  int32_t api_version;  /* 1, 2 or 3 (GPU: 3 is the same signature as 2) */
  void (*function)(void); /* the target, cast to a generic function pointer */
} CubridgeXlaTargetDescriptor;

/* Adds a target to the process-wide registry keyed by (name, platform). Returns 0, or -1 with a
 * NUL-terminated reason written to `error` (at most `error_len` bytes; may be NULL): a duplicate
 * (name, platform), an unknown platform or api_version, a null function or an empty name. */
int cubridge_xla_register_target(const CubridgeXlaTargetDescriptor* target, char* error,
                                 size_t error_len);

#ifdef __cplusplus
}
#endif

#endif /* CUBRIDGE_C_XLA_CUSTOM_CALL_H_ */
