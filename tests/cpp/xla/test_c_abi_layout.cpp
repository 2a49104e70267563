// Freezes the layouts of the structs in include/cubridge/c/xla_custom_call.h (x86-64 / aarch64 LP64):
// compiling this file is the test. A change here is an ABI break and needs a version bump.
#include <gtest/gtest.h>

#include <cstddef>

#include "cubridge/c/xla_custom_call.h"

static_assert(offsetof(XlaCustomCallStatus_, magic) == 0);
static_assert(offsetof(XlaCustomCallStatus_, version) == 8);
static_assert(offsetof(XlaCustomCallStatus_, failed) == 12);
static_assert(offsetof(XlaCustomCallStatus_, store_message) == 16);
static_assert(offsetof(XlaCustomCallStatus_, owner_data) == 24);
static_assert(sizeof(XlaCustomCallStatus_) == 32);

static_assert(offsetof(CubridgeXlaTargetDescriptor, version) == 0);
static_assert(offsetof(CubridgeXlaTargetDescriptor, flags) == 4);
static_assert(offsetof(CubridgeXlaTargetDescriptor, name) == 8);
static_assert(offsetof(CubridgeXlaTargetDescriptor, platform) == 16);
static_assert(offsetof(CubridgeXlaTargetDescriptor, api_version) == 20);
static_assert(offsetof(CubridgeXlaTargetDescriptor, function) == 24);
static_assert(sizeof(CubridgeXlaTargetDescriptor) == 32);

TEST(XlaCAbi, LayoutsAreFrozen) { SUCCEED() << "checked at compile time"; }
