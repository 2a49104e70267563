// Internal: type inference of the Python subset with Numba's rules. Fills the Type slots of cloned
// function bodies (one clone per specialisation: a module function called with new argument types
// is typed again) and reports everything outside the subset as a CompileError.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/frontend/ast.hpp"

namespace cubridge::compiler {

struct TypedFunction {
  const FunctionDef* def = nullptr;
  std::vector<StmtPtr> body;             ///< a typed clone of def->body
  std::vector<Type> arg_types;
  Type return_type;                      ///< none when it returns nothing
  bool declared_return = false;
  std::vector<std::string> local_names;  ///< params first, in order
  std::vector<Type> local_types;
  bool falls_through = false;            ///< control can reach the end of the body
  bool can_raise = false;                ///< contains an assert or calls a function that does
  bool failed = false;                   ///< typing failed in a lenient pass (never emitted)
  bool recursive = false;                ///< calls itself (declared return type): a real call, never inlined
  /// Parameters bound at compile time (numba's function, type and literal arguments: a helper called as
  /// h(a, uint32, cuda.atomic.add, other_helper, 32)), one entry per parameter: "" for a run-time value, else
  /// what it is bound to ("path numpy.uint32", "function other_helper", "constant int64 32"). Such a
  /// parameter is typed none (it passes nothing) and its name resolves through the maps below.
  std::vector<std::string> static_args;
  std::map<std::string, std::string, std::less<>> static_paths;      ///< parameter -> module path
  std::map<std::string, std::string, std::less<>> static_functions;  ///< parameter -> module function
  std::map<std::string, Constant, std::less<>> static_constants;     ///< parameter -> its value
  std::string symbol;                    ///< set by the emitter
  /// Reads of a variable that some path reaches unassigned (version_variables), by source name and place.
  std::vector<std::pair<std::string, SourceLoc>> uninitialized_reads;
};

struct TypedModule {
  std::vector<std::unique_ptr<TypedFunction>> functions;  ///< [0] is the entry point
  std::deque<Constant> constants;                         ///< storage for folded constants
};

struct SourceSet {
  std::vector<ModuleAst> units;
};

/// Types `entry` of `sources` for `signature`. Throws CompileError.
TypedModule type_program(const SourceSet& sources, std::string_view entry, const Signature& signature,
                         const CompileOptions& options);

/// A deep copy of a statement list (each specialisation gets its own typed tree).
std::vector<StmtPtr> clone_body(const std::vector<StmtPtr>& body);
/// Gives each class of definitions of a variable that meet at a read a variable of its own ("x#v2"), as numba's
/// SSA versions it (variable_versions.cpp); `params` are defined on entry.
/// Returns the reads some path reaches with the variable never assigned (the source's name and the read's
/// place, in source order; numba's "uninitialized variable").
std::vector<std::pair<std::string, SourceLoc>> version_variables(const std::vector<std::string>& params,
                                                                 std::vector<StmtPtr>& body);
/// `msg` with variables' versions ("i#1", "x#v2") spelled as the source spells them ("i", "x").
std::string source_names(const std::string& msg);
ExprPtr clone_expr(const Expr& e);

}  // namespace cubridge::compiler
