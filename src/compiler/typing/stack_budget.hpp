// Internal: how much of the calling thread's stack is left, for the typer's recursion. Typing recurses
// through expressions (at most 300 levels per function: frontend/ast_depth.cpp) and through calls (each
// call of a module function is typed inside its caller's typing); a chain of calls each nested deep
// multiplies the two, so neither limit alone keeps the stack safe. The typer therefore refuses code that
// nests calls more than kMaxCallDepth deep, and stops with a CompileError when the thread's stack is
// nearly used up (on any thread, in release and sanitizer builds: ASan's frames are larger, and it is the
// bytes left that are checked, not a count of frames calibrated on one build).
#pragma once

#include <cstddef>
#include <string>

namespace cubridge::compiler::typer_detail {

/// Calls of module functions nest at most this deep (a chain h0 -> h1 -> ... -> h128 is 128 calls).
inline constexpr std::size_t kMaxCallDepth = 128;

/// Bytes of the current thread's stack below the caller's frame (the stack grows down), or a very large
/// number when the thread's stack bounds cannot be read.
std::size_t stack_left() noexcept;

/// The bytes the typer keeps free: it refuses to go deeper once stack_left() falls below this. A quarter
/// of a small stack, 256 KiB of a large one (room for the frames between two checks and for unwinding).
std::size_t stack_reserve() noexcept;

/// The CompileError text for code that nests past the budget (how much stack was left, the limits).
std::string too_deep_message();

/// Thrown by recursive walks that have no file to name (cloning a function's body): type_function turns it
/// into a CompileError at (line, col) of the function being typed.
struct StackExhausted {
  int line;
  int col;
};

}  // namespace cubridge::compiler::typer_detail
