// Internal: debug=True's variable information (see emitter.hpp), as numba-cuda's debug info describes a
// function: a DISubroutineType listing the argument types (null for no result), a DIBasicType per scalar
// type (numba's names and DWARF encodings: "int32" DW_ATE_signed, "bool" DW_ATE_boolean of 8 bits,
// "GridGroup" DW_ATE_unsigned of 64 bits), parameters as DILocalVariables with their position, described
// by llvm.dbg.declare on their stack slots, and other variables (arg: 0) by llvm.dbg.value at each store;
// a variable's versions (variable_versions.cpp) are one variable named as the source names it, of a union
// type (a member "_<type>" per type) where their types differ, as numba-cuda's.
// Types without a scalar DWARF form (arrays, tuples, records, ...) are opaque named structures: their
// layout is not described rather than described wrongly.
#include <algorithm>
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

namespace {
/// numba-cuda's union of a variable's version types: a member "_<type>" per type (in name order, as its
/// UnionType sorts them), the size of the largest; declared in `file` (libNVVM wants a union's file).
int union_type(ModuleEmitter& m, std::vector<Type> kinds, int file) {
  std::sort(kinds.begin(), kinds.end(), [](const Type& a, const Type& b) { return a.name() < b.name(); });
  std::string name = "Union[";
  for (std::size_t k = 0; k < kinds.size(); ++k) name += (k ? ", " : "") + kinds[k].name();
  name += "]";
  if (auto it = m.debug_types.find(name); it != m.debug_types.end()) return it->second;
  std::string list = "!{ ";
  std::int64_t bits = 0;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    const Type& t = kinds[k];
    std::int64_t size = t.is_bool() ? 8 : (t.is_int() || t.is_float()) ? t.bits() : 0;  // others: opaque, unsized
    bits = std::max(bits, size);
    int member = m.next_metadata++;
    m.metadata += md(member) + " = !DIDerivedType(baseType: " + md(m.debug_type(t)) + ", name: \"_" + t.name() +
                  "\", size: " + std::to_string(size) + ", tag: DW_TAG_member)\n";
    list += (k ? ", " : "") + md(member);
  }
  int elements = m.next_metadata++;
  m.metadata += md(elements) + " = " + list + " }\n";
  int id = m.next_metadata++;
  m.metadata += md(id) + " = distinct !DICompositeType(elements: " + md(elements) + ", file: " + md(file) + ", name: \"" + name +
                "\", size: " + std::to_string(bits) + ", tag: DW_TAG_union_type)\n";
  m.debug_types[name] = id;
  return id;
}
}  // namespace

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
  // A variable's versions ("x#v1", variable_versions.cpp) are one variable under the source's name, as
  // numba-cuda describes them: of the type they share, or of a union of their types where they differ.
  std::vector<Type> kinds;
  if (!parameter)
    for (std::size_t j = fn_.arg_types.size(); j < fn_.local_names.size() && j < fn_.local_types.size(); ++j) {
      const Type& u = fn_.local_types[j];
      if (source_name(fn_.local_names[j]) == name && !u.is_none() && !u.is_unknown() &&
          std::find(kinds.begin(), kinds.end(), u) == kinds.end())
        kinds.push_back(u);
    }
  if (!parameter && known == variables_.end())
    for (const auto& [other, v] : variables_)
      if (static_cast<std::size_t>(other) >= fn_.arg_types.size() &&
          source_name(fn_.local_names[static_cast<std::size_t>(other)]) == name &&
          (kinds.size() > 1 || fn_.local_types[static_cast<std::size_t>(other)] == t)) {
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
                   std::to_string(parameter ? fn_.def->loc.line : current_line_) + ", name: \"" + name + "\", type: " +
                   md(kinds.size() > 1 ? union_type(m_, kinds, m_.files.at(fn_.def->file)) : m_.debug_type(t)) +
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
