// Internal: the index of a cuda.atomic call. numba-cuda types it apart from array subscripts: a 1-d
// array's atomics take an intp (cudadecl's signature), a 2-d or higher array's take the tuple as written,
// and the lowering casts each item to intp (cudaimpl's _normalize_indices) before the wraparound. So
// cuda.atomic.add(a, (i, uint64(j) % 8), v) -- whose second item numba's NumPy-rule unification may have
// made float64 -- indexes as int() of it would. Integer items keep their type (the emitter's wraparound
// reads their signedness); bool and float items are converted as int64.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

std::vector<Type> FunctionTyper::atomic_indices(Expr& index, const std::string& shown) {
  auto item = [&](const Type& t, SourceLoc loc) -> Type {
    if (t.is_int()) return t;
    if (t.is_bool() || t.is_float()) return i64();
    error(loc, shown + "(): an index must be an integer, a bool or a float (numba-cuda casts it to intp), got " +
                   t.name());
  };
  auto one_element = [&](const Expr& k) {
    if (k.kind == ExprKind::Slice || k.kind == ExprKind::Unsupported)
      error(k.loc, shown + "(): the index must name one element (integers, one per dimension); slices are not "
                           "accepted");
  };
  std::vector<Type> out;
  if (index.kind == ExprKind::Tuple) {
    std::vector<Type> written;
    for (auto& k : index.kids) {
      one_element(*k);
      Type t = expr(*k);
      if (t.is_unknown()) return {};
      written.push_back(t);
      out.push_back(item(t, k->loc));
    }
    index.type = Type::tuple(std::move(written));
    return out;
  }
  one_element(index);
  Type t = expr(index);
  if (t.is_unknown()) return {};
  if (t.is_tuple()) {
    for (const Type& k : t.elements()) out.push_back(item(k, index.loc));
  } else {
    out.push_back(item(t, index.loc));
  }
  return out;
}

}  // namespace cubridge::compiler::typer_detail
