// Internal (tests): whether this build runs under AddressSanitizer (scripts/test's ASan + UBSan phase), for the
// few tests whose subject a sanitizer's own runtime changes.
#pragma once

namespace cubridge::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

}  // namespace cubridge::testing
