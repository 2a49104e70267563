// Classic XLA custom calls from C and C++: the status type and callback signatures (C part, in
// cubridge/c/xla_custom_call.h) plus the registration macro. Implements: XLA "Custom calls" (classic
// API): XlaCustomCallStatusSetSuccess/SetFailure, CUSTOM_CALL_TARGET registration keyed by (name, platform).
#ifndef CUBRIDGE_XLA_CUSTOM_CALL_H_
#define CUBRIDGE_XLA_CUSTOM_CALL_H_

#include "cubridge/c/xla_custom_call.h"

#ifdef __cplusplus
namespace cubridge::xla::detail {

// The API version follows from the function's type, so a user never states it (and cannot misstate it).
constexpr int api_version_of(CubridgeXlaCpuTargetV1) { return 1; }
constexpr int api_version_of(CubridgeXlaCpuTargetV2) { return 2; }
constexpr int api_version_of(CubridgeXlaCpuTargetV3) { return 3; }
constexpr int api_version_of(CubridgeXlaGpuTargetV1) { return 1; }
constexpr int api_version_of(CubridgeXlaGpuTargetV2) { return 2; }
constexpr int platform_family_of(CubridgeXlaCpuTargetV1) { return CUBRIDGE_XLA_PLATFORM_HOST; }
constexpr int platform_family_of(CubridgeXlaCpuTargetV2) { return CUBRIDGE_XLA_PLATFORM_HOST; }
constexpr int platform_family_of(CubridgeXlaCpuTargetV3) { return CUBRIDGE_XLA_PLATFORM_HOST; }
constexpr int platform_family_of(CubridgeXlaGpuTargetV1) { return CUBRIDGE_XLA_PLATFORM_CUDA; }
constexpr int platform_family_of(CubridgeXlaGpuTargetV2) { return CUBRIDGE_XLA_PLATFORM_CUDA; }

constexpr bool same_text(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}
// 0 for a name that is not a platform: the registry rejects it with a message naming it.
constexpr int platform_code(const char* platform) {
  return same_text(platform, "Host") ? CUBRIDGE_XLA_PLATFORM_HOST
         : same_text(platform, "CUDA") ? CUBRIDGE_XLA_PLATFORM_CUDA
                                       : 0;
}
// A signature of the other platform's family is reported as a platform mismatch (-family).
constexpr int checked_platform(const char* platform, int family) {
  return platform_code(platform) == 0 ? 0 : (platform_code(platform) == family ? family : -family);
}

}  // namespace cubridge::xla::detail

// Weak: a target library that does not link cubridge_core still compiles and loads; its descriptors
// are then registered from Python by cubridge.xla.register(library, name, platform).
extern "C" int cubridge_xla_register_target(const CubridgeXlaTargetDescriptor*, char*, size_t)
    __attribute__((weak));

namespace cubridge::xla::detail {
inline int register_at_startup(const CubridgeXlaTargetDescriptor* target) {
  if (&cubridge_xla_register_target == nullptr) return 0;
  // Failures are kept by the registry (cubridge::xla::Registry::rejected()); throwing here would abort.
  return cubridge_xla_register_target(target, nullptr, 0);
}
}  // namespace cubridge::xla::detail

/// Registers `fn` as the target named #fn on `platform` ("Host" or "CUDA") in the process-wide
/// registry, and exports its descriptor as `cubridge_xla_target_<fn>` for cubridge.xla.register().
#define CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET_WITH_FLAGS(fn, platform, flags)                          \
  extern "C" __attribute__((visibility("default"), used))                                             \
  const CubridgeXlaTargetDescriptor cubridge_xla_target_##fn = {                                      \
      CUBRIDGE_XLA_TARGET_DESCRIPTOR_VERSION, (flags), #fn,                                           \
      ::cubridge::xla::detail::checked_platform(platform,                                             \
                                                ::cubridge::xla::detail::platform_family_of(fn)),   \
      ::cubridge::xla::detail::api_version_of(fn), reinterpret_cast<void (*)(void)>(fn)};             \
  [[maybe_unused]] static const int cubridge_xla_registered_##fn =                                    \
      ::cubridge::xla::detail::register_at_startup(&cubridge_xla_target_##fn)

#define CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(fn, platform) \
  CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET_WITH_FLAGS(fn, platform, 0u)
#endif  // __cplusplus

#endif  // CUBRIDGE_XLA_CUSTOM_CALL_H_
