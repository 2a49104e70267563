// Internal: which LTO-IR inputs the linker trusts to run through nvJitLink in this process. nvJitLink
// crashes the process on some corrupt LTO-IR whose header looks valid (issue 25, class 7), and the
// container past its magic is undocumented (the IR inside is not plain LLVM bitcode), so it cannot be
// validated here. Trusted is LTO-IR that cubridge produced in this process (libNVVM's or NVRTC's output
// as returned to the caller, or a code-cache entry whose MAC checked): its SHA-256 is recorded, and an
// input with a recorded digest links in-process. Every other LTO-IR input is linked in a child process
// (isolated_link.hpp). docs/linking.md says the same for users.
#pragma once

#include <cstddef>
#include <string_view>

namespace cubridge::toolkit_detail {

/// Records `ltoir` as produced by cubridge in this process. The most recent kMaxTrusted digests are kept
/// (older ones are forgotten: such an input links isolated, which is slower, never wrong).
void trust_ltoir(std::string_view ltoir);
/// Whether `ltoir` was recorded by trust_ltoir.
bool is_trusted_ltoir(std::string_view ltoir);

inline constexpr std::size_t kMaxTrusted = 65536;

/// The smallest LTO-IR container nvJitLink is given: the fixed header libNVVM and NVRTC write (magic,
/// versions, offsets) is 40 bytes. Shorter inputs, or ones without the magic, are refused before linking.
inline constexpr std::size_t kLtoirHeaderBytes = 40;
/// True when `ltoir` starts with the LTO-IR magic (0x7F4E43ED, little-endian) and holds a whole header.
bool looks_like_ltoir(std::string_view ltoir);

}  // namespace cubridge::toolkit_detail
