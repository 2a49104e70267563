// Freezes the layout of every struct in include/cubridge/c/*.h (STYLE.md habit 9): the size of each and
// the offset of each field, on LP64 platforms (x86-64, aarch64). Compiling this file is the test; a
// change here is an ABI break and needs a version bump. every_struct_is_pinned.cmake (a CTest) fails when
// a header gains a struct or field that has no line here. The DLPack offsets are those of the DLPack 1.3
// specification, so our declarations stay interchangeable with the real dlpack.h.
#include <gtest/gtest.h>

#include <cstddef>

#include "cubridge/c/array.h"
#include "cubridge/c/dlpack.h"
#include "cubridge/c/memory_plugin.h"
#include "cubridge/c/xla_custom_call.h"

static_assert(sizeof(void*) == 8, "cubridge's C ABI is pinned for 64-bit platforms");

// dlpack.h
static_assert(sizeof(CubridgeDLPackVersion) == 8);
static_assert(offsetof(CubridgeDLPackVersion, major) == 0);
static_assert(offsetof(CubridgeDLPackVersion, minor) == 4);
static_assert(sizeof(CubridgeDLDevice) == 8);
static_assert(offsetof(CubridgeDLDevice, device_type) == 0);
static_assert(offsetof(CubridgeDLDevice, device_id) == 4);
static_assert(sizeof(CubridgeDLDataType) == 4);
static_assert(offsetof(CubridgeDLDataType, code) == 0);
static_assert(offsetof(CubridgeDLDataType, bits) == 1);
static_assert(offsetof(CubridgeDLDataType, lanes) == 2);
static_assert(sizeof(CubridgeDLTensor) == 48);
static_assert(offsetof(CubridgeDLTensor, data) == 0);
static_assert(offsetof(CubridgeDLTensor, device) == 8);
static_assert(offsetof(CubridgeDLTensor, ndim) == 16);
static_assert(offsetof(CubridgeDLTensor, dtype) == 20);
static_assert(offsetof(CubridgeDLTensor, shape) == 24);
static_assert(offsetof(CubridgeDLTensor, strides) == 32);
static_assert(offsetof(CubridgeDLTensor, byte_offset) == 40);
static_assert(sizeof(CubridgeDLManagedTensor) == 64);
static_assert(offsetof(CubridgeDLManagedTensor, dl_tensor) == 0);
static_assert(offsetof(CubridgeDLManagedTensor, manager_ctx) == 48);
static_assert(offsetof(CubridgeDLManagedTensor, deleter) == 56);
static_assert(sizeof(CubridgeDLManagedTensorVersioned) == 80);
static_assert(offsetof(CubridgeDLManagedTensorVersioned, version) == 0);
static_assert(offsetof(CubridgeDLManagedTensorVersioned, manager_ctx) == 8);
static_assert(offsetof(CubridgeDLManagedTensorVersioned, deleter) == 16);
static_assert(offsetof(CubridgeDLManagedTensorVersioned, flags) == 24);
static_assert(offsetof(CubridgeDLManagedTensorVersioned, dl_tensor) == 32);
static_assert(sizeof(CubridgeDLPackExchangeAPIHeader) == 16);
static_assert(offsetof(CubridgeDLPackExchangeAPIHeader, version) == 0);
static_assert(offsetof(CubridgeDLPackExchangeAPIHeader, prev_api) == 8);
static_assert(sizeof(CubridgeDLPackExchangeAPI) == 56);
static_assert(offsetof(CubridgeDLPackExchangeAPI, header) == 0);
static_assert(offsetof(CubridgeDLPackExchangeAPI, managed_tensor_allocator) == 16);
static_assert(offsetof(CubridgeDLPackExchangeAPI, managed_tensor_from_py_object_no_sync) == 24);
static_assert(offsetof(CubridgeDLPackExchangeAPI, managed_tensor_to_py_object_no_sync) == 32);
static_assert(offsetof(CubridgeDLPackExchangeAPI, dltensor_from_py_object_no_sync) == 40);
static_assert(offsetof(CubridgeDLPackExchangeAPI, current_work_stream) == 48);

// array.h
static_assert(CUBRIDGE_ARRAY_VERSION == 1 && CUBRIDGE_ARRAY_MAX_NDIM == 32);
static_assert(sizeof(CubridgeArray) == 104 + 16 * 32);
static_assert(offsetof(CubridgeArray, version) == 0);
static_assert(offsetof(CubridgeArray, flags) == 4);
static_assert(offsetof(CubridgeArray, data) == 8);
static_assert(offsetof(CubridgeArray, ndim) == 16);
static_assert(offsetof(CubridgeArray, device_id) == 20);
static_assert(offsetof(CubridgeArray, typestr) == 24);
static_assert(offsetof(CubridgeArray, itemsize) == 40);
static_assert(offsetof(CubridgeArray, kind) == 44);
static_assert(offsetof(CubridgeArray, byteorder) == 45);
static_assert(offsetof(CubridgeArray, reserved0) == 46);
static_assert(offsetof(CubridgeArray, stream) == 48);
static_assert(offsetof(CubridgeArray, owner) == 56);
static_assert(offsetof(CubridgeArray, mask) == 64);
static_assert(offsetof(CubridgeArray, reserved) == 72);
static_assert(offsetof(CubridgeArray, shape) == 104);
static_assert(offsetof(CubridgeArray, strides) == 104 + 8 * 32);
static_assert(sizeof(CubridgeArrayAPI) == 24);
static_assert(offsetof(CubridgeArrayAPI, version) == 0);
static_assert(offsetof(CubridgeArrayAPI, size) == 4);
static_assert(offsetof(CubridgeArrayAPI, from_pyobject) == 8);
static_assert(offsetof(CubridgeArrayAPI, release) == 16);

// memory_plugin.h
static_assert(CUBRIDGE_MEMORY_PLUGIN_INTERFACE_VERSION == 1);
static_assert(sizeof(cubridge_memory_plugin_v1) == 88);
static_assert(offsetof(cubridge_memory_plugin_v1, struct_size) == 0);
static_assert(offsetof(cubridge_memory_plugin_v1, reserved0) == 4);
static_assert(offsetof(cubridge_memory_plugin_v1, state) == 8);
static_assert(offsetof(cubridge_memory_plugin_v1, initialize) == 16);
static_assert(offsetof(cubridge_memory_plugin_v1, memalloc) == 24);
static_assert(offsetof(cubridge_memory_plugin_v1, memfree) == 32);
static_assert(offsetof(cubridge_memory_plugin_v1, get_memory_info) == 40);
static_assert(offsetof(cubridge_memory_plugin_v1, reset) == 48);
static_assert(offsetof(cubridge_memory_plugin_v1, defer_begin) == 56);
static_assert(offsetof(cubridge_memory_plugin_v1, defer_end) == 64);
static_assert(offsetof(cubridge_memory_plugin_v1, last_error) == 72);
static_assert(offsetof(cubridge_memory_plugin_v1, destroy) == 80);

// xla_custom_call.h
static_assert(CUBRIDGE_XLA_STATUS_VERSION == 1 && CUBRIDGE_XLA_TARGET_DESCRIPTOR_VERSION == 1);
static_assert(CUBRIDGE_XLA_PLATFORM_HOST == 1 && CUBRIDGE_XLA_PLATFORM_CUDA == 2);
static_assert(sizeof(XlaCustomCallStatus_) == 32);
static_assert(offsetof(XlaCustomCallStatus_, magic) == 0);
static_assert(offsetof(XlaCustomCallStatus_, version) == 8);
static_assert(offsetof(XlaCustomCallStatus_, failed) == 12);
static_assert(offsetof(XlaCustomCallStatus_, store_message) == 16);
static_assert(offsetof(XlaCustomCallStatus_, owner_data) == 24);
static_assert(sizeof(CubridgeXlaTargetDescriptor) == 32);
static_assert(offsetof(CubridgeXlaTargetDescriptor, version) == 0);
static_assert(offsetof(CubridgeXlaTargetDescriptor, flags) == 4);
static_assert(offsetof(CubridgeXlaTargetDescriptor, name) == 8);
static_assert(offsetof(CubridgeXlaTargetDescriptor, platform) == 16);
static_assert(offsetof(CubridgeXlaTargetDescriptor, api_version) == 20);
static_assert(offsetof(CubridgeXlaTargetDescriptor, function) == 24);

TEST(CAbiLayout, EveryStructIsPinnedAtCompileTime) { SUCCEED() << "the static_asserts above are the test"; }
