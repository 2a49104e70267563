// Internal: members of a class bound outside the source, read as constants. The Python layer passes an
// IntEnum's members as constants "Cls.member" (numba types them as IntEnumMember, which converts to its
// integer wherever a number is needed: arithmetic, comparisons, casts), so `Cls.member` and `Cls["member"]`
// fold to that integer.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

const Constant* FunctionTyper::class_member(const Expr& cls, const Expr& member) {
  if (cls.kind != ExprKind::Name || slot_of(cls.name) >= 0 || fn_.static_paths.count(cls.name) ||
      fn_.static_functions.count(cls.name))
    return nullptr;
  std::string name;
  if (member.kind == ExprKind::Attribute) name = member.name;                        // Cls.member
  else if (member.kind == ExprKind::Str && member.ival == 0) name = member.name;     // Cls["member"]
  else return nullptr;
  auto c = prog_.options.constants.find(cls.name + "." + name);
  return c == prog_.options.constants.end() ? nullptr : &c->second;
}

}  // namespace cubridge::compiler::typer_detail
