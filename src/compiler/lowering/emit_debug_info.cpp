// Internal: debug=True's variable information (see emitter.hpp), as numba-cuda's debug info describes a
// function: a DISubroutineType listing the argument types (null for no result), a DIBasicType per scalar
// type (numba's names and DWARF encodings: "int32" DW_ATE_signed, "bool" DW_ATE_boolean of 8 bits,
// "GridGroup" DW_ATE_unsigned of 64 bits), parameters as DILocalVariables with their position, described
// by llvm.dbg.declare on their stack slots, and other variables (arg: 0) by llvm.dbg.value at each store;
// a variable's versions (variable_versions.cpp) are named as the source names it.
// Types without a scalar DWARF form (arrays, tuples, records, ...) are opaque named structures: their
// layout is not described rather than described wrongly.
#include <cctype>

#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

namespace {
std::string md(int id) { return "!" + std::to_string(id); }

/// A variable's name in the source: a version's ("x#v1", "i#1") is its variable's.
std::string source_name(const std::string& slot_name) { return slot_name.substr(0, slot_name.find('#')); }

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '_' || c >= 0x80)) return false;
  return true;
}
}  // namespace

int ModuleEmitter::debug_type(const Type& t) {
  std::string name = t.is_grid_group() ? "GridGroup" : t.name();
  auto it = debug_types.find(name);
  if (it != debug_types.end()) return it->second;
  int id = next_metadata++;
  std::string node;
  if (t.is_bool()) {
    node = "!DIBasicType(encoding: DW_ATE_boolean, name: \"bool\", size: 8)";
  } else if (t.is_int()) {
    node = std::string("!DIBasicType(encoding: ") + (t.is_signed() ? "DW_ATE_signed" : "DW_ATE_unsigned") +
           ", name: \"" + name + "\", size: " + std::to_string(t.bits()) + ")";
  } else if (t.is_float()) {
    node = "!DIBasicType(encoding: DW_ATE_float, name: \"" + name + "\", size: " + std::to_string(t.bits()) + ")";
  } else if (t.is_grid_group()) {
    node = "!DIBasicType(encoding: DW_ATE_unsigned, name: \"GridGroup\", size: 64)";
  } else {
    std::string quoted;
    for (char c : name) quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    node = "!DICompositeType(tag: DW_TAG_structure_type, name: \"" + quoted + "\", elements: !{})";
  }
  metadata += md(id) + " = " + node + "\n";
  debug_types[name] = id;
  return id;
}

int ModuleEmitter::subroutine_type(const TypedFunction& fn) {
  std::string list = "!{ ";
  list += fn.return_type.is_none() ? "null" : md(debug_type(fn.return_type));
  for (const Type& a : fn.arg_types) list += ", " + (a.is_none() ? std::string("null") : md(debug_type(a)));
  int types = next_metadata++;
  metadata += md(types) + " = " + list + " }\n";
  int id = next_metadata++;
  metadata += md(id) + " = !DISubroutineType(types: " + md(types) + ")\n";
  return id;
}

void FunctionEmitter::describe_variable(int slot, const Value& stored) {
  if (!m_.options.debug || subprogram_ < 0) return;
  auto i = static_cast<std::size_t>(slot);
  const std::string name = source_name(fn_.local_names[i]);
  const Type& t = fn_.local_types[i];
  if (!is_identifier(name) || t.is_none() || t.is_unknown()) return;
  bool parameter = i < fn_.arg_types.size();
  auto known = variables_.find(slot);
  if (parameter && known != variables_.end()) return;  // its slot is declared once
  if (!parameter && known == variables_.end())  // a version ("x#v1") of the same type shares its variable, as
    for (const auto& [other, v] : variables_)   // numba-cuda describes a variable's versions by its source name
      if (static_cast<std::size_t>(other) >= fn_.arg_types.size() &&
          source_name(fn_.local_names[static_cast<std::size_t>(other)]) == name &&
          fn_.local_types[static_cast<std::size_t>(other)] == t) {
        known = variables_.emplace(slot, v).first;
        break;
      }
  int var;
  if (known != variables_.end()) {
    var = known->second;
  } else {
    var = m_.next_metadata++;
    m_.metadata += md(var) + " = !DILocalVariable(arg: " + std::to_string(parameter ? slot + 1 : 0) + ", scope: " +
                   md(subprogram_) + ", file: " + md(m_.files.at(fn_.def->file)) + ", line: " +
                   std::to_string(parameter ? fn_.def->loc.line : current_line_) + ", name: \"" + name + "\", type: " + md(m_.debug_type(t)) +
                   ")\n";
    variables_[slot] = var;
  }
  std::string ty = llvm_value_type(t);
  if (parameter) {  // the stack slot, which stays valid: ptxas describes it better than a value
    m_.declare("declare void @\"llvm.dbg.declare\"(metadata, metadata, metadata)");
    line("call void @\"llvm.dbg.declare\"(metadata " + ty + "* " + slot_ptr_[i] + ", metadata " + md(var) +
         ", metadata !DIExpression())");
  } else {
    m_.declare("declare void @\"llvm.dbg.value\"(metadata, metadata, metadata)");
    line("call void @\"llvm.dbg.value\"(metadata " + ty + " " + stored.v + ", metadata " + md(var) +
         ", metadata !DIExpression())");
  }
}

}  // namespace cubridge::compiler
