// Internal: typing of arrays (see function_typer.hpp): element loads and stores with integer indices of
// any width (or 0-d integer arrays, read as their value), views from indexing fewer dimensions than the rank (a[i] of a 2-d array is its row i, as
// in Numba) or from slices (a[1:], a[:, j], a[::2], with Numba's layout rule), and the attributes Numba's arrays offer in kernels (.shape, .strides, .size, .ndim, .itemsize).
#include "compiler/typing/function_typer.hpp"

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
  if (e.kind == ExprKind::Name && slot_of(e.name) >= 0) return single_definition_int(e.name);
  return std::nullopt;
}

// nullopt: an index's type is not known yet (typing goes on); an empty vector is the index () itself, which
// names the whole array as numba's basic indexing does (a[()] of a 1-d array is a view of all of it).
std::optional<std::vector<Type>> FunctionTyper::array_indices(Expr& index, const Type& base, SourceLoc loc) {
  if (index.kind == ExprKind::Unsupported)
    error(index.loc, index.name + " of an array is not supported; index arrays with integers and slices (a[i, j], "
                                  "a[1:], a[:, j])");
  std::vector<Expr*> parts;
  if (index.kind == ExprKind::Tuple) {
    for (auto& k : index.kids) parts.push_back(k.get());
  } else if (index.kind != ExprKind::Slice) {
    // A tuple of integers held in a variable (idx = (i, j); a[idx]) indexes one axis per item, as a
    // literal tuple does (numba types both as a UniTuple index).
    Type t = expr(index);
    if (t.is_unknown()) return std::nullopt;
    if (t.is_tuple() && !t.elements().empty() &&
        std::all_of(t.elements().begin(), t.elements().end(), [](const Type& k) { return k.is_int(); })) {
      if (static_cast<int>(t.elements().size()) > base.ndim())
        error(loc, "too many indices for " + base.name() + ": " + std::to_string(t.elements().size()) +
                       " given, the array has " + std::to_string(base.ndim()) + " dimension(s)");
      return t.elements();
    }
    parts.push_back(&index);
  } else {
    parts.push_back(&index);
  }
  if (static_cast<int>(parts.size()) > base.ndim())
    error(loc, "too many indices for " + base.name() + ": " + std::to_string(parts.size()) + " given, the array has " +
                   std::to_string(base.ndim()) + " dimension(s)");
  std::vector<Type> types;
  bool unknown = false;
  for (Expr* p : parts) {
    if (p->kind == ExprKind::Unsupported)
      error(p->loc, p->name + " of an array is not supported; index arrays with integers and slices (a[i, j], "
                              "a[1:], a[:, j])");
    if (p->kind == ExprKind::Slice) {
      if (!slice_bounds(*p)) unknown = true;
      types.push_back(Type::none());  // a slice's own bounds are typed in its formals
      continue;
    }
    Type t = expr(*p);
    if (t.is_array() && t.ndim() == 0 && t.dtype().is_int()) {
      // Numba's rule: a 0-d integer array indexes as its value (a[i] with i = np.asarray(1)): read as i[()].
      auto array = std::make_unique<Expr>(std::move(*p));
      auto nothing = std::make_unique<Expr>();
      nothing->kind = ExprKind::Tuple;
      nothing->loc = array->loc;
      Expr load;
      load.kind = ExprKind::Subscript;
      load.loc = array->loc;
      load.kids.push_back(std::move(array));
      load.kids.push_back(std::move(nothing));
      *p = std::move(load);
      t = expr(*p);
    }
    if (t.is_unknown()) unknown = true;
    else if (!t.is_int())
      error(p->loc, "an array index must be an integer, got " + t.name() + " (index " + base.name() +
                        " with integers of any width, or slices)");
    types.push_back(t);
  }
  if (unknown) return std::nullopt;
  if (index.kind == ExprKind::Tuple) index.type = Type::tuple(types);
  return types;
}

bool FunctionTyper::slice_bounds(Expr& slice) {
  static const char* kPart[] = {"start", "stop", "step"};
  slice.formals.clear();
  bool known = true;
  for (std::size_t k = 0; k < slice.kids.size(); ++k) {
    Expr& b = *slice.kids[k];
    Type t = expr(b);
    if (t.is_unknown()) known = false;
    else if (!(t.is_int() || t.is_bool() || t.is_none()))
      error(b.loc, std::string("a slice ") + kPart[k] + " must be an integer or None, got " + t.name());
    slice.formals.push_back(t);
  }
  if (slice.kids.size() == 3) {
    auto step = const_int(*slice.kids[2]);
    if (step && *step == 0) error(slice.kids[2]->loc, "slice step cannot be zero (use a positive or negative step)");
  }
  slice.type = Type::none();
  return known;
}

Type FunctionTyper::array_subscript(Expr& e, const Type& base) {
  if (base.is_array() && base.dtype().is_bfloat16()) bf16_target(e, "an element of a bfloat16 array");
  std::optional<std::vector<Type>> idx = array_indices(*e.kids[1], base, e.loc);
  if (!idx) return Type();
  e.formals = *idx;
  std::vector<const Expr*> parts;
  if (e.kids[1]->kind == ExprKind::Tuple) {
    for (auto& k : e.kids[1]->kids) parts.push_back(k.get());
  } else {
    parts.push_back(e.kids[1].get());
  }
  int ints = 0;
  for (const Expr* p : parts) ints += p->kind != ExprKind::Slice;
  if (e.kids[1]->kind != ExprKind::Tuple && e.kids[1]->type.is_tuple()) ints = static_cast<int>(idx->size());
  int rest = base.ndim() - ints;
  if (rest == 0) return base.dtype();
  return base.with_array(rest, view_layout(base, parts), base.readonly());
}

char FunctionTyper::view_layout(const Type& base, const std::vector<const Expr*>& parts) {
  // Numba's rule (arraydecl.get_array_index_type): indexing keeps a C array C when every index before
  // the innermost given one is an integer and the innermost is an integer or a slice without a step
  // (a[1:], a[i, 2:5]); an F array stays F only when all axes are indexed that way from the right.
  // Anything else (a[:, j], a[::2], a[i] of an F array) may have gaps and is 'A'.
  auto keeps = [](const Expr* p, bool innermost) {
    return p->kind != ExprKind::Slice || (innermost && p->kids.size() == 2);
  };
  auto contiguous = [&](const std::vector<const Expr*>& outer_to_inner) {
    for (std::size_t k = 0; k < outer_to_inner.size(); ++k)
      if (!keeps(outer_to_inner[k], k + 1 == outer_to_inner.size())) return false;
    return true;
  };
  bool all = static_cast<int>(parts.size()) == base.ndim();
  if (base.layout() == 'C') return contiguous(parts) ? 'C' : 'A';
  if (base.layout() == 'F' && all) return contiguous({parts.rbegin(), parts.rend()}) ? 'F' : 'A';
  return 'A';
}

void FunctionTyper::array_store(Expr& target, const Type& value) {
  Type base = expr(*target.kids[0]);
  if (base.is_unknown()) return;
  if (base.is_record()) return record_store(target, value);
  if (base.is_pointer()) return pointer_store(target, base, value);
  if (base.is_array() && base.dtype().is_bfloat16()) bf16_target(target, "an element of a bfloat16 array");
  if (!base.is_array())
    error(target.loc, "cannot assign to an element of a value of type " + base.name() +
                          " (tuples are immutable; array elements can be assigned)");
  std::optional<std::vector<Type>> idx = array_indices(*target.kids[1], base, target.loc);
  if (!idx) return;
  target.formals = *idx;
  const Expr& arr = *target.kids[0];
  std::string what = arr.kind == ExprKind::Name ? "'" + arr.name + "'" : "this array";
  if (base.readonly() && arr.constant_array)
    error(target.loc, "cannot store to " + what + ": it is a NumPy array bound outside the kernel, frozen into "
                          "the code as read-only constant memory; pass it as an argument to write to it");
  if (base.readonly())
    error(target.loc, "cannot store to " + what + ": it is a read-only array (" + base.name() +
                          "); declare the parameter without 'const' to write to it");
  std::vector<const Expr*> parts;
  const Expr& index = *target.kids[1];
  if (index.kind == ExprKind::Tuple) {
    for (const auto& k : index.kids) parts.push_back(k.get());
  } else {
    parts.push_back(&index);
  }
  int ints = 0;
  for (const Expr* p : parts) ints += p->kind != ExprKind::Slice;
  if (index.kind != ExprKind::Tuple && index.type.is_tuple()) {
    ints = static_cast<int>(idx->size());
    if (ints < base.ndim())
      error(index.loc, "a tuple index held in a variable must name one element in a store: " +
                           std::to_string(base.ndim()) + " integers for " + base.name() + ", got " +
                           std::to_string(ints) + " (write the slice out: a[i, :] = ...)");
  }
  if (ints < base.ndim()) {
    // The index names a view (a[1:4], a[i, :], a[i] of a 2-d array): a slice store (slice_store.cpp).
    target.type = base.with_array(base.ndim() - ints, view_layout(base, parts), false);
    slice_store(target, value, what);
    return;
  }
  target.type = base.dtype();
  if (value.is_unknown()) return;
  if (base.dtype().is_record()) {  // a[i] = r copies the record's bytes, as Numba does
    if (value != base.dtype())
      error(target.loc, "cannot store a value of type " + value.name() + " into an element of " + what + " (" +
                            base.name() + "); a record element takes a record of the same dtype");
    return;
  }
  if (value.is_foreign() || base.dtype().is_foreign()) {  // an extension type's value: stored whole, as numba does
    if (value != base.dtype())
      error(target.loc, "cannot store a value of type " + value.name() + " into an element of " + what + " (" +
                            base.name() + "); an element of a numba extension type takes a value of that type");
    return;
  }
  if (is_datetime_like(value) || is_datetime_like(base.dtype())) {  // numba converts no datetime unit implicitly
    if (value != base.dtype())
      error(target.loc, "cannot store a value of type " + value.name() + " into an element of " + what + " (" +
                            base.name() + "); a datetime64/timedelta64 element takes a value of its own type and "
                            "unit (numba-cuda converts neither between units nor from numbers)");
    return;
  }
  // into a bfloat16 element: numba-cuda's setitem accepts what converts to bfloat16 (floats and integers)
  if (value.is_bfloat16() || base.dtype().is_bfloat16() ? !bf16_convertible(value, base.dtype())
                           : (!value.is_scalar() || can_convert(value, base.dtype()) == Conversion::None))
    error(target.loc, "cannot store a value of type " + value.name() + " into an element of " + what + " (" +
                          base.name() + ")");
}

Type FunctionTyper::array_attribute(Expr& e, const Type& base) {
  const std::string& a = e.name;
  if (a == "shape" || a == "strides") return Type::tuple(std::vector<Type>(static_cast<std::size_t>(base.ndim()), i64()));
  if (a == "size" || a == "ndim" || a == "itemsize" || a == "nbytes") return i64();
  if (a == "ctypes.data") return Type::integer(64, false);  // a.ctypes.data, as attribute() rewrote it
  if (a == "T") return transposed_type(base);  // a view with the axes reversed
  if (a == "real" || a == "imag") {
    // numba: a complex array's .real/.imag are views of one component (layout 'A'); a real array's .real
    // is the array itself. A real array's .imag is a new array of zeros, which kernels cannot allocate.
    const Type& d = base.dtype();
    if (d.is_complex()) return Type::array(d.component(), base.ndim(), 'A', base.readonly());
    if (a == "real" && (d.is_int() || d.is_float() || d.is_bool())) return base;
    error(e.loc, "attribute '" + a + "' of an array (" + base.name() + ") is not supported: " +
                     (a == "imag" ? "the .imag of a real array is a new array of zeros, which a kernel cannot "
                                    "allocate" : "its elements are not numbers"));
  }
  if (a == "dtype")
    error(e.loc, "an array's .dtype is supported only where a type is expected: cuda.local.array(n, x.dtype), "
                 "cuda.shared.array(n, dtype=x.dtype) and x.dtype.type(v)");
  error(e.loc, "attribute '" + a + "' of an array (" + base.name() +
                   ") is not supported; arrays offer .shape, .strides, .size, .ndim, .itemsize, .nbytes, .real, .imag and .T");
}

}  // namespace cubridge::compiler::typer_detail
