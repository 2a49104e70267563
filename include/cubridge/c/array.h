/* The C-side array interface that the CUDA Array Interface anticipates: one fixed-layout struct that
 * carries everything a `__cuda_array_interface__` dict carries, filled from any Python GPU array.
 * Implements: CAI v3 (shape, typestr, data, version, strides, mask, stream) as a C struct, and the C
 * call that fills it without building or parsing a dict (our arrays, DLPack 1.3 exchange table, CAI).
 *
 * How to reach the functions from another extension module (no link-time dependency on cubridge):
 *
 *   PyObject* mod = PyImport_ImportModule("cubridge._core");
 *   PyObject* cap = PyObject_GetAttrString(mod, "_array_c_api");
 *   const CubridgeArrayAPI* api = PyCapsule_GetPointer(cap, CUBRIDGE_ARRAY_API_CAPSULE);
 *   CubridgeArray a;
 *   if (api->from_pyobject(obj, 0, CUBRIDGE_ARRAY_NO_STREAM, &a) != 0) { ... Python error set ... }
 *   ... use a.data, a.shape, a.strides, a.stream ...
 *   api->release(&a);
 *
 * The C++ header cubridge/array/python_array.hpp wraps this in one call returning an ArrayView.
 * Nothing here throws: every function returns 0 or -1 with a Python exception set; call with the GIL. */
#ifndef CUBRIDGE_C_ARRAY_H_
#define CUBRIDGE_C_ARRAY_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Layout version of CubridgeArray. A new version may only append fields before `shape` by using the
 * reserved words; a consumer that sees a version it does not know must refuse the array. */
#define CUBRIDGE_ARRAY_VERSION 1
/* Dimensions carried inline (so that filling the struct allocates nothing). Arrays with more are
 * refused with a ValueError naming their ndim. */
#define CUBRIDGE_ARRAY_MAX_NDIM 32
#define CUBRIDGE_ARRAY_API_CAPSULE "cubridge.array_c_api"
#define CUBRIDGE_ARRAY_API_VERSION 1

/* Bits of CubridgeArray.flags. */
#define CUBRIDGE_ARRAY_READ_ONLY 0x1u    /* CAI data[1] / DLPack READ_ONLY: do not write */
#define CUBRIDGE_ARRAY_HAS_STREAM 0x2u   /* `stream` names the producer's stream (CAI v3 "stream") */
#define CUBRIDGE_ARRAY_HAS_MASK 0x4u     /* the producer attached a mask; `mask` holds it */
#define CUBRIDGE_ARRAY_C_CONTIGUOUS 0x8u
#define CUBRIDGE_ARRAY_F_CONTIGUOUS 0x10u
#define CUBRIDGE_ARRAY_SYNC 0x20u        /* consumer synchronisation is on for this array */
#define CUBRIDGE_ARRAY_MANAGED 0x40u     /* unified (managed) memory */

/* Flags the caller passes to from_pyobject. */
#define CUBRIDGE_IMPORT_NO_SYNC 0x1u     /* like sync=False: take no ordering with the producer */
#define CUBRIDGE_IMPORT_WRITABLE 0x2u    /* refuse read-only arrays */

/* `consumer_stream` argument meaning "I have no particular stream" (CAI never uses 0 for a stream). */
#define CUBRIDGE_ARRAY_NO_STREAM ((uintptr_t)0)

typedef struct CubridgeArray {
  uint32_t version;    /* CUBRIDGE_ARRAY_VERSION */
  uint32_t flags;      /* CUBRIDGE_ARRAY_* */
  void* data;          /* device address of element 0 (0 for zero-size arrays) */
  int32_t ndim;        /* 0 .. CUBRIDGE_ARRAY_MAX_NDIM */
  int32_t device_id;   /* CUDA ordinal of the memory, or -1 when unknown (zero-size) */
  char typestr[16];    /* NumPy typestr, NUL-terminated: "<f4", "|b1", "|V12" */
  uint32_t itemsize;   /* bytes per element */
  char kind;           /* 'b', 'i', 'u', 'f', 'c' or 'V' */
  char byteorder;      /* '<', '>' or '|' */
  uint16_t reserved0;
  uintptr_t stream;    /* CAI v3 value (1 legacy, 2 per-thread, else a CUstream); 0 without HAS_STREAM */
  void* owner;         /* strong reference (PyObject*) keeping the data alive; dropped by release() */
  void* mask;          /* strong reference to the mask object when HAS_MASK, else NULL */
  uint64_t reserved[4];
  int64_t shape[CUBRIDGE_ARRAY_MAX_NDIM];   /* first `ndim` entries used */
  int64_t strides[CUBRIDGE_ARRAY_MAX_NDIM]; /* in BYTES, always filled, may be negative */
} CubridgeArray;

/* The function table behind the capsule "cubridge.array_c_api" (cubridge._core._array_c_api). */
typedef struct CubridgeArrayAPI {
  uint32_t version;    /* CUBRIDGE_ARRAY_API_VERSION */
  uint32_t size;       /* sizeof(CubridgeArrayAPI) of the producer, for appended members */
  /* Fills `out` from `obj`: a cubridge array, an object whose type publishes
   * `__dlpack_c_exchange_api__`, one with `__dlpack__`, or one with `__cuda_array_interface__`
   * (tried in that order). `consumer_stream` (CAI value, or CUBRIDGE_ARRAY_NO_STREAM) is the stream
   * the caller will use: unless CUBRIDGE_IMPORT_NO_SYNC is given, the call orders that stream after
   * the producer's pending work on the GPU. Returns 0, or -1 with a Python exception set. */
  int (*from_pyobject)(void* obj, uint32_t flags, uintptr_t consumer_stream, CubridgeArray* out);
  /* Drops the references held by `a` (owner, mask); safe on a zeroed struct. Needs the GIL. */
  void (*release)(CubridgeArray* a);
} CubridgeArrayAPI;

#ifdef __cplusplus
}
#endif
#endif /* CUBRIDGE_C_ARRAY_H_ */
