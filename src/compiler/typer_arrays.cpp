// Internal: typing of arrays (see typer_detail.hpp): element loads and stores with integer indices of
// any width, views from indexing fewer dimensions than the rank (a[i] of a 2-d array is its row i, as
// in Numba), and the attributes Numba's arrays offer in kernels (.shape, .strides, .size, .ndim, .itemsize).
#include "typer_detail.hpp"

#include <cstdlib>

namespace cubridge::compiler::typer_detail {

std::optional<std::int64_t> FunctionTyper::const_int(const Expr& e) {
  if (e.kind == ExprKind::Int && !e.int_unsigned) return static_cast<std::int64_t>(e.ival);
  if (e.kind == ExprKind::Unary && e.unop == UnaryOp::Neg) {
    auto v = const_int(*e.kids[0]);
    if (v) return -*v;
  }
  if (e.kind == ExprKind::Binary && (e.binop == BinOp::Add || e.binop == BinOp::Sub || e.binop == BinOp::Mul ||
                                     e.binop == BinOp::FloorDiv)) {  // shapes such as TPB + 2, 2 * TILE
    auto a = const_int(*e.kids[0]), b = const_int(*e.kids[1]);
    if (!a || !b || std::abs(*a) > (1 << 30) || std::abs(*b) > (1 << 30)) return std::nullopt;
    if (e.binop == BinOp::Add) return *a + *b;
    if (e.binop == BinOp::Sub) return *a - *b;
    if (e.binop == BinOp::Mul) return *a * *b;
    if (*b <= 0 || *a < 0) return std::nullopt;
    return *a / *b;
  }
  if (e.kind == ExprKind::Name && slot_of(e.name) < 0) {
    const Constant* c = constant_of(e.name, e.loc);
    if (c && c->type.is_int()) return c->type.is_signed() ? c->i : static_cast<std::int64_t>(c->u);
  }
  return std::nullopt;
}

std::vector<Type> FunctionTyper::array_indices(Expr& index, const Type& base, SourceLoc loc) {
  if (index.kind == ExprKind::Unsupported)
    error(index.loc, index.name + " of an array is not supported; index arrays with integers (a[i], a[i, j])");
  std::vector<Expr*> parts;
  if (index.kind == ExprKind::Tuple) {
    for (auto& k : index.kids) parts.push_back(k.get());
  } else {
    parts.push_back(&index);
  }
  if (static_cast<int>(parts.size()) > base.ndim())
    error(loc, "too many indices for " + base.name() + ": " + std::to_string(parts.size()) + " given, the array has " +
                   std::to_string(base.ndim()) + " dimension(s)");
  std::vector<Type> types;
  for (Expr* p : parts) {
    if (p->kind == ExprKind::Unsupported)
      error(p->loc, p->name + " of an array is not supported; index arrays with integers (a[i], a[i, j])");
    Type t = expr(*p);
    if (t.is_unknown()) return {};
    if (!t.is_int())
      error(p->loc, "an array index must be an integer, got " + t.name() + " (index " + base.name() +
                        " with integers of any width)");
    types.push_back(t);
  }
  if (index.kind == ExprKind::Tuple) index.type = Type::tuple(types);
  return types;
}

Type FunctionTyper::array_subscript(Expr& e, const Type& base) {
  std::vector<Type> idx = array_indices(*e.kids[1], base, e.loc);
  if (idx.empty()) return Type();
  e.formals = idx;
  int rest = base.ndim() - static_cast<int>(idx.size());
  if (rest == 0) return base.dtype();
  // Fixing the leading axes of a C array leaves a C array; anything else may have gaps.
  return base.with_array(rest, base.layout() == 'C' ? 'C' : 'A', base.readonly());
}

void FunctionTyper::array_store(Expr& target, const Type& value) {
  Type base = expr(*target.kids[0]);
  if (base.is_unknown()) return;
  if (!base.is_array())
    error(target.loc, "cannot assign to an element of a value of type " + base.name() +
                          " (tuples are immutable; array elements can be assigned)");
  std::vector<Type> idx = array_indices(*target.kids[1], base, target.loc);
  if (idx.empty()) return;
  target.formals = idx;
  target.type = base.dtype();
  const Expr& arr = *target.kids[0];
  std::string what = arr.kind == ExprKind::Name ? "'" + arr.name + "'" : "this array";
  if (base.readonly())
    error(target.loc, "cannot store to " + what + ": it is a read-only array (" + base.name() +
                          "); declare the parameter without 'const' to write to it");
  if (static_cast<int>(idx.size()) != base.ndim())
    error(target.loc, "cannot assign to " + what + " with " + std::to_string(idx.size()) + " index(es): it has " +
                          std::to_string(base.ndim()) + " dimensions; index every dimension to store one element");
  if (value.is_unknown()) return;
  if (!value.is_scalar() || can_convert(value, base.dtype()) == Conversion::None)
    error(target.loc, "cannot store a value of type " + value.name() + " into an element of " + what + " (" +
                          base.name() + ")");
}

Type FunctionTyper::array_attribute(Expr& e, const Type& base) {
  const std::string& a = e.name;
  if (a == "shape" || a == "strides") return Type::tuple(std::vector<Type>(static_cast<std::size_t>(base.ndim()), i64()));
  if (a == "size" || a == "ndim" || a == "itemsize" || a == "nbytes") return i64();
  error(e.loc, "attribute '" + a + "' of an array (" + base.name() +
                   ") is not supported; arrays offer .shape, .strides, .size, .ndim, .itemsize and .nbytes");
}

}  // namespace cubridge::compiler::typer_detail
