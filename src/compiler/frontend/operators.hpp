// Internal: the operators of the Python subset as the parser reads them (`a + b`, `-a`, `x += 1`); the
// typer resolves them (typing/typing_rules.hpp) and the emitter lowers them. Kept here so the syntax tree
// needs nothing from the later stages of the pipeline.
#pragma once

#include <string_view>

namespace cubridge::compiler {

enum class BinOp { Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Pow, LShift, RShift, BitAnd, BitOr, BitXor };
/// Python's spelling of `op` ("+", "//", "**"), for error messages.
std::string_view binop_symbol(BinOp op);

enum class UnaryOp { Neg, Pos, Invert, Not };

}  // namespace cubridge::compiler
