// cubridge's declarations of XLA's FFI C ABI (src/xla/xla_ffi_abi.hpp) against XLA's own header, where the
// build's Python has jaxlib (CMake gives this file alone XLA's include directory). The static_asserts
// are the test: this file compiles only while every offset, size and enum value matches.
#include <gtest/gtest.h>

#ifdef CUBRIDGE_HAVE_XLA_FFI
#include <cstddef>
#include <iterator>
#include <utility>

#include "cubridge/types/scalar_type.hpp"
#include "xla/ffi/api/c_api.h"
#include "xla/xla_ffi_abi.hpp"

namespace ours = cubridge::xla::ffi_abi;

#define CUBRIDGE_SAME_MEMBER(type, member, theirs, their_member)                                       \
  static_assert(offsetof(ours::type, member) == offsetof(theirs, their_member), #type "::" #member); \
  static_assert(sizeof(ours::type::member) == sizeof(theirs::their_member), #type "::" #member)

// API 0.4 (jaxlib 0.11) renamed the extension header (XLA_FFI_Extension_Base -> XLA_FFI_InternalExtension)
// and the error-message entry (XLA_FFI_Error_GetMessage -> XLA_FFI_Error_GetDetails) without moving a byte:
// the same offsets are compared under either spelling.
#if XLA_FFI_API_MINOR >= 4
using TheirExtensionBase = XLA_FFI_InternalExtension;
using TheirExtensionType = XLA_FFI_InternalExtension_Type;
#define CUBRIDGE_THEIR_ERROR_GET XLA_FFI_Error_GetDetails
#else
using TheirExtensionBase = XLA_FFI_Extension_Base;
using TheirExtensionType = XLA_FFI_Extension_Type;
#define CUBRIDGE_THEIR_ERROR_GET XLA_FFI_Error_GetMessage
#endif

static_assert(XLA_FFI_API_MAJOR == ours::kApiMajor, "declared against another major version");
static_assert(XLA_FFI_API_MINOR >= ours::kApiMinor, "this jaxlib's FFI API is older than our declarations");

CUBRIDGE_SAME_MEMBER(ExtensionBase, struct_size, TheirExtensionBase, struct_size);
CUBRIDGE_SAME_MEMBER(ExtensionBase, type, TheirExtensionBase, type);
CUBRIDGE_SAME_MEMBER(ExtensionBase, next, TheirExtensionBase, next);
CUBRIDGE_SAME_MEMBER(ApiVersion, major_version, XLA_FFI_Api_Version, major_version);
CUBRIDGE_SAME_MEMBER(ApiVersion, minor_version, XLA_FFI_Api_Version, minor_version);
static_assert(ours::kApiVersionSize == XLA_FFI_Api_Version_STRUCT_SIZE);
CUBRIDGE_SAME_MEMBER(ErrorCreateArgs, message, XLA_FFI_Error_Create_Args, message);
CUBRIDGE_SAME_MEMBER(ErrorCreateArgs, errc, XLA_FFI_Error_Create_Args, errc);
static_assert(ours::kErrorCreateArgsSize == XLA_FFI_Error_Create_Args_STRUCT_SIZE);
CUBRIDGE_SAME_MEMBER(StreamGetArgs, ctx, XLA_FFI_Stream_Get_Args, ctx);
CUBRIDGE_SAME_MEMBER(StreamGetArgs, stream, XLA_FFI_Stream_Get_Args, stream);
static_assert(ours::kStreamGetArgsSize == XLA_FFI_Stream_Get_Args_STRUCT_SIZE);
CUBRIDGE_SAME_MEMBER(Api, struct_size, XLA_FFI_Api, struct_size);
CUBRIDGE_SAME_MEMBER(Api, api_version, XLA_FFI_Api, api_version);
CUBRIDGE_SAME_MEMBER(Api, internal_api, XLA_FFI_Api, internal_api);
CUBRIDGE_SAME_MEMBER(Api, error_create, XLA_FFI_Api, XLA_FFI_Error_Create);
CUBRIDGE_SAME_MEMBER(Api, error_get_message, XLA_FFI_Api, CUBRIDGE_THEIR_ERROR_GET);
CUBRIDGE_SAME_MEMBER(Api, error_destroy, XLA_FFI_Api, XLA_FFI_Error_Destroy);
CUBRIDGE_SAME_MEMBER(Api, handler_register, XLA_FFI_Api, XLA_FFI_Handler_Register);
CUBRIDGE_SAME_MEMBER(Api, stream_get, XLA_FFI_Api, XLA_FFI_Stream_Get);
CUBRIDGE_SAME_MEMBER(Buffer, dtype, XLA_FFI_Buffer, dtype);
CUBRIDGE_SAME_MEMBER(Buffer, data, XLA_FFI_Buffer, data);
CUBRIDGE_SAME_MEMBER(Buffer, rank, XLA_FFI_Buffer, rank);
CUBRIDGE_SAME_MEMBER(Buffer, dims, XLA_FFI_Buffer, dims);
static_assert(ours::kBufferSize == XLA_FFI_Buffer_STRUCT_SIZE);
CUBRIDGE_SAME_MEMBER(ByteSpan, ptr, XLA_FFI_ByteSpan, ptr);
CUBRIDGE_SAME_MEMBER(ByteSpan, len, XLA_FFI_ByteSpan, len);
CUBRIDGE_SAME_MEMBER(Array, dtype, XLA_FFI_Array, dtype);
CUBRIDGE_SAME_MEMBER(Array, size, XLA_FFI_Array, size);
CUBRIDGE_SAME_MEMBER(Array, data, XLA_FFI_Array, data);
CUBRIDGE_SAME_MEMBER(Args, size, XLA_FFI_Args, size);
CUBRIDGE_SAME_MEMBER(Args, types, XLA_FFI_Args, types);
CUBRIDGE_SAME_MEMBER(Args, args, XLA_FFI_Args, args);
static_assert(ours::kArgsSize == XLA_FFI_Args_STRUCT_SIZE);
CUBRIDGE_SAME_MEMBER(Rets, size, XLA_FFI_Rets, size);
CUBRIDGE_SAME_MEMBER(Rets, types, XLA_FFI_Rets, types);
CUBRIDGE_SAME_MEMBER(Rets, rets, XLA_FFI_Rets, rets);
static_assert(ours::kRetsSize == XLA_FFI_Rets_STRUCT_SIZE);
CUBRIDGE_SAME_MEMBER(Attrs, size, XLA_FFI_Attrs, size);
CUBRIDGE_SAME_MEMBER(Attrs, types, XLA_FFI_Attrs, types);
CUBRIDGE_SAME_MEMBER(Attrs, names, XLA_FFI_Attrs, names);
CUBRIDGE_SAME_MEMBER(Attrs, attrs, XLA_FFI_Attrs, attrs);
static_assert(ours::kAttrsSize == XLA_FFI_Attrs_STRUCT_SIZE);
CUBRIDGE_SAME_MEMBER(CallFrame, extension_start, XLA_FFI_CallFrame, extension_start);
CUBRIDGE_SAME_MEMBER(CallFrame, api, XLA_FFI_CallFrame, api);
CUBRIDGE_SAME_MEMBER(CallFrame, ctx, XLA_FFI_CallFrame, ctx);
CUBRIDGE_SAME_MEMBER(CallFrame, stage, XLA_FFI_CallFrame, stage);
CUBRIDGE_SAME_MEMBER(CallFrame, args, XLA_FFI_CallFrame, args);
CUBRIDGE_SAME_MEMBER(CallFrame, rets, XLA_FFI_CallFrame, rets);
CUBRIDGE_SAME_MEMBER(CallFrame, attrs, XLA_FFI_CallFrame, attrs);
CUBRIDGE_SAME_MEMBER(CallFrame, future, XLA_FFI_CallFrame, future);
static_assert(ours::kCallFrameSize == XLA_FFI_CallFrame_STRUCT_SIZE);
CUBRIDGE_SAME_MEMBER(Metadata, api_version, XLA_FFI_Metadata, api_version);
CUBRIDGE_SAME_MEMBER(Metadata, traits, XLA_FFI_Metadata, traits);
CUBRIDGE_SAME_MEMBER(Metadata, state_type_id, XLA_FFI_Metadata, state_type_id);
static_assert(ours::kMetadataSize == XLA_FFI_Metadata_STRUCT_SIZE);
CUBRIDGE_SAME_MEMBER(MetadataExtension, extension_base, XLA_FFI_Metadata_Extension, extension_base);
CUBRIDGE_SAME_MEMBER(MetadataExtension, metadata, XLA_FFI_Metadata_Extension, metadata);
static_assert(ours::kMetadataExtensionSize == XLA_FFI_Metadata_Extension_STRUCT_SIZE);
#undef CUBRIDGE_SAME_MEMBER

static_assert(static_cast<int>(ours::ExtensionType::metadata) == XLA_FFI_Extension_Metadata);
static_assert(static_cast<int>(ours::ErrorCode::invalid_argument) == XLA_FFI_Error_Code_INVALID_ARGUMENT);
static_assert(static_cast<int>(ours::ErrorCode::internal) == XLA_FFI_Error_Code_INTERNAL);
static_assert(static_cast<int>(ours::DataType::s8) == XLA_FFI_DataType_S8);
static_assert(static_cast<int>(ours::DataType::s32) == XLA_FFI_DataType_S32);
static_assert(static_cast<int>(ours::DataType::u8) == XLA_FFI_DataType_U8);
static_assert(static_cast<int>(ours::DataType::f32) == XLA_FFI_DataType_F32);
static_assert(static_cast<int>(ours::ArgType::buffer) == XLA_FFI_ArgType_BUFFER);
static_assert(static_cast<int>(ours::RetType::buffer) == XLA_FFI_RetType_BUFFER);
static_assert(static_cast<int>(ours::AttrType::array) == XLA_FFI_AttrType_ARRAY);
static_assert(static_cast<int>(ours::AttrType::string) == XLA_FFI_AttrType_STRING);
static_assert(static_cast<int>(ours::ExecutionStage::execute) == XLA_FFI_ExecutionStage_EXECUTE);
static_assert(ours::kTraitCommandBufferCompatible == XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
static_assert(sizeof(ours::ExtensionType) == sizeof(TheirExtensionType));
static_assert(sizeof(ours::DataType) == sizeof(XLA_FFI_DataType));

TEST(FfiAbiLayout, ScalarTableXlaPrimitivesAreXlaFfiDataTypes) {
  using cubridge::ScalarType;
  const std::pair<ScalarType, XLA_FFI_DataType> xla[] = {
      {ScalarType::Bool, XLA_FFI_DataType_PRED},     {ScalarType::Int8, XLA_FFI_DataType_S8},
      {ScalarType::Int16, XLA_FFI_DataType_S16},     {ScalarType::Int32, XLA_FFI_DataType_S32},
      {ScalarType::Int64, XLA_FFI_DataType_S64},     {ScalarType::UInt8, XLA_FFI_DataType_U8},
      {ScalarType::UInt16, XLA_FFI_DataType_U16},    {ScalarType::UInt32, XLA_FFI_DataType_U32},
      {ScalarType::UInt64, XLA_FFI_DataType_U64},    {ScalarType::Float16, XLA_FFI_DataType_F16},
      {ScalarType::BFloat16, XLA_FFI_DataType_BF16}, {ScalarType::Float32, XLA_FFI_DataType_F32},
      {ScalarType::Float64, XLA_FFI_DataType_F64},   {ScalarType::Complex64, XLA_FFI_DataType_C64},
      {ScalarType::Complex128, XLA_FFI_DataType_C128}};
  ASSERT_EQ(std::size(xla), cubridge::kScalarTypes.size());
  for (auto [type, primitive] : xla)
    EXPECT_EQ(cubridge::scalar_type_info(type).xla_primitive, static_cast<int>(primitive))
        << cubridge::scalar_type_info(type).name;
}
#else
TEST(FfiAbiLayout, NeedsXlaHeadersAtBuildTime) {
  GTEST_SKIP() << "jaxlib was not importable by the build's Python: our XLA FFI declarations were not "
                  "compared with XLA's header in this build";
}
#endif
