// A signature in the one grammar of type spellings: "float32(float32, float32)", "void(float32[:, ::1],
// const float32*)", "(int64, int64)" or "int64, int64" (argument types only). The compiler, the kernel
// layer (which reads only its parameter list: KernelSignature) and the Python package take it.
// Implements: numba-cuda's signature strings (numba.core.sigutils) plus C pointers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cubridge/types/type.hpp"
#include "cubridge/types/type_spelling.hpp"

namespace cubridge {

/// A function signature: argument types and, when declared, a return type.
struct Signature {
  std::vector<Type> args;
  std::optional<Type> result;  ///< empty: inferred
  /// "float32(float32, float32)"; "(int64)" when the result is inferred.
  std::string str() const;
  /// A hash of the result and argument types (Type::hash), equal for equal signatures.
  std::size_t hash() const noexcept;
  friend bool operator==(const Signature&, const Signature&) = default;
};

/// Parses "int32(int32, int32)", "(float32, float32)" or "float32, float32" (argument types only); a
/// trailing comma is allowed ("(float64,)"). Throws std::invalid_argument, one message for every caller:
/// "signature 'TEXT': unknown argument type 'PART': <type_spelling_error(PART)>" (likewise "return type").
Signature parse_signature(std::string_view text);

}  // namespace cubridge
