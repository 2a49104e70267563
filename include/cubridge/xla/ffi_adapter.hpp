// The adapter that serves every classic custom-call target through XLA's typed FFI: one
// `XLA_FFI_Error* (XLA_FFI_CallFrame*)` handler per target, registered with api_version=1.
// Implements: XLA FFI C API (xla/ffi/api/c_api.h): the metadata call (API version, command-buffer
// trait), XLA_FFI_Stream_Get, XLA_FFI_Error_Create; and the classic convention it rebuilds.
#pragma once

#include <cstddef>

#include "cubridge/xla/registry.hpp"

namespace cubridge::xla {

/// How many distinct targets one process can adapt (each needs its own handler function, because a
/// handler receives no user data and its traits are per handler).
inline constexpr std::size_t kMaxAdaptedTargets = 256;
/// The typed attributes the adapter reads: the opaque bytes (a u8 array, or a string) and the tuple
/// layout (an i32 array, see CallLayout::encode); both optional, any other attribute is an error.
inline constexpr const char* kOpaqueAttribute = "cubridge_opaque";
inline constexpr const char* kLayoutAttribute = "cubridge_layout";

/// True: every build has the adapter (XLA's FFI C ABI is declared by cubridge, no jaxlib at build time).
/// Kept so that callers written when the adapter was optional still compile.
bool ffi_adapter_available() noexcept;
/// The major.minor of the XLA FFI C API the adapter is written against ("0.3"); the adapter reports the
/// framework's own version instead where that is older.
const char* ffi_api_version() noexcept;

/// The typed-FFI handler serving `target` (an XLA_FFI_Handler*, returned as void* so this header needs
/// no XLA header). The same (name, platform) always gets the same handler. On the GPU the handler is
/// marked command-buffer compatible unless target.command_buffer_compatible is false. Throws
/// std::runtime_error when all kMaxAdaptedTargets handlers are in use.
void* ffi_handler_for(const Target& target);

}  // namespace cubridge::xla
