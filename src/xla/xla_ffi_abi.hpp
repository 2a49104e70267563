// Internal: the part of XLA's typed-FFI C ABI that the classic → typed-FFI adapter uses, declared here so
// that every build has the adapter, with no jaxlib (or other XLA headers) at build time.
// Implements: XLA FFI C API, version 0.3 (xla/ffi/api/c_api.h, a versioned C struct ABI): call frame,
// buffers, attributes, the metadata extension, and the API table's prefix up to XLA_FFI_Stream_Get.
//
// Every struct here has the layout of its C counterpart (same members, order and types); the names are
// ours. Structs that XLA grows carry `struct_size`, so a reader checks that size before touching a member
// (XLA only appends). tests/cpp/xla/test_ffi_abi_layout.cpp pins every offset against XLA's own header
// wherever jaxlib is installed at build time.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cubridge::xla::ffi_abi {

/// The ABI version these declarations describe; the adapter reports it (or the framework's own, when
/// older) in the metadata call, and XLA accepts handlers of its version or older.
inline constexpr int kApiMajor = 0;
inline constexpr int kApiMinor = 3;

// C enums are int-sized on every ABI XLA supports.
enum class ExtensionType : std::int32_t { metadata = 1 };
enum class ErrorCode : std::int32_t { ok = 0, invalid_argument = 3, internal = 13 };
enum class DataType : std::int32_t { s8 = 2, s32 = 4, u8 = 6, f32 = 11 };  // the ones the adapter reads
enum class ArgType : std::int32_t { buffer = 1 };
enum class RetType : std::int32_t { buffer = 1 };
enum class AttrType : std::int32_t { array = 1, dictionary = 2, scalar = 3, string = 4 };
enum class ExecutionStage : std::int32_t { instantiate = 0, prepare = 1, initialize = 2, execute = 3 };
inline constexpr std::uint32_t kTraitCommandBufferCompatible = 1u;

struct Error;             // XLA's; handlers only pass it on
struct ExecutionContext;  // XLA's
struct Future;            // XLA's
struct Api;

struct ExtensionBase {
  std::size_t struct_size;
  ExtensionType type;
  ExtensionBase* next;
};

struct ApiVersion {
  std::size_t struct_size;
  ExtensionBase* extension_start;
  int major_version;
  int minor_version;
};

struct ErrorCreateArgs {
  std::size_t struct_size;
  ExtensionBase* extension_start;
  const char* message;
  ErrorCode errc;
};
using ErrorCreate = Error*(ErrorCreateArgs*);

struct StreamGetArgs {
  std::size_t struct_size;
  ExtensionBase* extension_start;
  ExecutionContext* ctx;
  void* stream;  // out: the CUstream of the call
};
using StreamGet = Error*(StreamGetArgs*);

/// The function table XLA passes with every call. Only the prefix the adapter reads is declared: the
/// table goes on (types, state, memory, thread pool, futures, ...), so it is never copied or sized here.
struct Api {
  std::size_t struct_size;
  ExtensionBase* extension_start;
  ApiVersion api_version;
  const void* internal_api;
  ErrorCreate* error_create;
  void* error_get_message;
  void* error_destroy;
  void* handler_register;
  StreamGet* stream_get;
};

struct Buffer {
  std::size_t struct_size;
  ExtensionBase* extension_start;
  DataType dtype;
  void* data;
  std::int64_t rank;
  std::int64_t* dims;
};

struct ByteSpan {
  const char* ptr;
  std::size_t len;
};

struct Array {
  DataType dtype;
  std::size_t size;
  void* data;
};

struct Args {
  std::size_t struct_size;
  ExtensionBase* extension_start;
  std::int64_t size;
  ArgType* types;
  void** args;
};

struct Rets {
  std::size_t struct_size;
  ExtensionBase* extension_start;
  std::int64_t size;
  RetType* types;
  void** rets;
};

struct Attrs {
  std::size_t struct_size;
  ExtensionBase* extension_start;
  std::int64_t size;
  AttrType* types;
  ByteSpan** names;
  void** attrs;
};

struct CallFrame {
  std::size_t struct_size;
  ExtensionBase* extension_start;
  const Api* api;
  ExecutionContext* ctx;
  ExecutionStage stage;
  Args args;
  Rets rets;
  Attrs attrs;
  Future* future;  // out, for asynchronous handlers (the adapter is synchronous and leaves it alone)
};
using Handler = Error*(CallFrame*);

struct Metadata {
  std::size_t struct_size;
  ApiVersion api_version;  // out: the ABI version the handler was written for
  std::uint32_t traits;    // out
  std::int64_t state_type_id;
};

struct MetadataExtension {
  ExtensionBase extension_base;
  Metadata* metadata;
};

// A struct's size as XLA counts it: through its last member of the version that introduced it.
#define CUBRIDGE_FFI_SIZE_THROUGH(type, member) (offsetof(type, member) + sizeof(type::member))
inline constexpr std::size_t kApiVersionSize = CUBRIDGE_FFI_SIZE_THROUGH(ApiVersion, minor_version);
inline constexpr std::size_t kErrorCreateArgsSize = CUBRIDGE_FFI_SIZE_THROUGH(ErrorCreateArgs, errc);
inline constexpr std::size_t kStreamGetArgsSize = CUBRIDGE_FFI_SIZE_THROUGH(StreamGetArgs, stream);
inline constexpr std::size_t kApiPrefixSize = CUBRIDGE_FFI_SIZE_THROUGH(Api, stream_get);
inline constexpr std::size_t kBufferSize = CUBRIDGE_FFI_SIZE_THROUGH(Buffer, dims);
inline constexpr std::size_t kArgsSize = CUBRIDGE_FFI_SIZE_THROUGH(Args, args);
inline constexpr std::size_t kRetsSize = CUBRIDGE_FFI_SIZE_THROUGH(Rets, rets);
inline constexpr std::size_t kAttrsSize = CUBRIDGE_FFI_SIZE_THROUGH(Attrs, attrs);
inline constexpr std::size_t kCallFrameSize = CUBRIDGE_FFI_SIZE_THROUGH(CallFrame, attrs);
inline constexpr std::size_t kMetadataSize = CUBRIDGE_FFI_SIZE_THROUGH(Metadata, traits);
inline constexpr std::size_t kMetadataExtensionSize = CUBRIDGE_FFI_SIZE_THROUGH(MetadataExtension, metadata);
#undef CUBRIDGE_FFI_SIZE_THROUGH

}  // namespace cubridge::xla::ffi_abi
