// Internal: Numba's scalar typing rules (numba-cuda's typing context), as the typer needs them:
// conversion kinds, unification (NumPy promote_types), and overload resolution of operators, builtins
// and math functions by scoring candidate signatures. Facts from /work/shared/reference (numba-scalar-typing).
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "cubridge/types/type.hpp"
#include "compiler/frontend/operators.hpp"

namespace cubridge::compiler {

enum class Conversion { Exact, Promote, Safe, Unsafe, None };
/// How `from` converts to `to` (scalars only; tuples convert element-wise, others None).
Conversion can_convert(const Type& from, const Type& to);

/// Numba's unify_pairs for numbers (NumPy promote_types), arrays of one dtype and rank (layout 'A' when
/// the layouts differ, read-only when either is) and tuples of equal length; nullopt when the two cannot
/// unify.
std::optional<Type> unify(const Type& a, const Type& b);

/// A resolved call: the formal argument types (operands are converted to these) and the result.
struct Resolved {
  Type lhs, rhs, result;
};

/// One candidate of an overloaded operation.
struct Case {
  Type lhs, rhs, result;
};
/// The best case for (a, b) by Numba's score (fewest unsafe, then safe, then promote conversions;
/// the first listed wins ties), or nullopt when none accepts both.
std::optional<Resolved> resolve_cases(std::span<const Case> cases, const Type& a, const Type& b);

std::optional<Resolved> resolve_binop(BinOp op, const Type& a, const Type& b);
/// The common operand type of a comparison (`equality` for == and !=, which also accept complex, and two
/// members of one Enum class: their values' type).
std::optional<Type> resolve_compare(bool equality, const Type& a, const Type& b);

std::optional<Type> resolve_unary(UnaryOp op, const Type& a);

/// Whether numba-cuda converts `from` to `to` where one of them is a bfloat16 (cuda_bf16's constructors
/// from float16/32/64 and the integers; its conversion operators to float32, float64, bool and the integers).
bool bf16_convertible(const Type& from, const Type& to);

/// Builtins with one argument: "abs", "int", "float", "bool", "complex", "round".
std::optional<Type> resolve_builtin1(std::string_view name, const Type& a);

/// math.<name>: one-argument functions. nullopt for an unsupported type.
std::optional<Type> resolve_math1(std::string_view name, const Type& a);
/// math.<name> with two arguments (atan2, hypot, copysign, fmod, pow, ldexp): the formal types.
std::optional<Resolved> resolve_math2(std::string_view name, const Type& a, const Type& b);

/// round(x, ndigits) result type.
std::optional<Type> resolve_round2(const Type& a);
/// divmod(a, b): formal operand type (the tuple's element type).
std::optional<Resolved> resolve_divmod(const Type& a, const Type& b);

}  // namespace cubridge::compiler
