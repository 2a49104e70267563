// Internal: the classic → typed-FFI adapter. Each adapted target owns a slot whose handler function is
// a template instance, because an XLA FFI handler carries no user data and its traits are per handler.
// Built in every build: XLA's C ABI comes from xla_ffi_abi.hpp (our declarations), not from jaxlib.
// The hot path allocates nothing for calls without tuples and with at most 32 buffers.
#include "cubridge/xla/ffi_adapter.hpp"

#include <array>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "cubridge/c/xla_custom_call.h"
#include "cubridge/xla/tuple_layout.hpp"
#include "xla/xla_ffi_abi.hpp"
#include "cubridge/error.hpp"

namespace cubridge::xla {
namespace {

using namespace ffi_abi;

// Written once under g_slots_mutex before its handler is handed out; read-only afterwards.
struct Slot {
  Target target;
  std::string label;  // "custom call 'name' (Host)", for messages
};

std::array<Slot, kMaxAdaptedTargets> g_slots;
std::mutex g_slots_mutex;
std::size_t g_slots_used = 0;

// XLA gives no API table to the metadata call in some versions; there the error cannot be created, and
// XLA reports the handler's unanswered metadata (version 0.0) itself.
Error* make_error(const Api* api, ErrorCode code, const std::string& message) {
  if (api == nullptr || api->struct_size < kApiPrefixSize || api->error_create == nullptr) return nullptr;
  ErrorCreateArgs args;
  args.struct_size = kErrorCreateArgsSize;
  args.extension_start = nullptr;
  args.message = message.c_str();
  args.errc = code;
  return api->error_create(&args);
}

// The status object's message sink; called from C, so it must not throw.
void store_message(XlaCustomCallStatus* status, const char* message, std::size_t length) noexcept {
  auto* sink = static_cast<std::string*>(status->owner_data);
  try {
    if (message == nullptr) {
      sink->clear();
    } else {
      sink->assign(message, strnlen(message, length));
    }
  } catch (...) {
    // Out of memory while copying: the failure is still reported, without its text.
  }
}

// The ABI version to report: ours, or the framework's when it is older (XLA accepts a handler of its own
// version or older; the API table, where XLA passes one, says which version XLA is).
ApiVersion reported_version(const Api* api) {
  ApiVersion v{kApiVersionSize, nullptr, kApiMajor, kApiMinor};
  if (api != nullptr && api->struct_size >= offsetof(Api, api_version) + kApiVersionSize &&
      api->api_version.major_version == kApiMajor && api->api_version.minor_version < kApiMinor &&
      api->api_version.minor_version >= 1)
    v.minor_version = api->api_version.minor_version;
  return v;
}

Error* answer_metadata(const Slot& slot, const Api* api, ExtensionBase* base) {
  auto* ext = reinterpret_cast<MetadataExtension*>(base);
  if (ext->extension_base.struct_size < kMetadataExtensionSize || ext->metadata == nullptr ||
      ext->metadata->struct_size < kMetadataSize) {
    return make_error(api, ErrorCode::invalid_argument,
                      slot.label + ": the metadata extension XLA passed is older than XLA FFI API 0." +
                          std::to_string(kApiMinor) + ", which cubridge reads (upgrade jax and jaxlib)");
  }
  ext->metadata->api_version = reported_version(api);
  bool graphs = slot.target.platform == Platform::cuda && slot.target.command_buffer_compatible;
  ext->metadata->traits = graphs ? kTraitCommandBufferCompatible : 0u;
  return nullptr;
}

bool named(const ByteSpan* name, std::string_view expected) {
  return name != nullptr && std::string_view(name->ptr, name->len) == expected;
}

// Leaf data pointers in pre-order; inline storage for the common small call.
struct Pointers {
  void* inline_[32];
  std::vector<void*> heap;
  void** data = inline_;
  void reserve(std::size_t n) {
    if (n > 32) {
      heap.resize(n);
      data = heap.data();
    }
  }
};

Error* execute(const Slot& slot, CallFrame* frame) {
  const Api* api = frame->api;
  const Target& t = slot.target;

  std::string_view opaque;
  const Array* layout_codes = nullptr;
  for (int64_t i = 0; i < frame->attrs.size; ++i) {
    const ByteSpan* name = frame->attrs.names[i];
    AttrType type = frame->attrs.types[i];
    if (named(name, kOpaqueAttribute)) {
      if (type == AttrType::string) {
        auto* span = static_cast<ByteSpan*>(frame->attrs.attrs[i]);
        opaque = std::string_view(span->ptr, span->len);
      } else if (type == AttrType::array &&
                 (static_cast<Array*>(frame->attrs.attrs[i])->dtype == DataType::u8 ||
                  static_cast<Array*>(frame->attrs.attrs[i])->dtype == DataType::s8)) {
        auto* array = static_cast<Array*>(frame->attrs.attrs[i]);
        opaque = std::string_view(static_cast<const char*>(array->data), array->size);
      } else {
        return make_error(api, ErrorCode::invalid_argument,
                          slot.label + ": attribute '" + kOpaqueAttribute +
                              "' must be a uint8 array or a string (pass opaque= as bytes)");
      }
    } else if (named(name, kLayoutAttribute)) {
      auto* array = static_cast<Array*>(frame->attrs.attrs[i]);
      if (type != AttrType::array || array->dtype != DataType::s32) {
        return make_error(api, ErrorCode::invalid_argument,
                          slot.label + ": attribute '" + kLayoutAttribute + "' must be an int32 array");
      }
      layout_codes = array;
    } else {
      std::string got = name != nullptr ? std::string(name->ptr, name->len) : std::string("?");
      return make_error(api, ErrorCode::invalid_argument,
                        slot.label + ": unexpected attribute '" + got + "': the adapter reads only '" +
                            kOpaqueAttribute + "' and '" + kLayoutAttribute +
                            "' (pass attributes to the target inside opaque=)");
    }
  }
  if (opaque.data() == nullptr) opaque = std::string_view("", 0);

  const std::size_t n_args = static_cast<std::size_t>(frame->args.size);
  const std::size_t n_rets = static_cast<std::size_t>(frame->rets.size);
  Pointers ptrs;
  ptrs.reserve(n_args + n_rets);
  for (std::size_t i = 0; i < n_args; ++i) {
    if (frame->args.types[i] != ArgType::buffer) {
      return make_error(api, ErrorCode::invalid_argument,
                        slot.label + ": operand " + std::to_string(i) + " is not a buffer");
    }
    ptrs.data[i] = static_cast<Buffer*>(frame->args.args[i])->data;
  }
  for (std::size_t i = 0; i < n_rets; ++i) {
    if (frame->rets.types[i] != RetType::buffer) {
      return make_error(api, ErrorCode::invalid_argument,
                        slot.label + ": result " + std::to_string(i) + " is not a buffer");
    }
    ptrs.data[n_args + i] = static_cast<Buffer*>(frame->rets.rets[i])->data;
  }

  std::string message;
  XlaCustomCallStatus status{CUBRIDGE_XLA_STATUS_MAGIC, CUBRIDGE_XLA_STATUS_VERSION, 0u, &store_message,
                             &message};
  const char* op = opaque.data();
  const std::size_t op_len = opaque.size();

  if (t.platform == Platform::cuda) {
    if (layout_codes != nullptr) {
      // The GPU list is flat either way; the layout is only checked against the buffers.
      CallLayout layout = CallLayout::decode(
          {static_cast<const std::int32_t*>(layout_codes->data), layout_codes->size});
      if (layout.operand_leaves() != n_args || layout.result_leaves() != n_rets) {
        return make_error(api, ErrorCode::invalid_argument,
                          slot.label + ": the tuple layout describes " +
                              std::to_string(layout.operand_leaves()) + " operand and " +
                              std::to_string(layout.result_leaves()) + " result buffers, the call has " +
                              std::to_string(n_args) + " and " + std::to_string(n_rets));
      }
    }
    StreamGetArgs stream_args;
    stream_args.struct_size = kStreamGetArgsSize;
    stream_args.extension_start = nullptr;
    stream_args.ctx = frame->ctx;
    stream_args.stream = nullptr;
    if (api == nullptr || api->struct_size < kApiPrefixSize || api->stream_get == nullptr) {
      return make_error(api, ErrorCode::internal,
                        slot.label + ": XLA's FFI API table has no XLA_FFI_Stream_Get; the call's stream is "
                                     "unknown");
    }
    if (Error* err = api->stream_get(&stream_args)) return err;
    auto* stream = static_cast<CUstream_st*>(stream_args.stream);
    if (t.api_version == 1) {
      reinterpret_cast<CubridgeXlaGpuTargetV1>(t.function)(stream, ptrs.data, op, op_len);
    } else {
      reinterpret_cast<CubridgeXlaGpuTargetV2>(t.function)(stream, ptrs.data, op, op_len, &status);
    }
  } else {
    void* out = nullptr;
    const void** in = const_cast<const void**>(ptrs.data);
    CpuPointerTables tables;
    if (layout_codes != nullptr) {
      CallLayout layout = CallLayout::decode(
          {static_cast<const std::int32_t*>(layout_codes->data), layout_codes->size});
      tables.build(layout, {ptrs.data, n_args}, {ptrs.data + n_args, n_rets});
      in = tables.in();
      out = tables.out();
    } else {
      out = n_rets == 1 ? ptrs.data[n_args] : static_cast<void*>(ptrs.data + n_args);
    }
    switch (t.api_version) {
      case 1: reinterpret_cast<CubridgeXlaCpuTargetV1>(t.function)(out, in); break;
      case 2: reinterpret_cast<CubridgeXlaCpuTargetV2>(t.function)(out, in, &status); break;
      default: reinterpret_cast<CubridgeXlaCpuTargetV3>(t.function)(out, in, op, op_len, &status); break;
    }
  }
  if (status.failed != 0u) {
    return make_error(api, ErrorCode::internal,
                      slot.label + " failed: " +
                          (message.empty() ? std::string("(the target gave no message)") : message));
  }
  return nullptr;
}

Error* serve(const Slot& slot, CallFrame* frame) noexcept {
  const Api* api = frame->api;
  try {
    if (frame->struct_size < kCallFrameSize) {
      return make_error(api, ErrorCode::invalid_argument,
                        slot.label + ": the call frame is older than XLA FFI API 0." +
                            std::to_string(kApiMinor) + ", which cubridge reads (upgrade jax and jaxlib)");
    }
    if (frame->extension_start != nullptr && frame->extension_start->type == ExtensionType::metadata) {
      return answer_metadata(slot, api, frame->extension_start);
    }
    // Registered for the execute stage only; XLA does not call other stages, but be explicit.
    if (frame->stage != ExecutionStage::execute) return nullptr;
    return execute(slot, frame);
  } catch (const std::exception& e) {
    return make_error(api, ErrorCode::internal, slot.label + " failed: " + e.what());
  } catch (...) {
    return make_error(api, ErrorCode::internal, slot.label + " failed with an unknown exception");
  }
}

template <std::size_t I>
Error* slot_handler(CallFrame* frame) {
  return serve(g_slots[I], frame);
}

template <std::size_t... I>
constexpr std::array<Handler*, sizeof...(I)> make_handlers(std::index_sequence<I...>) {
  return {&slot_handler<I>...};
}
constexpr auto kHandlers = make_handlers(std::make_index_sequence<kMaxAdaptedTargets>{});

}  // namespace

bool ffi_adapter_available() noexcept { return true; }

const char* ffi_api_version() noexcept {
  static const std::string v = std::to_string(kApiMajor) + "." + std::to_string(kApiMinor);
  return v.c_str();
}

void* ffi_handler_for(const Target& target) {
  std::lock_guard lock(g_slots_mutex);
  for (std::size_t i = 0; i < g_slots_used; ++i) {
    const Target& t = g_slots[i].target;
    if (t.name == target.name && t.platform == target.platform) {
      if (t.function != target.function || t.api_version != target.api_version ||
          t.command_buffer_compatible != target.command_buffer_compatible) {
        throw cubridge::InvalidArgument("xla target '" + target.name + "' is already adapted for " +
                                    platform_name(target.platform) +
                                    " with another function or options: a (name, platform) pair is "
                                    "registered once");
      }
      return reinterpret_cast<void*>(kHandlers[i]);
    }
  }
  if (g_slots_used == kMaxAdaptedTargets) {
    throw cubridge::RuntimeError("all " + std::to_string(kMaxAdaptedTargets) +
                             " XLA FFI adapter slots are in use: cannot adapt target '" + target.name + "'");
  }
  Slot& slot = g_slots[g_slots_used];
  slot.target = target;
  slot.label = "custom call '" + target.name + "' (" + platform_name(target.platform) + ")";
  return reinterpret_cast<void*>(kHandlers[g_slots_used++]);
}

}  // namespace cubridge::xla

