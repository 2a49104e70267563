// Internal: members of Enum and IntEnum classes in kernels, as numba-cuda types them (see function_typer.hpp).
// A member is Numba's EnumMember(cls, T) or, of an IntEnum, IntEnumMember(cls, int64), T the type of the class's
// values; it is held as its value (numba's EnumModel). The class is part of the type:
//   - `a == b`, `a != b` of two members of one class compare their values (numba's EnumCompare/enum_eq); of a
//     plain Enum and anything else (a member of another class, a number) numba-cuda has no implementation:
//     refused by name; ordering operators on a plain Enum's members likewise.
//   - an IntEnum's member converts to its integer wherever a number is needed (numba's
//     IntEnumMember.can_convert_to): arithmetic, comparisons (members of two IntEnum classes compare as
//     integers), casts, stores; the typer's expr() reads it as an Unwrap of type int64.
//   - `a is b` is numba's enum_is/generic_is (typer_none.cpp's is_value): members of one class compare
//     values, of two classes (or a member and a number) are never the same: False.
//   - `.value` is the member's value (numba's EnumAttribute); no other attribute (.name included) is typed
//     by numba-cuda: refused by name.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

const char* symbol(CmpOp op) {
  switch (op) {
    case CmpOp::Lt: return "<";
    case CmpOp::Le: return "<=";
    case CmpOp::Gt: return ">";
    case CmpOp::Ge: return ">=";
    case CmpOp::Eq: return "==";
    case CmpOp::Ne: return "!=";
    default: return "in";
  }
}

}  // namespace

std::optional<Type> FunctionTyper::enum_compare(Expr& e) {
  bool plain = false;
  for (const ExprPtr& k : e.kids) plain = plain || (k->type.is_enum_member() && !k->type.is_int_enum_member());
  if (!plain || e.cmp_ops[0] == CmpOp::In || e.cmp_ops[0] == CmpOp::NotIn) return std::nullopt;
  if (e.cmp_ops.size() != 1)
    error(e.loc, "a chain of comparisons with an Enum member is not supported; compare two members at a time "
                 "(a == b and b == c)");
  const Type& a = e.kids[0]->type;
  const Type& b = e.kids[1]->type;
  if (a.is_unknown() || b.is_unknown()) {  // typed in a later pass
    e.formals = {Type()};
    return Type::boolean();
  }
  const CmpOp op = e.cmp_ops[0];
  const std::string shown = std::string("'") + symbol(op) + "' of " + a.name() + " and " + b.name();
  if (op != CmpOp::Eq && op != CmpOp::Ne)
    error(e.loc, shown + " is not supported: an Enum's members have no order in numba-cuda, which types only == and "
                         "!= between members of one Enum class (an IntEnum's members compare as integers)");
  if (a != b)
    error(e.loc, shown + " is not supported: numba-cuda compares an Enum's members with == and != only with members "
                         "of the same class (an IntEnum's members also compare with numbers); `is` tells members "
                         "of different classes apart");
  e.formals = {a.enum_value()};  // numba's enum_eq: the values compared
  return Type::boolean();
}

Type FunctionTyper::enum_attribute(Expr& e, const Type& member) {
  if (e.name != "value")
    error(e.loc, "attribute '" + e.name + "' of an Enum member (" + member.name() + ") is not supported: numba-cuda "
                 "types only .value of a member in kernels" +
                     (e.name == "name" ? " (a member's name is a string, which kernels do not hold)" : ""));
  Expr value = std::move(*e.kids[0]);  // member.value: the member itself, read as its value
  e = std::move(value);
  return unwrapped(e, member.enum_value());
}

}  // namespace cubridge::compiler::typer_detail
