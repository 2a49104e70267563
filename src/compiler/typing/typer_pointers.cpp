// Internal: C pointers in compiled code (see function_typer.hpp), as numba types its CPointer: a parameter
// declared `float32*` / CPointer(float32) is indexed by one integer, p[i] loading and p[i] = v storing
// the pointee (no length, no bounds, no arithmetic); a void* (numba's voidptr) cannot be indexed.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

Type FunctionTyper::pointer_subscript(Expr& e, const Type& base) {
  if (base.pointee().is_none())
    error(e.loc, "cannot index a void* (numba's voidptr): it has no element type; declare the pointer with one "
                 "(CPointer(int32), 'int32*')");
  Expr& idx = *e.kids[1];
  if (idx.kind == ExprKind::Slice || idx.kind == ExprKind::Tuple)
    error(idx.loc, "a C pointer (" + base.name() + ") is indexed by one integer, p[i]; it has no shape to slice");
  Type t = expr(idx);
  if (t.is_unknown()) return Type();
  if (!t.is_int() && !t.is_bool())
    error(idx.loc, "a C pointer (" + base.name() + ") is indexed by an integer, got " + t.name());
  e.formals = {i64()};  // the index as an intp, as numba's getitem on CPointer takes it
  return base.pointee();
}

void FunctionTyper::pointer_store(Expr& target, const Type& base, const Type& value) {
  Type element = pointer_subscript(target, base);
  if (element.is_unknown()) return;
  target.type = element;
  if (base.readonly())
    error(target.loc, "cannot store through a pointer to const (" + base.name() + "); declare it without 'const'");
  if (value.is_unknown()) return;
  if (!value.is_scalar() || can_convert(value, element) == Conversion::None)
    error(target.loc, "cannot store a value of type " + value.name() + " through a C pointer (" + base.name() + ")");
}

}  // namespace cubridge::compiler::typer_detail

namespace cubridge::compiler::typer_detail {

Type FunctionTyper::pointer_array(Expr& e, const std::string& shown, bool fortran) {
  // numba's carray(ptr, shape, dtype=None) / farray: bound positionally or by keyword, then kept in that
  // order (ptr, shape[, dtype]) for the later passes and the emitter.
  if (!e.keywords.empty()) {
    const std::size_t positional = e.kids.size() - 1 - e.keywords.size();
    std::vector<ExprPtr> bound(3);
    for (std::size_t i = 0; i + 1 < e.kids.size(); ++i) {
      std::string kw = i < positional ? (i == 0 ? "ptr" : i == 1 ? "shape" : i == 2 ? "dtype" : "")
                                      : e.keywords[i - positional];
      std::size_t at = kw == "ptr" ? 0 : kw == "shape" ? 1 : kw == "dtype" ? 2 : 3;
      if (at == 3 || bound[at])
        error(e.kids[i + 1]->loc, shown + "(ptr, shape, dtype=None) takes ptr, shape and dtype");
      bound[at] = std::move(e.kids[i + 1]);
    }
    if (!bound[0] || !bound[1]) error(e.loc, shown + "(ptr, shape, dtype=None) needs a pointer and a shape");
    e.kids.resize(1);
    for (ExprPtr& b : bound)
      if (b) e.kids.push_back(std::move(b));
    e.keywords.clear();
  }
  arity(e, shown, e.kids.size() - 1, 2, 3);
  e.callee = Callee::Builtin;
  e.target = fortran ? "farray" : "carray";
  Type ptr = expr(*e.kids[1]);
  Type shape = expr(*e.kids[2]);
  if (ptr.is_unknown() || shape.is_unknown()) return Type();
  if (!ptr.is_pointer())
    error(e.kids[1]->loc, shown + ": the first argument must be a C pointer (CPointer(float32), 'float32*'), got " +
                              ptr.name());
  int ndim = 0;
  if (shape.is_int()) {
    ndim = 1;
  } else if (shape.is_tuple() && !shape.elements().empty() &&
             std::all_of(shape.elements().begin(), shape.elements().end(), [](const Type& t) { return t.is_int(); })) {
    ndim = static_cast<int>(shape.elements().size());
  } else {
    error(e.kids[2]->loc, shown + ": the shape must be an integer or a tuple of integers, got " + shape.name());
  }
  std::optional<Type> dtype;
  if (e.kids.size() == 4) {
    const Expr& d = *e.kids[3];
    std::string dt = dotted(d);
    if (!dt.empty()) dtype = parse_type_name(dt.substr(dt.rfind('.') + 1));
    if (!dtype || !dtype->is_scalar())
      error(d.loc, shown + ": the dtype must be a number type such as numba.float32 or np.float32");
    if (!ptr.pointee().is_none() && *dtype != ptr.pointee())
      error(d.loc, shown + ": mismatching dtype '" + dtype->name() + "' for pointer type '" + ptr.name() + "'");
  } else if (ptr.pointee().is_none()) {
    error(e.loc, shown + ": a void* needs the dtype argument (it has no element type)");
  }
  e.formals = {ptr, shape};
  return Type::array(dtype.value_or(ptr.pointee()), ndim, fortran ? 'F' : 'C');
}

}  // namespace cubridge::compiler::typer_detail

namespace cubridge::compiler::typer_detail {

Type FunctionTyper::ffi_from_buffer(Expr& e, const std::vector<Type>& args, bool unknown) {
  // cffi's ffi.from_buffer(array) as numba types it (its cffi support): a pointer to the data of a
  // contiguous array of numbers.
  arity(e, "ffi.from_buffer", args.size(), 1, 1);
  e.callee = Callee::Builtin;
  e.target = "ffi.from_buffer";
  if (unknown) return Type();
  const Type& a = args[0];
  if (!a.is_array() || !a.dtype().is_scalar())
    error(e.kids[1]->loc, "ffi.from_buffer() takes an array of numbers, got " + a.name());
  if (a.layout() != 'C' && a.layout() != 'F')
    error(e.kids[1]->loc, "from_buffer() unsupported on non-contiguous buffers (" + a.name() + ")");
  return Type::pointer(a.dtype(), a.readonly());
}

}  // namespace cubridge::compiler::typer_detail
