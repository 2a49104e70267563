/* cubridge's own declarations of the DLPack 1.x C ABI (tensor structs and the 1.3 exchange table).
 * Implements: DLPack 1.3 "C API" (DLDevice, DLDataType, DLTensor, DLManagedTensor[Versioned],
 * DLPackExchangeAPI). Written from the specification; layouts are pinned by tests/cpp/c_abi/layout_test.cpp.
 *
 * The names carry a CubridgeDL prefix so that this header can sit in the same translation unit as the
 * real dlpack.h; every struct has the identical layout, so a pointer may be cast between the two. */
#ifndef CUBRIDGE_C_DLPACK_H_
#define CUBRIDGE_C_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The DLPack version these declarations follow. A major bump changes the layout of
 * CubridgeDLManagedTensorVersioned after its `flags` field; a minor bump only adds enum values,
 * flags or trailing members of the exchange table. */
#define CUBRIDGE_DLPACK_MAJOR_VERSION 1
#define CUBRIDGE_DLPACK_MINOR_VERSION 3

/* Capsule names of the Python protocol: a producer's unused capsule, and the name a consumer renames
 * it to once it has taken ownership (after which the capsule's destructor must do nothing). */
#define CUBRIDGE_DLPACK_CAPSULE "dltensor"
#define CUBRIDGE_DLPACK_CAPSULE_USED "used_dltensor"
#define CUBRIDGE_DLPACK_VERSIONED_CAPSULE "dltensor_versioned"
#define CUBRIDGE_DLPACK_VERSIONED_CAPSULE_USED "used_dltensor_versioned"
#define CUBRIDGE_DLPACK_EXCHANGE_API_CAPSULE "dlpack_exchange_api"

/* Device types (DLDeviceType; an enum, hence int-sized, in the real header). */
#define CUBRIDGE_DL_CPU 1
#define CUBRIDGE_DL_CUDA 2
#define CUBRIDGE_DL_CUDA_HOST 3 /* pinned host memory that the device can address */
#define CUBRIDGE_DL_CUDA_MANAGED 13

/* Type codes (DLDataTypeCode). */
#define CUBRIDGE_DL_INT 0
#define CUBRIDGE_DL_UINT 1
#define CUBRIDGE_DL_FLOAT 2
#define CUBRIDGE_DL_OPAQUE_HANDLE 3
#define CUBRIDGE_DL_BFLOAT 4
#define CUBRIDGE_DL_COMPLEX 5
#define CUBRIDGE_DL_BOOL 6

/* Bits of CubridgeDLManagedTensorVersioned.flags. */
#define CUBRIDGE_DLPACK_FLAG_READ_ONLY ((uint64_t)1 << 0)        /* the consumer must not write */
#define CUBRIDGE_DLPACK_FLAG_IS_COPIED ((uint64_t)1 << 1)        /* the producer made a private copy */
#define CUBRIDGE_DLPACK_FLAG_SUBBYTE_PADDED ((uint64_t)1 << 2)   /* sub-byte types padded to bytes */

typedef struct CubridgeDLPackVersion {
  uint32_t major;
  uint32_t minor;
} CubridgeDLPackVersion;

typedef struct CubridgeDLDevice {
  int32_t device_type; /* one of CUBRIDGE_DL_CPU, _CUDA, _CUDA_HOST, _CUDA_MANAGED, ... */
  int32_t device_id;   /* the CUDA ordinal for CUDA device types */
} CubridgeDLDevice;

typedef struct CubridgeDLDataType {
  uint8_t code;   /* CUBRIDGE_DL_INT, ... */
  uint8_t bits;   /* bits of one lane: 8 for bool, 64 for complex64 */
  uint16_t lanes; /* 1 for every array cubridge exchanges */
} CubridgeDLDataType;

/* A strided view. Borrowed: whoever filled it owns `shape`, `strides` and the data. */
typedef struct CubridgeDLTensor {
  void* data;              /* device address of the allocation (add byte_offset for element 0) */
  CubridgeDLDevice device;
  int32_t ndim;
  CubridgeDLDataType dtype;
  int64_t* shape;          /* ndim entries */
  int64_t* strides;        /* ndim entries in ELEMENTS, or NULL for C-contiguous */
  uint64_t byte_offset;
} CubridgeDLTensor;

/* Pre-1.0 managed tensor (capsule "dltensor"): no version, no flags, so no read-only bit. */
typedef struct CubridgeDLManagedTensor {
  CubridgeDLTensor dl_tensor;
  void* manager_ctx; /* the producer's; the consumer never reads it */
  void (*deleter)(struct CubridgeDLManagedTensor* self); /* called once by the owner; may be NULL */
} CubridgeDLManagedTensor;

/* 1.x managed tensor (capsule "dltensor_versioned"). Everything up to `flags` is stable across
 * major versions so that any consumer can at least call the deleter. */
typedef struct CubridgeDLManagedTensorVersioned {
  CubridgeDLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct CubridgeDLManagedTensorVersioned* self);
  uint64_t flags; /* CUBRIDGE_DLPACK_FLAG_* */
  CubridgeDLTensor dl_tensor;
} CubridgeDLManagedTensorVersioned;

/* The DLPack 1.3 C exchange table, published as the capsule "dlpack_exchange_api" in the class
 * attribute `__dlpack_c_exchange_api__`. Every function returns 0 on success and -1 with a Python
 * exception set (or, for the allocator, after calling set_error); none performs stream
 * synchronisation: the consumer asks current_work_stream and works on that stream. */
typedef int (*CubridgeDLManagedTensorAllocator)(
    CubridgeDLTensor* prototype, CubridgeDLManagedTensorVersioned** out, void* error_ctx,
    void (*set_error)(void* error_ctx, const char* kind, const char* message));
/* Owning export of a Python object of the publishing type (the caller must call the deleter). */
typedef int (*CubridgeDLManagedTensorFromPyObjectNoSync)(void* py_object,
                                                         CubridgeDLManagedTensorVersioned** out);
/* Steals `tensor` and returns a new reference to an object of the publishing type. */
typedef int (*CubridgeDLManagedTensorToPyObjectNoSync)(CubridgeDLManagedTensorVersioned* tensor,
                                                       void** out_py_object);
/* Borrowed export: `out` stays valid while `py_object` is alive and unmodified. */
typedef int (*CubridgeDLTensorFromPyObjectNoSync)(void* py_object, CubridgeDLTensor* out);
/* The stream the producer would use now on that device (NULL for CPU). */
typedef int (*CubridgeDLCurrentWorkStream)(int32_t device_type, int32_t device_id,
                                           void** out_current_stream);

typedef struct CubridgeDLPackExchangeAPIHeader {
  CubridgeDLPackVersion version; /* consumers check the major version before using the table */
  struct CubridgeDLPackExchangeAPIHeader* prev_api; /* an older table, or NULL */
} CubridgeDLPackExchangeAPIHeader;

typedef struct CubridgeDLPackExchangeAPI {
  CubridgeDLPackExchangeAPIHeader header;
  CubridgeDLManagedTensorAllocator managed_tensor_allocator;
  CubridgeDLManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
  CubridgeDLManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
  CubridgeDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync; /* may be NULL */
  CubridgeDLCurrentWorkStream current_work_stream;
} CubridgeDLPackExchangeAPI;

#ifdef __cplusplus
}
#endif
#endif /* CUBRIDGE_C_DLPACK_H_ */
