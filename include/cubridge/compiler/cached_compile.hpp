// Compiling through the persistent on-disk code cache (code_cache.hpp), so that a kernel compiled once
// is not compiled again by a later process: `@cubridge.jit` uses it for every specialisation.
// Implements: the code face's "persistent on-disk cache (keyed by source, signature, options and toolkit
// version)" for the Python-function compiler.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cubridge/compiler/code_cache.hpp"
#include "cubridge/compiler/compile.hpp"

namespace cubridge::compiler {

/// The cache key of compile(source, function_name, signature, options): every input that changes the
/// output (the source and every extra unit with its file and first line, the constants, each option,
/// the target compute capability), the build of cubridge itself (its library file's path, size and
/// modification time, so a rebuilt compiler never reads its predecessor's code) and libNVVM's version.
std::string compile_cache_key(std::string_view source, std::string_view function_name, std::string_view signature,
                              const CompileOptions& options);

/// compile() through `cache`: a hit returns the stored code, symbol and result type without parsing or
/// compiling (nvvm_ir empty, timings zero, from_cache true); a miss compiles and stores the result.
/// Errors are not cached: a source that does not compile throws again each time.
CompileResult compile_cached(std::string_view source, std::string_view function_name, std::string_view signature,
                             const CompileOptions& options, const CodeCache& cache);

/// A compile result as the cache stores it (symbol, result type, kernel facts, code), and back: nullopt when
/// `bytes` is not such a record. `output` is what the code is (LTO-IR read back is trusted by the linker:
/// call decode only on bytes whose MAC was checked).
std::string encode_compile_result(const CompileResult& result);
std::optional<CompileResult> decode_compile_result(std::string_view bytes, Output output);

/// What compile_cached did in this process so far.
struct CompileCacheStats {
  std::uint64_t hits = 0;    ///< results read from the cache
  std::uint64_t misses = 0;  ///< compilations (the cache had no usable entry)
  std::uint64_t stores = 0;  ///< results written to the cache
};
CompileCacheStats compile_cache_stats();

}  // namespace cubridge::compiler
