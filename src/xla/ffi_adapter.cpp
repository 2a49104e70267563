// Internal: the classic → typed-FFI adapter. Each adapted target owns a slot whose handler function is
// a template instance, because XLA_FFI_Handler carries no user data and its traits are per handler.
// The hot path allocates nothing for calls without tuples and with at most 32 buffers.
#include "cubridge/xla/ffi_adapter.hpp"

#include <stdexcept>
#include <type_traits>
#include "cubridge/error.hpp"

#ifndef CUBRIDGE_HAVE_XLA_FFI

namespace cubridge::xla {
bool ffi_adapter_available() noexcept { return false; }
const char* ffi_api_version() noexcept { return ""; }
void* ffi_handler_for(const Target&) {
  throw cubridge::RuntimeError(
      "the XLA FFI adapter is not built: jax was not importable by the Python that built cubridge "
      "(install jax, then rebuild cubridge)");
}
}  // namespace cubridge::xla

#else

#include <array>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "cubridge/c/xla_custom_call.h"
#include "cubridge/xla/tuple_layout.hpp"
#include "xla/ffi/api/c_api.h"

namespace cubridge::xla {
namespace {

// Written once under g_slots_mutex before its handler is handed out; read-only afterwards.
struct Slot {
  Target target;
  std::string label;  // "custom call 'name' (Host)", for messages
};

std::array<Slot, kMaxAdaptedTargets> g_slots;
std::mutex g_slots_mutex;
std::size_t g_slots_used = 0;

XLA_FFI_Error* make_error(const XLA_FFI_Api* api, XLA_FFI_Error_Code code, const std::string& message) {
  XLA_FFI_Error_Create_Args args;
  args.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
  args.extension_start = nullptr;
  args.message = message.c_str();
  args.errc = code;
  return api->XLA_FFI_Error_Create(&args);
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

// jaxlib 0.10 names the call frame's extension header XLA_FFI_Extension_Base, 0.11 renames it
// XLA_FFI_InternalExtension with the same layout; take the type from the frame to build with both.
using FrameExtension = std::remove_pointer_t<decltype(XLA_FFI_CallFrame{}.extension_start)>;

XLA_FFI_Error* answer_metadata(const Slot& slot, const XLA_FFI_Api* api, FrameExtension* base) {
  auto* ext = reinterpret_cast<XLA_FFI_Metadata_Extension*>(base);
  if (ext->extension_base.struct_size < XLA_FFI_Metadata_Extension_STRUCT_SIZE || ext->metadata == nullptr ||
      ext->metadata->struct_size < XLA_FFI_Metadata_STRUCT_SIZE) {
    return make_error(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                      slot.label + ": the metadata extension XLA passed is older than the headers "
                                   "cubridge was built with; rebuild cubridge against this jaxlib");
  }
  ext->metadata->api_version = XLA_FFI_Api_Version{XLA_FFI_Api_Version_STRUCT_SIZE, nullptr,
                                                   XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR};
  bool graphs = slot.target.platform == Platform::cuda && slot.target.command_buffer_compatible;
  ext->metadata->traits =
      graphs ? static_cast<XLA_FFI_Handler_Traits>(XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE) : 0u;
  return nullptr;
}

bool named(const XLA_FFI_ByteSpan* name, std::string_view expected) {
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

XLA_FFI_Error* execute(const Slot& slot, XLA_FFI_CallFrame* frame) {
  const XLA_FFI_Api* api = frame->api;
  const Target& t = slot.target;

  std::string_view opaque;
  const XLA_FFI_Array* layout_codes = nullptr;
  for (int64_t i = 0; i < frame->attrs.size; ++i) {
    const XLA_FFI_ByteSpan* name = frame->attrs.names[i];
    XLA_FFI_AttrType type = frame->attrs.types[i];
    if (named(name, kOpaqueAttribute)) {
      if (type == XLA_FFI_AttrType_STRING) {
        auto* span = static_cast<XLA_FFI_ByteSpan*>(frame->attrs.attrs[i]);
        opaque = std::string_view(span->ptr, span->len);
      } else if (type == XLA_FFI_AttrType_ARRAY &&
                 (static_cast<XLA_FFI_Array*>(frame->attrs.attrs[i])->dtype == XLA_FFI_DataType_U8 ||
                  static_cast<XLA_FFI_Array*>(frame->attrs.attrs[i])->dtype == XLA_FFI_DataType_S8)) {
        auto* array = static_cast<XLA_FFI_Array*>(frame->attrs.attrs[i]);
        opaque = std::string_view(static_cast<const char*>(array->data), array->size);
      } else {
        return make_error(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                          slot.label + ": attribute '" + kOpaqueAttribute +
                              "' must be a uint8 array or a string (pass opaque= as bytes)");
      }
    } else if (named(name, kLayoutAttribute)) {
      auto* array = static_cast<XLA_FFI_Array*>(frame->attrs.attrs[i]);
      if (type != XLA_FFI_AttrType_ARRAY || array->dtype != XLA_FFI_DataType_S32) {
        return make_error(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                          slot.label + ": attribute '" + kLayoutAttribute + "' must be an int32 array");
      }
      layout_codes = array;
    } else {
      std::string got = name != nullptr ? std::string(name->ptr, name->len) : std::string("?");
      return make_error(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
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
    if (frame->args.types[i] != XLA_FFI_ArgType_BUFFER) {
      return make_error(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                        slot.label + ": operand " + std::to_string(i) + " is not a buffer");
    }
    ptrs.data[i] = static_cast<XLA_FFI_Buffer*>(frame->args.args[i])->data;
  }
  for (std::size_t i = 0; i < n_rets; ++i) {
    if (frame->rets.types[i] != XLA_FFI_RetType_BUFFER) {
      return make_error(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                        slot.label + ": result " + std::to_string(i) + " is not a buffer");
    }
    ptrs.data[n_args + i] = static_cast<XLA_FFI_Buffer*>(frame->rets.rets[i])->data;
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
        return make_error(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                          slot.label + ": the tuple layout describes " +
                              std::to_string(layout.operand_leaves()) + " operand and " +
                              std::to_string(layout.result_leaves()) + " result buffers, the call has " +
                              std::to_string(n_args) + " and " + std::to_string(n_rets));
      }
    }
    XLA_FFI_Stream_Get_Args stream_args;
    stream_args.struct_size = XLA_FFI_Stream_Get_Args_STRUCT_SIZE;
    stream_args.extension_start = nullptr;
    stream_args.ctx = frame->ctx;
    stream_args.stream = nullptr;
    if (XLA_FFI_Error* err = api->XLA_FFI_Stream_Get(&stream_args)) return err;
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
    return make_error(api, XLA_FFI_Error_Code_INTERNAL,
                      slot.label + " failed: " +
                          (message.empty() ? std::string("(the target gave no message)") : message));
  }
  return nullptr;
}

XLA_FFI_Error* serve(const Slot& slot, XLA_FFI_CallFrame* frame) noexcept {
  const XLA_FFI_Api* api = frame->api;
  try {
    if (frame->struct_size < XLA_FFI_CallFrame_STRUCT_SIZE) {
      return make_error(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                        slot.label + ": the call frame is older than the XLA FFI headers cubridge was "
                                     "built with; rebuild cubridge against this jaxlib");
    }
    if (frame->extension_start != nullptr && frame->extension_start->type == XLA_FFI_Extension_Metadata) {
      return answer_metadata(slot, api, frame->extension_start);
    }
    // Registered for the execute stage only; XLA does not call other stages, but be explicit.
    if (frame->stage != XLA_FFI_ExecutionStage_EXECUTE) return nullptr;
    return execute(slot, frame);
  } catch (const std::exception& e) {
    return make_error(api, XLA_FFI_Error_Code_INTERNAL, slot.label + " failed: " + e.what());
  } catch (...) {
    return make_error(api, XLA_FFI_Error_Code_INTERNAL, slot.label + " failed with an unknown exception");
  }
}

template <std::size_t I>
XLA_FFI_Error* slot_handler(XLA_FFI_CallFrame* frame) {
  return serve(g_slots[I], frame);
}

template <std::size_t... I>
constexpr std::array<XLA_FFI_Handler*, sizeof...(I)> make_handlers(std::index_sequence<I...>) {
  return {&slot_handler<I>...};
}
constexpr auto kHandlers = make_handlers(std::make_index_sequence<kMaxAdaptedTargets>{});

}  // namespace

bool ffi_adapter_available() noexcept { return true; }

const char* ffi_api_version() noexcept {
#define CUBRIDGE_STR2(x) #x
#define CUBRIDGE_STR(x) CUBRIDGE_STR2(x)
  return CUBRIDGE_STR(XLA_FFI_API_MAJOR) "." CUBRIDGE_STR(XLA_FFI_API_MINOR);
#undef CUBRIDGE_STR
#undef CUBRIDGE_STR2
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

#endif  // CUBRIDGE_HAVE_XLA_FFI
